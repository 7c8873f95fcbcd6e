// Package bench orchestrates campaigns: it provisions one cluster per broker
// configuration, runs every RunSpec of a scenario through its phases (topic
// and group setup, group ready, warm-up, measurement window, drain), turns
// the recorder's raw measurements into a results.RunRecord and writes the
// campaign folder.
//
// bench sits above producer, consumers, collectors, infra, scenarios and
// results; none of them imports bench.
package bench
