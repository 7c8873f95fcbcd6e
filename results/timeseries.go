package results

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"sync/atomic"
)

// Series counts events per one-second bucket since the run's start, and
// keeps sampled gauges (lag, CPU, memory) as the last reading of each
// second. Buckets are fixed at construction (the run's longest possible
// duration); events past the end land in the last bucket so nothing is
// dropped.
type Series struct {
	start   int64 // Unix ns of bucket 0
	buckets []seriesBucket
	gauges  []gaugeBucket
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

// Gauge names a sampled column of the time series: a reading, not a count.
// A second holds the last reading taken in it; a second without one is
// unknown (an empty CSV cell).
type Gauge int

// The gauge columns, in CSV order after in_flight.
const (
	Lag                 Gauge = iota // group lag (Admin API), records
	BrokerCPUPercent                 // brokers' process CPU, % of all host cores, summed over brokers
	BrokerHeapUsedBytes              // brokers' heap in use, summed
	HarnessCPUPercent                // the harness's CPU, % of all host cores
	HarnessRSSBytes                  // the harness's resident memory
	BrokerRSSBytes                   // brokers' resident memory (/proc VmRSS), summed
	// LagUnread is 1 in a second whose lag reading failed (a gap: its lag
	// cell stays empty, never 0) and no reading of it succeeded.
	LagUnread
	numGauges
)

var gaugeNames = [numGauges]string{"lag", "broker_cpu_percent", "broker_heap_used_bytes",
	"harness_cpu_percent", "harness_rss_bytes", "broker_rss_bytes", "lag_unread"}

// gaugeDecimals is how many decimals each gauge keeps in the CSV.
var gaugeDecimals = [numGauges]int{0, 2, 0, 2, 0, 0, 0}

func (g Gauge) String() string { return gaugeNames[g] }

// GaugeNames lists the gauge columns in CSV order.
func GaugeNames() []string { return append([]string(nil), gaugeNames[:]...) }

// gaugeBucket holds float64 bits; NaN means no reading.
type gaugeBucket [numGauges]atomic.Uint64

var nanBits = math.Float64bits(math.NaN())

// NewSeries covers seconds [0, seconds) from start.
func NewSeries(start int64, seconds int) *Series {
	if seconds < 1 {
		seconds = 1
	}
	s := &Series{start: start, buckets: make([]seriesBucket, seconds), gauges: make([]gaugeBucket, seconds)}
	for i := range s.gauges {
		for g := range numGauges {
			s.gauges[i][g].Store(nanBits)
		}
	}
	return s
}

// Start is the Unix ns of bucket 0.
func (s *Series) Start() int64 { return s.start }

// Bucket is the index of the second holding time ns (clamped to the series).
func (s *Series) Bucket(ns int64) int { return s.bucket(ns) }

// SetGauge records a reading of g taken at ns; a later reading in the same
// second replaces it. NaN clears the second.
func (s *Series) SetGauge(g Gauge, ns int64, v float64) {
	s.gauges[s.bucket(ns)][g].Store(math.Float64bits(v))
}

// SetGaugeAt sets g in bucket i directly (ignored outside the series).
func (s *Series) SetGaugeAt(g Gauge, i int, v float64) {
	if i >= 0 && i < len(s.gauges) {
		s.gauges[i][g].Store(math.Float64bits(v))
	}
}

// GaugeAt returns the reading of g in bucket i; ok is false when there is none.
func (s *Series) GaugeAt(g Gauge, i int) (v float64, ok bool) {
	v = math.Float64frombits(s.gauges[i][g].Load())
	return v, !math.IsNaN(v)
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

// WriteCSV writes one row per second up to and including the last bucket
// with a count or a gauge reading. in_flight is cumulative deliveries minus
// cumulative finishes (completions, releases, rejects): records held by
// consumers at the end of the second. The gauge columns follow in_flight;
// a second without a reading has an empty cell.
func (s *Series) WriteCSV(w io.Writer) error {
	last := 0
	for i := range s.buckets {
		for c := range numCounters {
			if s.buckets[i][c].Load() != 0 {
				last = i
			}
		}
		for g := range numGauges {
			if _, ok := s.GaugeAt(g, i); ok {
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
	fmt.Fprint(w, ",in_flight")
	for _, n := range gaugeNames {
		fmt.Fprint(w, ",", n)
	}
	fmt.Fprintln(w)
	var inFlight int64
	line := make([]byte, 0, 256)
	for i := 0; i <= last; i++ {
		line = strconv.AppendInt(line[:0], int64(i), 10)
		for c := range numCounters {
			line = strconv.AppendInt(append(line, ','), s.buckets[i][c].Load(), 10)
		}
		b := &s.buckets[i]
		inFlight += b[Delivered].Load() - b[Completed].Load() - b[Released].Load() - b[Rejected].Load()
		line = strconv.AppendInt(append(line, ','), inFlight, 10)
		for g := range numGauges {
			line = append(line, ',')
			if v, ok := s.GaugeAt(g, i); ok {
				line = strconv.AppendFloat(line, v, 'f', gaugeDecimals[g], 64)
			}
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return nil
}
