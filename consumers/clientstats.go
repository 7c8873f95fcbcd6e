package consumers

import (
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/results"
)

// ClientStats are what the member clients' fetches looked like, from the
// franz-go hook HookFetchRecordBuffered, which fires for every record of
// a fetch response as the client buffers it (classic and share fetches).
type ClientStats struct {
	// Buffered is, per record handed to a worker, the time from the client
	// buffering it (the fetch response decoded; for a share group the
	// record is acquired by then) to the hand-over, in µs.
	Buffered *hdrhistogram.Histogram
	// PerAcquisition is, per share partition and ShareFetch response, the
	// records acquired (values are counts).
	PerAcquisition *hdrhistogram.Histogram
	// PerResponse is, per ShareFetch response, the records acquired over
	// all its partitions (values are counts).
	PerResponse *hdrhistogram.Histogram
}

func newClientStats() ClientStats {
	return ClientStats{Buffered: results.NewLatencyHistogram(),
		PerAcquisition: hdrhistogram.New(1, 1_000_000, 3), PerResponse: hdrhistogram.New(1, 1_000_000, 3)}
}

// fetchWatch is one member's HookFetchRecordBuffered. A share response's
// records share one acquisition deadline (franz-go computes it when it
// decodes the response), so records are grouped into responses by their
// deadline, and into acquisitions by deadline and partition. A group is
// counted at the member's next poll unless it is the newest (which may
// still be filling), and every group at the end.
type fetchWatch struct {
	clock *results.Clock
	mu    sync.Mutex
	at    map[*kgo.Record]int64 // buffered, Clock ns
	resp  map[int64]int         // deadline → records
	acq   map[acqKey]int
	stats ClientStats
}

type acqKey struct {
	deadline  int64
	partition int32
}

var _ kgo.HookFetchRecordBuffered = (*fetchWatch)(nil)

func newFetchWatch(clock *results.Clock) *fetchWatch {
	return &fetchWatch{clock: clock, at: map[*kgo.Record]int64{}, resp: map[int64]int{}, acq: map[acqKey]int{},
		stats: newClientStats()}
}

func (w *fetchWatch) OnFetchRecordBuffered(r *kgo.Record) {
	now := w.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.at[r] = now
	if d := r.AcquisitionDeadline(); !d.IsZero() {
		ns := d.UnixNano()
		w.resp[ns]++
		w.acq[acqKey{ns, r.Partition}]++
	}
}

// handed records a record's time in the client, at its hand-over.
func (w *fetchWatch) handed(r *kgo.Record, now int64) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if at, ok := w.at[r]; ok {
		delete(w.at, r)
		results.RecordNanos(w.stats.Buffered, now-at)
	}
}

// settle counts the complete response groups: all but the newest, or all
// when final.
func (w *fetchWatch) settle(final bool) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var newest int64
	if !final {
		for d := range w.resp {
			newest = max(newest, d)
		}
	}
	for d, n := range w.resp {
		if final || d != newest {
			_ = w.stats.PerResponse.RecordValue(int64(n))
			delete(w.resp, d)
		}
	}
	for k, n := range w.acq {
		if final || k.deadline != newest {
			_ = w.stats.PerAcquisition.RecordValue(int64(n))
			delete(w.acq, k)
		}
	}
}

// ClientStats merges the members' fetch statistics (members that have
// stopped included).
func (f *Fleet) ClientStats() ClientStats {
	out := newClientStats()
	f.mu.Lock()
	watches := append([]*fetchWatch(nil), f.watches...)
	f.mu.Unlock()
	for _, w := range watches {
		w.settle(true)
		w.mu.Lock()
		out.Buffered.Merge(w.stats.Buffered)
		out.PerAcquisition.Merge(w.stats.PerAcquisition)
		out.PerResponse.Merge(w.stats.PerResponse)
		w.mu.Unlock()
	}
	return out
}
