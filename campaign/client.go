package campaign

import (
	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// checkClients fails a campaign before any broker starts when a run needs a
// client this host cannot run (client java: a JDK and Maven).
func checkClients(sc *scenarios.Scenario) error {
	for _, r := range sc.Runs {
		if r.Client == consumers.ClientJava {
			return consumers.CheckJavaClient()
		}
	}
	return nil
}

// clientRecord is run.json's client: the library, its version, the
// settings its members reported and, for the Java runner, its clock
// alignment.
func clientRecord(s scenarios.RunSpec, rec *results.Recorder) *runs.Client {
	info := consumers.Config{Client: consumers.Client(s.Client), KafkaVersion: s.KafkaVersion}.Info()
	c := &runs.Client{Name: info.Name, Version: info.Version}
	if cc, ok := rec.ClientClock(); ok {
		c.Clock = &cc
	}
	if cs, ok := rec.ClientSettings(); ok {
		c.Settings = &cs
	}
	return c
}
