// Package bench orchestrates campaigns: it provisions one cluster per broker
// configuration, runs every RunSpec of a scenario through its phases (topic
// and group setup, group ready, warm-up, measurement window, drain), turns
// the recorder's raw measurements into a runs.Record and writes the
// campaign folder. A load_mode max_rate run is a sequence of rate runs, one
// per step of its schedule, each on a fresh topic, group and member fleet,
// judged by runs.SearchMaxRate (maxrate.go). After the runs it evaluates
// the scenario's expect: claims and answers its recommend: query.
//
// bench sits above producer, consumers, collectors, infra, scenarios and
// results; none of them imports bench.
package campaign
