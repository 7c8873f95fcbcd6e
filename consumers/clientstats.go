package consumers

import (
	"context"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

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
	// Requests are the members' requests per broker and kind, timed by the
	// franz-go hook HookBrokerE2E (written → response read), with the
	// fetches whose response carried no record (requestWatch).
	Requests results.RequestTimings
}

func newClientStats() ClientStats {
	return ClientStats{Buffered: results.NewLatencyHistogram(),
		PerAcquisition: hdrhistogram.New(1, 1_000_000, 3), PerResponse: hdrhistogram.New(1, 1_000_000, 3),
		Requests: results.RequestTimings{}}
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
	// leader answers a partition's leader from the client's metadata (set
	// once the client exists); pending is, per broker, the fetch whose
	// response is being buffered (requestWatch).
	leader  func(topic string, partition int32) int32
	pending map[int32]*pendingFetch
}

// pendingFetch is a broker's latest fetch: its key, time and the records
// its response has buffered so far.
type pendingFetch struct {
	key     results.RequestKey
	d       time.Duration
	records int
}

type acqKey struct {
	deadline  int64
	partition int32
}

var (
	_ kgo.HookFetchRecordBuffered = (*fetchWatch)(nil)
	_ kgo.HookBrokerE2E           = (*fetchWatch)(nil)
)

func newFetchWatch(clock *results.Clock) *fetchWatch {
	return &fetchWatch{clock: clock, at: map[*kgo.Record]int64{}, resp: map[int64]int{}, acq: map[acqKey]int{},
		stats: newClientStats(), pending: map[int32]*pendingFetch{}}
}

// watchLeaders lets the watch attribute buffered records to the broker
// that answered the fetch: the leaders of topic's partitions, read once
// from cl's metadata (franz-go's PartitionLeader does not answer for share
// consumers). A leader that moves later (a broker fault) leaves its
// records attributed to the old leader: its fetches may then read as
// empty.
func (w *fetchWatch) watchLeaders(ctx context.Context, cl *kgo.Client, topic string) {
	if w == nil {
		return
	}
	req := kmsg.NewPtrMetadataRequest()
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return // no attribution: fetches are timed, emptiness not counted
	}
	leaders := map[int32]int32{}
	for _, rt := range resp.Topics {
		if rt.Topic == nil || *rt.Topic != topic {
			continue
		}
		for _, p := range rt.Partitions {
			leaders[p.Partition] = p.Leader
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.leader = func(_ string, p int32) int32 {
		if l, ok := leaders[p]; ok {
			return l
		}
		return -1
	}
}

// OnBrokerE2E times one request. A fetch (Fetch, ShareFetch) becomes the
// broker's pending fetch: franz-go calls this hook when the response is
// read, before it buffers the response's records, and sends the source's
// next fetch only after those are drained, so the records buffered between
// two fetch responses of one broker belong to the first. The previous
// pending fetch is settled then: empty if it buffered no record.
func (w *fetchWatch) OnBrokerE2E(meta kgo.BrokerMetadata, key int16, e2e kgo.BrokerE2E) {
	if meta.NodeID < 0 {
		return // a seed connection (bootstrap metadata), not a broker of the cluster
	}
	k := results.RequestKey{Broker: meta.NodeID, Kind: kmsg.NameForKey(key)}
	d := e2e.DurationE2E()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stats.Requests.Observe(k, d, e2e.Err() != nil)
	if key != int16(kmsg.Fetch) && key != int16(kmsg.ShareFetch) || e2e.Err() != nil {
		return
	}
	w.settleFetch(meta.NodeID)
	w.pending[meta.NodeID] = &pendingFetch{key: k, d: d}
}

// settleFetch counts a broker's pending fetch as empty if it buffered no
// record; w.mu is held.
func (w *fetchWatch) settleFetch(broker int32) {
	p := w.pending[broker]
	if p == nil {
		return
	}
	if p.records == 0 {
		w.stats.Requests.ObserveEmpty(p.key, p.d)
	}
	delete(w.pending, broker)
}

func (w *fetchWatch) OnFetchRecordBuffered(r *kgo.Record) {
	now := w.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.at[r] = now
	if w.leader != nil {
		if p := w.pending[w.leader(r.Topic, r.Partition)]; p != nil {
			p.records++
		}
	}
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
	if final {
		for b := range w.pending {
			w.settleFetch(b)
		}
	}
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
// stopped included); a client runner's fleet has only its request counts.
func (f *Fleet) ClientStats() ClientStats {
	out := newClientStats()
	if f.java != nil { // the runner's request counts (java_requests.go)
		out.Requests.Merge(f.java.Requests())
	}
	f.mu.Lock()
	watches := append([]*fetchWatch(nil), f.watches...)
	f.mu.Unlock()
	for _, w := range watches {
		w.settle(true)
		w.mu.Lock()
		out.Buffered.Merge(w.stats.Buffered)
		out.PerAcquisition.Merge(w.stats.PerAcquisition)
		out.PerResponse.Merge(w.stats.PerResponse)
		out.Requests.Merge(w.stats.Requests)
		w.mu.Unlock()
	}
	return out
}
