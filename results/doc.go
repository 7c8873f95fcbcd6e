// Package results owns the measurement model of a benchmark run: the record
// stamp that identifies every produced record, HDR latency histograms, the
// one-second time series, the audit ledger that classifies every produced
// record exactly once, the theoretical ceilings, validity flags, and the run
// and campaign records written to disk with their console rendering.
//
// Everything here is a plain value or a mergeable recorder. results must not
// import any other sharebench package: it knows nothing about Kafka clients,
// providers, scenarios or the CLI.
package results
