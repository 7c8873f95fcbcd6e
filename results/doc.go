// Package results owns the measurement model of a benchmark run on the hot
// path: the record stamp that identifies every produced record, the run's
// clock, HDR latency histograms and their percentile summaries, the
// one-second time series (and reading its CSV back), the interval logs
// (.hlog), the audit ledger that classifies every produced record exactly
// once, the recorder with its producer and member recorders, and the values
// the fleets and collectors record (member times, rebalance pauses, CPU,
// broker metrics, lag).
//
// Everything here is a plain value or a mergeable recorder. results must not
// import any other sharebench package but internal/wire, a leaf (producer
// and consumers import only results; a shard export is a plain value here,
// framed and carried by campaign/shard): it knows nothing about Kafka clients, providers, scenarios or
// the CLI. The run record (run.json, campaign.json) and its analysis are
// results/runs; every rendering is results/report. Nothing here renders or
// imports a template.
package results
