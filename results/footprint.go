package results

import (
	"unsafe"
)

// The memory the measurement model holds for one run, computed from the same
// geometry the constructors use, so a campaign can refuse a scenario that
// would not fit before it starts anything (see campaign's sizing step).

// LedgerBytes is the memory NewLedger(producers, perProducer) allocates: four
// bitsets of perProducer bits per producer. Repeat completions, kept in a
// sparse map, are not included: they are rare by nature.
func LedgerBytes(producers int, perProducer uint64) uint64 {
	if producers < 0 {
		producers = 0
	}
	words := (perProducer + 63) / 64
	return satMul(satMul(uint64(producers), 4), satMul(words, 8))
}

// SeriesBytes is the memory NewSeries(start, seconds) allocates: one counter
// row and one gauge row per second.
func SeriesBytes(seconds int) uint64 {
	if seconds < 1 {
		seconds = 1
	}
	row := uint64(unsafe.Sizeof(seriesBucket{}) + unsafe.Sizeof(gaugeBucket{}))
	return satMul(uint64(seconds), row)
}

// intervalBytesPerSecond bounds one second of an encoded interval log (.hlog
// line: a compressed, base64-encoded histogram); a run keeps two logs.
// Measured (results.TestFilesPerHour, latencies spread over 1–100 ms):
// 760 B at 500 records/s, 2.4 KB at 5,000, 3.7 KB at 20,000 (more distinct
// buckets filled); it was 2,048, below the faster runs' lines.
const intervalBytesPerSecond = 4096

// IntervalLogBytes is the memory the run's two interval logs grow to over
// seconds of run time: the encoded intervals, plus the intervals not yet
// written (at most intervalLagSeconds + 2 histograms per log).
func IntervalLogBytes(seconds int) uint64 {
	if seconds < 1 {
		seconds = 1
	}
	return satMul(uint64(seconds), 2*intervalBytesPerSecond) + 2*(intervalLagSeconds+2)*latencyHistogramBytes()
}

// ProducerRecorderBytes is the memory of one producer's recorder (two latency
// histograms and its publish interval).
func ProducerRecorderBytes() uint64 { return 3 * latencyHistogramBytes() }

// memberStripeBytes is the memory of one member stripe: the histograms of
// MemberHistograms, its completion interval's histogram and the stripe.
func memberStripeBytes() uint64 {
	var n uint64
	var h MemberHistograms
	for _, f := range histogramsOf(&h) {
		n += uint64(f.geom.new().ByteSize())
	}
	return n + latencyHistogramBytes() + uint64(unsafe.Sizeof(memberStripe{})+unsafe.Sizeof(IntervalWriter{}))
}

// MembersRecorderBytes is the memory of n consumer members' recorders: each
// member's counters, and min(n, MemberStripes()) stripes of histograms
// shared by the members (recorder.go).
func MembersRecorderBytes(n uint64) uint64 {
	stripes := min(n, uint64(MemberStripes()))
	return SatAdd(satMul(stripes, memberStripeBytes()), satMul(n, uint64(unsafe.Sizeof(MemberRecorder{}))))
}

func latencyHistogramBytes() uint64 { return uint64(NewLatencyHistogram().ByteSize()) }

// satMul multiplies without wrapping: an absurd scenario must size as huge,
// not as small.
func satMul(a, b uint64) uint64 {
	if a != 0 && b > ^uint64(0)/a {
		return ^uint64(0)
	}
	return a * b
}

// SatAdd adds without wrapping.
func SatAdd(a, b uint64) uint64 {
	if a > ^uint64(0)-b {
		return ^uint64(0)
	}
	return a + b
}

// SatMul multiplies without wrapping.
func SatMul(a, b uint64) uint64 { return satMul(a, b) }
