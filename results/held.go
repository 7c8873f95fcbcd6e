package results

import (
	"sync"
	"unsafe"
)

// RecorderHeld is the memory a run's recorder holds at one instant, in
// bytes, counted from its own structures (no heap walk): cheap enough to
// read every second beside the workload.
type RecorderHeld struct {
	// Fixed is what is sized before the run and does not grow with time:
	// the time series (one row per second of the run's longest length),
	// the ledger's bitsets, the histograms of the producers and of the
	// members' stripes, the members' own recorders.
	Fixed int64
	// IntervalLogs is the two interval logs' encoded text (.hlog) still in
	// memory and the interval histograms not yet encoded. The text grows a
	// line a second a log, but past spillBytes it moves to an unlinked file
	// (intervalspill.go), so this stays under about 2 × 64 KiB and the
	// histograms; it is apart because it grew with the run's length before.
	IntervalLogs int64
	// Other is what grows with what the run does rather than with its
	// length: the ledger's repeat completions and the order checks' fronts
	// (one per key and partition seen).
	Other int64
}

// Total is every byte counted.
func (h RecorderHeld) Total() int64 { return h.Fixed + h.IntervalLogs + h.Other }

// Bounded is what must stay flat in a steady run: Total without the
// interval logs.
func (h RecorderHeld) Bounded() int64 { return h.Fixed + h.Other }

// repeatEntryBytes is a Go map entry of the ledger's repeats (a 16-byte
// key, an 8-byte value, the map's own overhead per entry).
const repeatEntryBytes = 48

// orderFrontBytes is one order front and its map entry.
const orderFrontBytes = int64(unsafe.Sizeof(orderFront{})) + 32

// Held counts the memory the recorder holds now (RecorderHeld).
func (r *Recorder) Held() RecorderHeld {
	var h RecorderHeld
	if r.Series != nil {
		h.Fixed += int64(SeriesBytes(r.Series.Len()))
	}
	if r.Ledger != nil {
		for i := range r.Ledger.producers {
			p := &r.Ledger.producers[i]
			h.Fixed += 8 * int64(len(p.produced)+len(p.delivered)+len(p.completed)+len(p.archived))
		}
		r.Ledger.mu.Lock()
		h.Other += repeatEntryBytes * int64(len(r.Ledger.repeats))
		r.Ledger.mu.Unlock()
	}
	r.mu.Lock()
	producers, members, stripes := len(r.producers), len(r.members), len(r.stripes)
	r.mu.Unlock()
	h.Fixed += int64(SatAdd(satMul(uint64(producers), 3*heldHistogramBytes()),
		SatAdd(satMul(uint64(stripes), heldStripeBytes()), satMul(uint64(members), uint64(unsafe.Sizeof(MemberRecorder{}))))))
	h.IntervalLogs = r.completionLog.heldBytes() + r.publishLog.heldBytes()
	h.Other += orderFrontBytes * (r.order.keys.fronts() + r.order.parts.fronts())
	return h
}

// heldBytes is the log's encoded text in memory (its buffer's capacity;
// not what went to its file) and its interval histograms (pending and free
// for reuse).
func (l *IntervalLog) heldBytes() int64 {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return int64(l.buf.Cap()) + int64(len(l.pending)+len(l.free))*int64(heldHistogramBytes())
}

// fronts is the number of streams (keys or partitions) the table holds.
func (t *orderTable) fronts() int64 {
	var n int64
	for i := range t.stripes {
		s := &t.stripes[i]
		s.mu.Lock()
		n += int64(len(s.fronts))
		s.mu.Unlock()
	}
	return n
}

// heldHistogramBytes is latencyHistogramBytes, computed once: Held runs
// every second and must not allocate a histogram to size one.
var heldHistogramBytes = sync.OnceValue(latencyHistogramBytes)

// heldStripeBytes is memberStripeBytes, computed once.
var heldStripeBytes = sync.OnceValue(memberStripeBytes)
