package campaign

import (
	"context"
	"io"

	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// checkClients fails a campaign before any broker starts when a run needs a
// client this host cannot run (client java and spring: a JDK and Maven;
// client librdkafka: python3 with venv), and installs the librdkafka runner into
// the cache if it is not there yet, so its first install (about a minute)
// does not fall inside a run's clock.
func checkClients(ctx context.Context, sc *scenarios.Scenario, log io.Writer) error {
	checks := map[vocab.Client]func() error{
		consumers.ClientJava:   consumers.CheckJavaClient,
		consumers.ClientSpring: consumers.CheckJavaClient,
		consumers.ClientLibrdkafka: func() error {
			_, err := consumers.LibrdkafkaRunnerDir(ctx, log)
			return err
		},
	}
	for _, r := range sc.Runs {
		if check, ok := checks[r.Client]; ok {
			if err := check(); err != nil {
				return err
			}
			delete(checks, r.Client)
		}
	}
	return nil
}

// clientRecord is run.json's client: the library, its version, the
// settings its members reported and, for the Java runner, its clock
// alignment.
func clientRecord(s scenarios.RunSpec, rec *results.Recorder) *runs.Client {
	info := consumers.Config{Client: consumers.Client(s.Client), KafkaVersion: s.KafkaVersion}.Info()
	c := &runs.Client{Name: info.Name, Version: info.Version, Package: info.Package, Preview: info.Preview}
	if cc, ok := rec.ClientClock(); ok {
		c.Clock = &cc
	}
	if cs, ok := rec.ClientSettings(); ok {
		c.Settings = &cs
	}
	return c
}
