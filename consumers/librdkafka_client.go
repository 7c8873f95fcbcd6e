package consumers

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/vocab"
)

// ClientLibrdkafka runs a fleet's members in one Python process on
// confluent-kafka (librdkafka): see docs/how-to/compare-clients.md.
const ClientLibrdkafka = vocab.ClientLibrdkafka

// startLibrdkafka installs (on first use) and starts the librdkafka runner:
// the same fleet as the Java runner's (java_fleet.go), another command.
func startLibrdkafka(ctx context.Context, c Config, rec *results.Recorder) (*javaFleet, error) {
	dir, err := LibrdkafkaRunnerDir(ctx, c.Log)
	if err != nil {
		return nil, err
	}
	progress(c.Log, "client librdkafka: %s", LibrdkafkaPreview)
	return startRunner(ctx, c, rec, "librdkafka runner", func(cfgFile string) *exec.Cmd {
		return librdkafkaCommand(dir, cfgFile)
	})
}

// validateLibrdkafka refuses what librdkafka (confluent-kafka 2.16) does not
// have, naming the client, the knob and the missing feature; the scenario
// refuses the same with its file and key (scenarios/validate.go).
func (c Config) validateLibrdkafka() error {
	switch {
	case c.Style != StyleBlocking:
		return fmt.Errorf("consumers: client librdkafka runs style %s only, got %q: the runner polls, processes the batch on its "+
			"workers, then polls again (it has no loop that polls while records are processed); use style %s or client franz-go",
			StyleBlocking, c.Style, StyleBlocking)
	case c.Renew:
		return fmt.Errorf("consumers: client librdkafka: renew auto: librdkafka has no RENEW acknowledgement " +
			"(its AcknowledgeType is ACCEPT, RELEASE or REJECT)")
	case c.Type == ShareGroup && c.Acquire != "" && c.Acquire != AcquireBatchOptimized:
		return fmt.Errorf("consumers: client librdkafka: acquire_mode %s: librdkafka has no share.acquire.mode "+
			"(it cannot ask for record limits; use %s)", c.Acquire, AcquireBatchOptimized)
	case c.Type == ConsumerGroup && c.Groups.Protocol != ProtocolConsumer && c.Groups.Assignor == AssignorSticky:
		return fmt.Errorf("consumers: client librdkafka: assignor %s: librdkafka has no eager sticky assignor "+
			"(it has %s, %s and %s)", AssignorSticky, AssignorCooperativeSticky, AssignorRange, AssignorRoundRobin)
	case c.Fetch.Prefetch != nil:
		return fmt.Errorf("consumers: client librdkafka has no prefetch setting (its consumers fetch ahead by their own " +
			"design): use prefetch auto or client franz-go")
	case c.Groups.RebalanceTimeout > 0:
		return fmt.Errorf("consumers: client librdkafka: rebalance_timeout: librdkafka has no rebalance timeout of its own " +
			"(it sends max.poll.interval.ms); leave rebalance_timeout out or use client franz-go")
	}
	return nil
}
