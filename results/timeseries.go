package results

import (
	"fmt"
	"io"
	"sync/atomic"
)

// Series counts events per one-second bucket since the run's start. Buckets
// are fixed at construction (the run's longest possible duration); events
// past the end land in the last bucket so nothing is dropped.
type Series struct {
	start   int64 // Unix ns of bucket 0
	buckets []seriesBucket
}

// Counter names a column of the time series.
type Counter int

// The time-series columns, in CSV order.
const (
	Produced Counter = iota
	Delivered
	Completed
	Redelivered // deliveries with a delivery count above 1, or in-place retries
	Released    // share RELEASE acknowledgements (transient failures)
	Rejected    // share REJECT acknowledgements / consumer-group dead letters
	LockExpired // completions that happened after the acquisition deadline
	numCounters
)

var counterNames = [numCounters]string{"produced", "delivered", "completed", "redelivered", "released", "rejected", "lock_expired"}

func (c Counter) String() string { return counterNames[c] }

type seriesBucket [numCounters]atomic.Int64

// NewSeries covers seconds [0, seconds) from start.
func NewSeries(start int64, seconds int) *Series {
	if seconds < 1 {
		seconds = 1
	}
	return &Series{start: start, buckets: make([]seriesBucket, seconds)}
}

func (s *Series) bucket(ns int64) int {
	i := int((ns - s.start) / 1e9)
	if i < 0 {
		return 0
	}
	if i >= len(s.buckets) {
		return len(s.buckets) - 1
	}
	return i
}

// Add counts n events of kind c at time ns.
func (s *Series) Add(c Counter, ns int64, n int64) { s.buckets[s.bucket(ns)][c].Add(n) }

// Count returns the events of kind c in bucket i.
func (s *Series) Count(c Counter, i int) int64 { return s.buckets[i][c].Load() }

// Total sums kind c over buckets [from, to).
func (s *Series) Total(c Counter, from, to int) int64 {
	var n int64
	for i := max(from, 0); i < min(to, len(s.buckets)); i++ {
		n += s.buckets[i][c].Load()
	}
	return n
}

// Thirds splits the window [w.Start, w.End) into three equal spans of whole
// buckets and sums kind c in each: a run still warming up shows a first
// third well below the last.
func (s *Series) Thirds(c Counter, w Window) [3]int64 {
	first, last := s.bucket(w.Start), s.bucket(w.End-1)
	n := (last - first + 1) / 3
	var out [3]int64
	if n == 0 {
		return out
	}
	for i := range out {
		out[i] = s.Total(c, first+i*n, first+(i+1)*n)
	}
	return out
}

// Len is the number of buckets.
func (s *Series) Len() int { return len(s.buckets) }

// WriteCSV writes one row per second up to and including the last non-empty
// bucket. in_flight is cumulative deliveries minus cumulative finishes
// (completions, releases, rejects): records held by consumers at the end of
// the second.
func (s *Series) WriteCSV(w io.Writer) error {
	last := 0
	for i := range s.buckets {
		for c := range numCounters {
			if s.buckets[i][c].Load() != 0 {
				last = i
			}
		}
	}
	if _, err := fmt.Fprint(w, "second"); err != nil {
		return err
	}
	for _, n := range counterNames {
		fmt.Fprint(w, ",", n)
	}
	fmt.Fprintln(w, ",in_flight")
	var inFlight int64
	for i := 0; i <= last; i++ {
		fmt.Fprint(w, i)
		for c := range numCounters {
			fmt.Fprint(w, ",", s.buckets[i][c].Load())
		}
		b := &s.buckets[i]
		inFlight += b[Delivered].Load() - b[Completed].Load() - b[Released].Load() - b[Rejected].Load()
		if _, err := fmt.Fprintf(w, ",%d\n", inFlight); err != nil {
			return err
		}
	}
	return nil
}
