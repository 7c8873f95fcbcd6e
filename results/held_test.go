package results

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// The recorder's fixed part, worked by hand: a 100-second series (7
// counters and 7 gauges of 8 bytes a second: 11,200 B) and a ledger of 2
// producers × 4 bitsets × 10 words of 8 bytes (640 records: 640 B).
func TestRecorderHeldFixedByHand(t *testing.T) {
	r := NewRecorder(NewClock(), 1, NewLedger(2, 640), NewSeries(0, 100))
	h := r.Held()
	if h.Fixed != 11_200+640 {
		t.Errorf("fixed %d B, want 11,840", h.Fixed)
	}
	if h.Other != 0 {
		t.Errorf("other %d B, want 0", h.Other)
	}
	if h.Total() != h.Fixed+h.IntervalLogs || h.Bounded() != h.Fixed {
		t.Errorf("total %d bounded %d of %+v", h.Total(), h.Bounded(), h)
	}
}

// Held agrees with the heap the recorder really takes: the live heap
// grown by making one (4 producers, 16 members) within 15 % of Held.
func TestRecorderHeldAgainstHeap(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := NewRecorder(NewClock(), 1, NewLedger(4, 1_000_000), NewSeries(0, 3600))
	for range 4 {
		r.ProducerRecorder()
	}
	for range 16 {
		r.MemberRecorder()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	held := r.Held().Total()
	if float64(held) < 0.85*float64(grew) || float64(held) > 1.15*float64(grew) {
		t.Errorf("Held %d B, the heap grew %d B", held, grew)
	}
	runtime.KeepAlive(r)
}

// The interval logs grow as their intervals are written; the fixed part
// does not move.
func TestRecorderHeldIntervalLogsGrow(t *testing.T) {
	r := NewRecorder(NewClock(), 1, NewLedger(1, 64), NewSeries(0, 600))
	h0 := r.Held()
	for sec := range int64(600) {
		r.completionLog.Record(sec*1e9, 5e6+sec*1000)
	}
	h1 := r.Held()
	if h1.Fixed != h0.Fixed || h1.IntervalLogs <= h0.IntervalLogs {
		t.Errorf("before %+v, after 600 s %+v", h0, h1)
	}
}

// hourOfSeries is a one-hour series with every counter and gauge set in
// every second, as a busy run leaves it.
func hourOfSeries() *Series {
	s := NewSeries(0, 3600)
	for i := range 3600 {
		ns := int64(i) * 1e9
		for c := range numCounters {
			s.Add(c, ns, 500+int64(i%7))
		}
		for g := range numGauges {
			s.SetGauge(g, ns, 1e8+float64(i)*12345.678)
		}
	}
	return s
}

// What a run writes per hour stays bounded: timeseries.csv one row a
// second, each interval log one line a second. The bounds are the
// figures docs/explanation/measurement.md#harness-footprint gives ("Soak").
func TestFilesPerHour(t *testing.T) {
	var csv bytes.Buffer
	if err := hourOfSeries().WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if n := csv.Len(); n > 512<<10 {
		t.Errorf("timeseries.csv: %d B an hour, want ≤ 512 KiB", n)
	} else {
		t.Logf("timeseries.csv: %d B an hour (%d rows)", n, bytes.Count(csv.Bytes(), []byte("\n")))
	}
	// 500 records a second for an hour, then 20,000 a second for two
	// minutes, latencies spread over 1–100 ms: each second's line within
	// the memory model's bound (intervalBytesPerSecond).
	for _, c := range []struct{ rate, seconds int64 }{{500, 3600}, {20_000, 120}} {
		rng := rand.New(rand.NewPCG(1, 2))
		log := NewIntervalLog("completion", 0)
		for i := range c.rate * c.seconds {
			log.Record(i*int64(time.Second)/c.rate, int64(1e6+rng.ExpFloat64()*10e6))
		}
		b, err := log.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		perSec := int64(len(b)) / c.seconds
		if perSec > intervalBytesPerSecond {
			t.Errorf("completion.hlog at %d records/s: %d B a second, want ≤ %d (the memory model's)", c.rate, perSec, intervalBytesPerSecond)
		}
		t.Logf("completion.hlog at %d records/s: %d B a second, %d B an hour", c.rate, perSec, perSec*3600)
	}
}

// Held may be asked while the run records (the /proc sampler asks every
// second): run under -race (make test-race).
func TestRecorderHeldWhileRecording(t *testing.T) {
	r := NewRecorder(NewClock(), 1, NewLedger(1, 10_000), NewSeries(0, 60))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range int64(10_000) {
			r.Ledger.Produced(0, uint64(i))
			r.Ledger.Completed(0, uint64(i))
			r.Ledger.Completed(0, uint64(i%10)) // repeats
			r.completionLog.Record(i*5e6, 1e6)
			if i%1000 == 0 {
				r.MemberRecorder()
			}
		}
	}()
	for range 50 {
		_ = r.Held()
	}
	<-done
	if h := r.Held(); h.Other < 10*repeatEntryBytes || h.IntervalLogs == 0 {
		t.Errorf("after recording: %+v", h)
	}
}
