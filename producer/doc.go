// Package producer owns the producer fleet: an open-loop constant-rate
// schedule (records are due at fixed times whatever the broker does, so a
// slow broker shows up as schedule lag rather than as a lower offered load),
// record stamping, and publish-latency recording into a results.Recorder.
//
// producer may import results; it must not import consumers, scenarios,
// collectors, infra or campaign.
package producer
