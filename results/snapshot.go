package results

import (
	"reflect"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Snapshot is every producer and member counter and histogram as one plain
// value that merges (in the spirit of hdrhistogram-go's Snapshot/Merge): a
// run's total, one producer's or one member's part of it, or what a sharded
// run's agent sends its coordinator. Recorder.Merge (Merged), Recorder.Counts,
// the shard export and Absorb all walk these types' fields, so a counter or
// histogram added to ProducerCounts, MemberCounts, ProducerHistograms or
// MemberHistograms reaches all four with no other edit
// (TestSnapshotFieldsTakeEveryPath checks it).
type Snapshot struct {
	Counts
	ProducerHistograms
	MemberHistograms
}

// Counts are a Snapshot's counters without its histograms: cheap to sum,
// what Recorder.Counts returns on every metrics scrape.
type Counts struct {
	ProducerCounts[int64]
	MemberCounts[int64]
}

// InFlight is deliveries minus finishes (completions, releases, rejects):
// records held by the consumers now, as timeseries.csv's in_flight.
func (c Counts) InFlight() int64 { return c.Delivered - c.Completed - c.Released - c.Rejected }

// ProducerCounts are one producer's counters: atomic.Int64 on the per-record
// path (ProducerRecorder), int64 in a Snapshot. Every field is a T or an
// array of T; fields are summed when snapshots merge.
type ProducerCounts[T any] struct {
	Sent          T
	Acked         T // produce acknowledgements
	AckedWindow   T // acked records whose intended send time is in the window
	ProduceFailed T // produces the client gave up on
}

// MemberCounts are one consumer member's counters, as ProducerCounts.
type MemberCounts[T any] struct {
	Polls, EmptyPolls T
	Polled            T // records returned by polls
	Delivered         T
	Completed         T // completions at any time
	CompletedInWindow T
	Redelivered       T // deliveries with delivery count > 1, or seen again (consumer group)
	Released          T
	Rejected          T
	Retried           T
	LockExpired       T
	// LockExpiredInWindow are the LockExpired completions made in the
	// window: with CompletedInWindow, the window's useful completions.
	LockExpiredInWindow T
	Renewals            T // share RENEW acknowledgements sent (lock renewals)
	Duplicates          T
	AckErrors           T // acknowledgements or commits the broker refused
	// AckLockExpired are share acknowledgements the broker refused because
	// the records' acquisition locks had expired (INVALID_RECORD_STATE):
	// the records were handed out again, as lock expiry means, so these are
	// not client errors (AckErrors does not count them).
	AckLockExpired T
	PollErrors     T // polls that returned an error
	// DestinationWrites are record writes to the destination that
	// succeeded (a batch of n records is n), DestinationWriteErrors those
	// that failed (the record was handed back, never dropped).
	DestinationWrites      T
	DestinationWriteErrors T
	// DestinationWriteNanos is the time of every write, failed ones
	// included: with the two counts above, the mean write time a live
	// scrape can read (/metrics) without the histogram.
	DestinationWriteNanos T
	// DestinationConnNanos is, summed over successful writes, each
	// record's share of the time its statement held a connection (the
	// statement's time ÷ the records it wrote; the wait for a connection
	// and for a batch left out): the destination's service time, from
	// which its capacity is read.
	DestinationConnNanos T
	// DeliveryCounts[i] counts deliveries with delivery count i+1 (the last
	// slot holds every count beyond).
	DeliveryCounts [10]T
}

// ProducerHistograms are one producer's histograms. A field's tag `hist`
// names its geometry: "latency" (microseconds, NewLatencyHistogram) unless
// it says "count".
type ProducerHistograms struct {
	Publish     *hdrhistogram.Histogram // broker ack − actual send
	ScheduleLag *hdrhistogram.Histogram // actual send − intended send
}

// MemberHistograms are one consumer member's histograms, as
// ProducerHistograms.
type MemberHistograms struct {
	Delivery   *hdrhistogram.Histogram // handed to a worker − intended send
	Completion *hdrhistogram.Histogram // completed − intended send
	Queue      *hdrhistogram.Histogram // handed to a worker − broker append time
	Hold       *hdrhistogram.Histogram // completed − handed to a worker
	PollSize   *hdrhistogram.Histogram `hist:"count"` // records per non-empty poll (count, not µs)
	// PollGap is a member's latest finish since its previous poll → its
	// next non-empty poll returned (RecordPoll): in blocking style, the
	// time between two batches.
	PollGap *hdrhistogram.Histogram
	// DestinationWrite is a record's write to the destination: handed to
	// the writer → the write's statement committed (batch wait included);
	// part of Hold.
	DestinationWrite *hdrhistogram.Histogram
}

// NewSnapshot returns an empty snapshot with every histogram made.
func NewSnapshot() Snapshot {
	var s Snapshot
	s.ProducerHistograms = newHistograms[ProducerHistograms]()
	s.MemberHistograms = newHistograms[MemberHistograms]()
	return s
}

// Merge adds o into s: counters summed, histograms merged (o's nil ones
// skipped; s's nil ones made first).
func (s *Snapshot) Merge(o *Snapshot) {
	addCounts(&s.ProducerCounts, &o.ProducerCounts)
	addCounts(&s.MemberCounts, &o.MemberCounts)
	mergeHistograms(&s.ProducerHistograms, &o.ProducerHistograms)
	mergeHistograms(&s.MemberHistograms, &o.MemberHistograms)
}

// The helpers below walk the counter and histogram types by reflection, so
// no list of their fields is written by hand. None is on the per-record
// path: they run on Merge, Counts, Export and Absorb.

// fieldsOf returns a pointer to every T in *s in declaration order: each
// field of type T and each element of an array of T. Every field of s must
// be one of the two (the counter types above are).
func fieldsOf[T, S any](s *S) []*T {
	v := reflect.ValueOf(s).Elem()
	out := make([]*T, 0, v.NumField())
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() == reflect.Array {
			for k := range f.Len() {
				out = append(out, f.Index(k).Addr().Interface().(*T))
			}
			continue
		}
		out = append(out, f.Addr().Interface().(*T))
	}
	return out
}

// addCounts adds src's counters to dst's (the same counter type).
func addCounts[C any](dst, src *C) {
	d := fieldsOf[int64](dst)
	for i, v := range fieldsOf[int64](src) {
		*d[i] += *v
	}
}

// loadCounts adds the live counters src to dst: C is ProducerCounts or
// MemberCounts of int64, L the same of atomic.Int64.
func loadCounts[C, L any](dst *C, src *L) {
	d := fieldsOf[int64](dst)
	for i, v := range fieldsOf[atomic.Int64](src) {
		*d[i] += v.Load()
	}
}

// storeCounts sets the live counters dst to src (Absorb).
func storeCounts[L, C any](dst *L, src *C) {
	d := fieldsOf[atomic.Int64](dst)
	for i, v := range fieldsOf[int64](src) {
		d[i].Store(*v)
	}
}

// countersIn is how many counters a counter type holds (the shard export's
// check of a decoded list).
func countersIn[C any]() int {
	var c C
	return len(fieldsOf[int64](&c))
}

// histField is one histogram field of a histogram type.
type histField struct {
	name string // "schedule lag", for errors
	geom histGeometry
	h    **hdrhistogram.Histogram
}

// latency and count histogram geometries, as the recorder creates them.
type histGeometry struct{ lowest, highest, digits int64 }

var (
	latencyGeometry = histGeometry{histLowestUS, histHighestUS, histSigDigits}
	countGeometry   = histGeometry{1, 1_000_000, 3}
)

func (g histGeometry) new() *hdrhistogram.Histogram {
	return hdrhistogram.New(g.lowest, g.highest, int(g.digits))
}

// histogramsOf lists the histogram fields of *s in declaration order.
func histogramsOf[S any](s *S) []histField {
	v := reflect.ValueOf(s).Elem()
	out := make([]histField, v.NumField())
	for i := range v.NumField() {
		f := v.Type().Field(i)
		out[i] = histField{name: spaced(f.Name), geom: latencyGeometry, h: v.Field(i).Addr().Interface().(**hdrhistogram.Histogram)}
		if f.Tag.Get("hist") == "count" {
			out[i].geom = countGeometry
		}
	}
	return out
}

// spaced turns a field name into words: ScheduleLag → "schedule lag".
func spaced(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte(' ')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// newHistograms makes every histogram of a histogram type.
func newHistograms[S any]() S {
	var s S
	for _, f := range histogramsOf(&s) {
		*f.h = f.geom.new()
	}
	return s
}

// mergeHistograms merges src's histograms into dst's; src's nil ones are
// skipped (an absorbed shard's recorders hold none), dst's nil ones made.
func mergeHistograms[S any](dst, src *S) {
	d := histogramsOf(dst)
	for i, f := range histogramsOf(src) {
		if *f.h == nil {
			continue
		}
		if *d[i].h == nil {
			*d[i].h = d[i].geom.new()
		}
		(*d[i].h).Merge(*f.h)
	}
}

// Add adds o's counters to c's: the counts of a run split over agents,
// summed from each agent's.
func (c *Counts) Add(o Counts) {
	addCounts(&c.ProducerCounts, &o.ProducerCounts)
	addCounts(&c.MemberCounts, &o.MemberCounts)
}
