package consumers

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/vocab"
)

// ClientSpring runs a fleet's members in one JVM on Spring for Apache
// Kafka: the Java runner built with its spring profile, one listener
// container per member (docs/how-to/compare-clients.md).
const ClientSpring = vocab.ClientSpring

// springKafkaVersion is the Spring for Apache Kafka the Spring runner is
// built with (vocab.SpringKafkaVersion).
const springKafkaVersion = vocab.SpringKafkaVersion

// startSpring builds (on first use) and starts the Spring runner: the Java
// runner's fleet (startRunner), with the Spring build on its classpath.
func startSpring(ctx context.Context, c Config, rec *results.Recorder) (*javaFleet, error) {
	dir, err := SpringRunnerDir(ctx, c.KafkaVersion, c.Log)
	if err != nil {
		return nil, err
	}
	return startRunner(ctx, c, rec, "spring runner", func(cfgFile string) *exec.Cmd {
		return javaCommand(dir, cfgFile)
	})
}

// validateSpring refuses what client spring cannot run, naming the knob and
// the reason; the scenario refuses the same with its file and key
// (scenarios/validate.go, checkSpring).
func (c Config) validateSpring() error {
	switch {
	case c.Style != StyleBlocking:
		return fmt.Errorf("consumers: client spring runs style %s only, got %q: a Spring listener container polls, runs the "+
			"listener on each record of the batch on the polling thread, then polls again; use style %s or client franz-go",
			StyleBlocking, c.Style, StyleBlocking)
	case c.Renew:
		return fmt.Errorf("consumers: client spring: renew auto: Spring runs the listener on the polling thread and applies " +
			"ShareAcknowledgment.renew() only between polls, after the batch, so a lock cannot be renewed while its record " +
			"is processed; use renew none or client java")
	case c.Fetch.Prefetch != nil:
		return fmt.Errorf("consumers: client spring has no prefetch setting (the Java client under it fetches ahead or not " +
			"by its own design): use prefetch auto or client franz-go")
	case c.Groups.RebalanceTimeout > 0:
		return fmt.Errorf("consumers: client spring: rebalance_timeout: KafkaConsumer has no rebalance timeout of its own " +
			"(it sends max.poll.interval.ms); leave rebalance_timeout out or use client franz-go")
	case c.KafkaVersion == "":
		return fmt.Errorf("consumers: client spring needs the Kafka version (kafka-clients to build against)")
	}
	return nil
}
