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

// statsStripe is the ClientStats a few members' watches record into: the
// members MemberStripes() apart share one (as their results.MemberRecorder
// histograms do), so a run holds at most results.MemberStripes() of them
// however many members it has (issue 27: a member's own were about
// 360 KiB). Lock order: a watch's mu, then its stripe's.
type statsStripe struct {
	mu    sync.Mutex
	stats ClientStats
}

func newStatsStripe() *statsStripe { return &statsStripe{stats: newClientStats()} }

// fetchWatch is one member's HookFetchRecordBuffered. franz-go buffers a
// fetch response's records in one loop, partition by partition, right after
// the response is read (HookBrokerE2E): the records of one response and
// partition are a span, timed by one clock reading at its first record and
// found again at the hand-over by partition and offset, so no per-record
// state is kept (issue 27.2: a map entry and a clock reading per record
// were a tenth of the harness's per-record work). A share response's
// records share one acquisition deadline (franz-go computes it when it
// decodes the response), so records are grouped into responses by their
// deadline, and into acquisitions by deadline and partition. A group is
// counted at the member's next poll unless it is the newest (which may
// still be filling), and every group at the end.
type fetchWatch struct {
	clock *results.Clock
	mu    sync.Mutex
	// gen counts the fetch responses read (OnBrokerE2E): a record after a
	// new one starts a new span even on the same partition.
	gen   uint64
	spans map[int32]*partSpans
	// cur is the span being buffered: records of the same generation and
	// partition extend it.
	cur struct {
		gen  uint64
		ps   *partSpans
		open bool
	}
	resp map[int64]int // deadline → records
	acq  map[acqKey]int
	// run counts the records of the current span of a share response (one
	// deadline, one partition) before they go into resp and acq (flushRun).
	run struct {
		key   acqKey
		n     int
		share bool // the current span is a share response's
	}
	st *statsStripe // where its figures go, shared with other members' watches
	// leader answers a partition's leader from the client's metadata (set
	// once the client exists); pending is, per broker, the fetch whose
	// response is being buffered (requestWatch).
	leader  func(topic string, partition int32) int32
	pending map[int32]*pendingFetch
}

// span is the records of one fetch response for one partition: buffered at
// at (Clock ns, the first record's reading: the loop that buffers the rest
// takes microseconds), offsets first..last, left of them not yet handed over.
type span struct {
	at          int64
	first, last int64
	left        int
}

// partSpans is one partition's spans, oldest first. A partition's records
// reach the workers in the order they were buffered, so the hand-over
// finds a record in the oldest span holding its offset with records left.
type partSpans struct {
	partition int32
	q         []span
}

// maxSpans bounds a partition's spans: more than a member can hold
// buffered means the oldest were dropped by the client without a hand-over
// (forget covers the known cases, rebalances), and they go.
const maxSpans = 64

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

// newFetchWatch is a member's watch recording into st (nil: a stripe of its own).
func newFetchWatch(clock *results.Clock, st *statsStripe) *fetchWatch {
	if st == nil {
		st = newStatsStripe()
	}
	return &fetchWatch{clock: clock, spans: map[int32]*partSpans{}, resp: map[int64]int{}, acq: map[acqKey]int{},
		st: st, pending: map[int32]*pendingFetch{}}
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
	w.st.mu.Lock()
	w.st.stats.Requests.Observe(k, d, e2e.Err() != nil)
	w.st.mu.Unlock()
	if key != int16(kmsg.Fetch) && key != int16(kmsg.ShareFetch) || e2e.Err() != nil {
		return
	}
	w.gen++
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
		w.st.mu.Lock()
		w.st.stats.Requests.ObserveEmpty(p.key, p.d)
		w.st.mu.Unlock()
	}
	delete(w.pending, broker)
}

func (w *fetchWatch) OnFetchRecordBuffered(r *kgo.Record) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ps := w.cur.ps
	if !w.cur.open || w.cur.gen != w.gen || ps.partition != r.Partition {
		w.startSpan(r)
		return
	}
	s := &ps.q[len(ps.q)-1]
	s.last = max(s.last, r.Offset)
	s.left++
	if w.run.share {
		w.run.n++
	}
}

// startSpan opens a span at r, the first record of a response's partition;
// w.mu is held.
func (w *fetchWatch) startSpan(r *kgo.Record) {
	ps := w.spans[r.Partition]
	if ps == nil {
		ps = &partSpans{partition: r.Partition}
		w.spans[r.Partition] = ps
	}
	if len(ps.q) == maxSpans {
		ps.q = append(ps.q[:0], ps.q[1:]...)
	}
	ps.q = append(ps.q, span{at: w.clock.Now(), first: r.Offset, last: r.Offset, left: 1})
	w.cur.gen, w.cur.ps, w.cur.open = w.gen, ps, true
	if w.leader != nil {
		if p := w.pending[w.leader(r.Topic, r.Partition)]; p != nil {
			p.records++
		}
	}
	w.flushRun()
	w.run.share = false
	if d := r.AcquisitionDeadline(); !d.IsZero() {
		w.run.key, w.run.n, w.run.share = acqKey{d.UnixNano(), r.Partition}, 1, true
	}
}

// flushRun adds the current run of records into resp and acq; w.mu is held.
func (w *fetchWatch) flushRun() {
	if w.run.n == 0 {
		return
	}
	w.resp[w.run.key.deadline] += w.run.n
	w.acq[w.run.key] += w.run.n
	w.run.n = 0
}

// handed records a record's time in the client, at its hand-over (now,
// Clock ns); now < 0 only counts the record as handed over (a record the
// member does not time, a foreign one).
func (w *fetchWatch) handed(r *kgo.Record, now int64) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	ps := w.spans[r.Partition]
	if ps == nil {
		return
	}
	for i := range ps.q {
		s := &ps.q[i]
		if s.left == 0 || r.Offset < s.first || r.Offset > s.last {
			continue
		}
		s.left--
		if now >= 0 {
			w.st.mu.Lock()
			results.RecordNanos(w.st.stats.Buffered, now-s.at)
			w.st.mu.Unlock()
		}
		break
	}
	done := 0
	for done < len(ps.q) && ps.q[done].left == 0 {
		done++
	}
	if done > 0 {
		ps.q = append(ps.q[:0], ps.q[done:]...)
		if len(ps.q) == 0 && w.cur.ps == ps {
			w.cur.open = false // its span is handed over: a next record starts a new one
		}
	}
}

// forget drops the spans of partitions the member no longer owns (a
// consumer group's revoked or lost partitions, and those newly assigned):
// franz-go discards their buffered records, which no hand-over will find.
func (w *fetchWatch) forget(partitions []int32) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range partitions {
		if ps := w.spans[p]; ps != nil {
			delete(w.spans, p)
			if w.cur.ps == ps {
				w.cur.open = false
			}
		}
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
	w.flushRun()
	var newest int64
	if !final {
		for d := range w.resp {
			newest = max(newest, d)
		}
	}
	w.st.mu.Lock()
	defer w.st.mu.Unlock()
	for d, n := range w.resp {
		if final || d != newest {
			_ = w.st.stats.PerResponse.RecordValue(int64(n))
			delete(w.resp, d)
		}
	}
	for k, n := range w.acq {
		if final || k.deadline != newest {
			_ = w.st.stats.PerAcquisition.RecordValue(int64(n))
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
	stripes := append([]*statsStripe(nil), f.statsStripes...)
	f.mu.Unlock()
	for _, w := range watches {
		w.settle(true)
	}
	for _, st := range stripes {
		st.mu.Lock()
		out.Buffered.Merge(st.stats.Buffered)
		out.PerAcquisition.Merge(st.stats.PerAcquisition)
		out.PerResponse.Merge(st.stats.PerResponse)
		out.Requests.Merge(st.stats.Requests)
		st.mu.Unlock()
	}
	return out
}

// statsStripe is the stripe of the next member's watch (f.mu is held):
// watch i records into stripe i mod results.MemberStripes().
func (f *Fleet) statsStripe() *statsStripe {
	i := len(f.watches) % results.MemberStripes()
	if i == len(f.statsStripes) {
		f.statsStripes = append(f.statsStripes, newStatsStripe())
	}
	return f.statsStripes[i]
}
