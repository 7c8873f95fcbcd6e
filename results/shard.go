package results

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// A sharded run (campaign/shard) records on N recorders, one per agent
// process, and merges them on the coordinator: each agent exports what its
// recorder measured, the coordinator absorbs every export into its own
// recorder, and from there on Merge, the ledger's Audit and the series are
// read as for a single-process run.

// ShardExport is everything one shard's Recorder measured, in a form that
// travels between processes: counters and histograms (each producer's and
// member's part of the Snapshot, histograms in HdrHistogram's V2
// compressed encoding), member
// lifetimes, pauses, the interval logs' intervals, the series, the ledger's
// bitsets and the order-check state.
type ShardExport struct {
	// Shard is the agent's shard index, unique within the run; Export
	// leaves it 0 and the agent sets it before Encode. Absorb refuses a
	// second export with the same index.
	Shard int
	// Run is the recorder's RunTag.
	Run uint64

	window      Window
	clientClock *ClientClock
	seriesStart int64
	counters    []int64 // seriesLen × numCounters, bucket-major
	gauges      []gaugeReading
	ledger      ledgerExport
	producers   []producerExport
	members     []memberExport
	pauses      []RebalancePause
	// openPauses are the pauses still open at the export (their partition
	// was not assigned again on this shard) and assignments every
	// partition assignment on it: the coordinator ends an open pause at
	// an assignment on another shard.
	openPauses  []RebalancePause
	assignments []PartitionAssigned
	intervals   [2][]intervalExport // completion.hlog, publish.hlog
	order       [2]orderTableExport // keys, partitions
}

type gaugeReading struct {
	bucket int
	gauge  Gauge
	bits   uint64
}

type ledgerExport struct {
	capacity []uint64 // per producer
	// bits are per producer the non-zero words of its produced,
	// delivered, completed and archived bitsets, indexed as if the four
	// were concatenated (n words each, n = ⌈capacity/64⌉).
	bits         [][]wordRun
	repeats      []repeatExport
	foreign      int64
	producedAcks int64
	// elsewhereHits are the shard's deliveries reported as redeliveries
	// only because another shard delivered the record (the delivery
	// exchange): the merge, which finds those from the bitsets too,
	// subtracts them.
	elsewhereHits int64
}

// wordRun is a run of words starting at word at.
type wordRun struct {
	at    uint64
	words []uint64
}

type repeatExport struct {
	producer uint32
	seq      uint64
	extra    int64
}

// producerHistograms and memberHistograms count the histogram types'
// fields (every field is a pointer), so an export is a value that copies.
const (
	producerHistograms = unsafe.Sizeof(ProducerHistograms{}) / unsafe.Sizeof(&hdrhistogram.Histogram{})
	memberHistograms   = unsafe.Sizeof(MemberHistograms{}) / unsafe.Sizeof(&hdrhistogram.Histogram{})
)

// producerExport and memberExport are one producer's and one member's
// part of the Snapshot, histograms in HdrHistogram's V2 compressed encoding
// in their type's field order (histogramsOf).
type producerExport struct {
	counts ProducerCounts[int64]
	hists  [producerHistograms][]byte
}

type memberExport struct {
	counts    MemberCounts[int64]
	hists     [memberHistograms][]byte
	firstDlv  int64
	lastFin   int64
	id        int
	joined    int64
	left      int64
	crashed   bool
	held      int64
	lastDlv   int64
	idleNs    int64
	idleStart int64
}

// intervalExport is one interval of an interval log: its start and its
// histogram's populated buckets. Intervals travel as bucket lists rather
// than V2-encoded histograms: a coordinator absorbs hundreds per shard, and
// adding sorted lists costs a fraction of inflating each histogram.
type intervalExport struct {
	start   int64
	buckets []bucketCount
}

type orderTableExport struct {
	checked, viol, maxRecs, maxNs int64
	fronts                        []frontExport
}

type frontExport struct {
	id, pos  uint64
	intended int64
	affected bool
}

// encodeHists encodes a recorder's histograms in field order into out.
func encodeHists(out [][]byte, fs []histField) error {
	for i, f := range fs {
		b, err := (*f.h).Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return fmt.Errorf("results: export: encode %s histogram: %w", f.name, err)
		}
		out[i] = b
	}
	return nil
}

// Export captures the recorder's state once the shard's run has ended (the
// fleets stopped; recording after Export is not in it). It takes the
// producers' and members' locks one at a time, like Merge, and never touches the per-record
// path. A recorder that absorbed other shards cannot be exported.
func (r *Recorder) Export() (*ShardExport, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.absorbed.shards) > 0 {
		return nil, errors.New("results: export: this recorder absorbed shard exports; only an agent's own recorder can be exported")
	}
	e := &ShardExport{Run: r.Run, window: r.Window(), seriesStart: r.Series.start, pauses: slices.Clone(r.pauses),
		openPauses: r.stillOpen(), assignments: slices.Clone(r.assignments)}
	if c, ok := r.ClientClock(); ok {
		e.clientClock = &c
	}
	// Series.
	e.counters = make([]int64, len(r.Series.buckets)*int(numCounters))
	for i := range r.Series.buckets {
		for c := range numCounters {
			e.counters[i*int(numCounters)+int(c)] = r.Series.buckets[i][c].Load()
		}
		for g := range numGauges {
			if b := r.Series.gauges[i][g].Load(); !math.IsNaN(math.Float64frombits(b)) {
				e.gauges = append(e.gauges, gaugeReading{bucket: i, gauge: g, bits: b})
			}
		}
	}
	e.ledger = r.Ledger.export()
	// Producers' and members' recorders.
	var publishPieces, completionPieces []*intervalPiece
	for _, p := range r.producers {
		p.mu.Lock()
		publishPieces = append(publishPieces, p.publishLog.piece())
		var pe producerExport
		err := encodeHists(pe.hists[:], histogramsOf(&p.h))
		p.mu.Unlock()
		if err != nil {
			return nil, err
		}
		loadCounts(&pe.counts, &p.ProducerCounts)
		e.producers = append(e.producers, pe)
	}
	// A member's histograms travel with the first member of its stripe (the
	// owner); the others carry empty ones, encoded once. Absorb merges every
	// member's histograms into one set, so the sum is what it was.
	var empty [memberHistograms][]byte
	emptyHists := newHistograms[MemberHistograms]()
	if err := encodeHists(empty[:], histogramsOf(&emptyHists)); err != nil {
		return nil, err
	}
	for _, s := range r.members {
		me := memberExport{firstDlv: s.firstDelivery.Load(), lastFin: s.lastFinish.Load(), id: s.life.ID,
			joined: s.life.joined.Load(), left: s.life.left.Load(), crashed: s.life.crashed.Load(), held: s.life.held.Load(),
			lastDlv: s.life.lastDelivery.Load(), idleNs: s.life.idleNs.Load(), idleStart: s.life.idleStart.Load()}
		me.hists = empty
		if s.owner {
			st := s.stripe
			st.mu.Lock()
			completionPieces = append(completionPieces, st.completionLog.piece())
			err := encodeHists(me.hists[:], histogramsOf(&st.h))
			st.mu.Unlock()
			if err != nil {
				return nil, err
			}
		}
		loadCounts(&me.counts, &s.MemberCounts)
		e.members = append(e.members, me)
	}
	var err error
	if e.intervals[0], err = r.completionLog.export(completionPieces); err != nil {
		return nil, err
	}
	if e.intervals[1], err = r.publishLog.export(publishPieces); err != nil {
		return nil, err
	}
	e.order[0] = r.order.keys.export()
	e.order[1] = r.order.parts.export()
	return e, nil
}

// export copies the ledger's bitsets and counts.
func (l *Ledger) export() ledgerExport {
	e := ledgerExport{foreign: l.foreign.Load(), producedAcks: l.producedAcks.Load(), elsewhereHits: l.elsewhereHits.Load()}
	for i := range l.producers {
		s := &l.producers[i]
		e.capacity = append(e.capacity, s.capacity)
		var rs []wordRun
		n := len(s.produced)
		for k, b := range []bitset{s.produced, s.delivered, s.completed, s.archived} {
			for w := range b {
				v := b[w].Load()
				if v == 0 {
					continue
				}
				at := uint64(k*n + w)
				if last := len(rs) - 1; last >= 0 && rs[last].at+uint64(len(rs[last].words)) == at {
					rs[last].words = append(rs[last].words, v)
				} else {
					rs = append(rs, wordRun{at: at, words: []uint64{v}})
				}
			}
		}
		e.bits = append(e.bits, rs)
	}
	l.mu.Lock()
	for id, n := range l.repeats {
		e.repeats = append(e.repeats, repeatExport{id.producer, id.seq, int64(n)})
	}
	l.mu.Unlock()
	slices.SortFunc(e.repeats, func(a, b repeatExport) int {
		return cmp.Or(cmp.Compare(a.producer, b.producer), cmp.Compare(a.seq, b.seq))
	})
	return e
}

// export copies the table's fronts and figures, fronts sorted by stream id.
func (t *orderTable) export() orderTableExport {
	var e orderTableExport
	for i := range t.stripes {
		s := &t.stripes[i]
		s.mu.Lock()
		e.checked += s.checked
		e.viol += s.viol
		e.maxRecs = max(e.maxRecs, s.maxRecs)
		e.maxNs = max(e.maxNs, s.maxNs)
		for id, f := range s.fronts {
			e.fronts = append(e.fronts, frontExport{id: id, pos: f.pos, intended: f.intended, affected: f.affected})
		}
		s.mu.Unlock()
	}
	slices.SortFunc(e.fronts, func(a, b frontExport) int { return cmp.Compare(a.id, b.id) })
	return e
}

// Encode serialises the export (the frame and its body: wire.go).
func (e *ShardExport) Encode() ([]byte, error) {
	if e.Shard < 0 {
		return nil, fmt.Errorf("results: encode shard export: shard index %d, want ≥ 0", e.Shard)
	}
	w := newWireWriter(shardMagic, shardVersion)
	w.varint(int64(e.Shard))
	w.u64(e.Run)
	w.varint(e.window.Start)
	w.varint(e.window.End)
	w.bool(e.clientClock != nil)
	if e.clientClock != nil {
		w.varint(e.clientClock.OffsetNs)
		w.varint(e.clientClock.BoundNs)
	}
	w.varint(e.seriesStart)
	w.uvarint(uint64(len(e.counters) / int(numCounters)))
	for _, c := range e.counters {
		w.varint(c)
	}
	w.uvarint(uint64(len(e.gauges)))
	for _, g := range e.gauges {
		w.uvarint(uint64(g.bucket))
		w.uvarint(uint64(g.gauge))
		w.u64(g.bits)
	}
	l := &e.ledger
	w.uvarint(uint64(len(l.capacity)))
	for i, c := range l.capacity {
		w.uvarint(c)
		w.runs(l.bits[i])
	}
	w.uvarint(uint64(len(l.repeats)))
	for _, r := range l.repeats {
		w.uvarint(uint64(r.producer))
		w.uvarint(r.seq)
		w.varint(r.extra)
	}
	w.varint(l.foreign)
	w.varint(l.producedAcks)
	w.varint(l.elsewhereHits)
	w.uvarint(uint64(len(e.producers)))
	for i := range e.producers {
		p := &e.producers[i]
		w.snapshotPart(fieldsOf[int64](&p.counts), p.hists[:])
	}
	w.uvarint(uint64(len(e.members)))
	for i := range e.members {
		m := &e.members[i]
		w.snapshotPart(fieldsOf[int64](&m.counts), m.hists[:])
		for _, v := range []int64{m.firstDlv, m.lastFin, int64(m.id), m.joined, m.left, m.held, m.lastDlv, m.idleNs, m.idleStart} {
			w.varint(v)
		}
		w.bool(m.crashed)
	}
	for _, ps := range [][]RebalancePause{e.pauses, e.openPauses} {
		w.uvarint(uint64(len(ps)))
		for _, p := range ps {
			w.varint(int64(p.Member))
			w.varint(int64(p.Partition))
			w.varint(p.StartNs)
			w.varint(p.EndNs)
		}
	}
	w.uvarint(uint64(len(e.assignments)))
	for _, a := range e.assignments {
		w.varint(int64(a.Partition))
		w.varint(a.AtNs)
	}
	for _, ivs := range e.intervals {
		w.uvarint(uint64(len(ivs)))
		for _, iv := range ivs {
			w.varint(iv.start)
			w.uvarint(uint64(len(iv.buckets)))
			var prev int64
			for _, b := range iv.buckets {
				w.uvarint(uint64(b.value - prev))
				w.uvarint(uint64(b.count))
				prev = b.value
			}
		}
	}
	for _, t := range e.order {
		for _, v := range []int64{t.checked, t.viol, t.maxRecs, t.maxNs} {
			w.varint(v)
		}
		w.uvarint(uint64(len(t.fronts)))
		for _, f := range t.fronts {
			w.uvarint(f.id)
			w.uvarint(f.pos)
			w.varint(f.intended)
			w.bool(f.affected)
		}
	}
	return w.seal(), nil
}

// makeN makes n items; none is nil, as Export leaves an empty list.
func makeN[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, n)
}

// maxSeriesSeconds bounds a decoded series (a week of one-second buckets).
const maxSeriesSeconds = 7 * 24 * 3600

// DecodeShardExport reads what Encode wrote. It checks the frame (magic,
// version, checksum) and every length; histograms are checked when
// absorbed.
func DecodeShardExport(b []byte) (*ShardExport, error) {
	body, err := OpenFrame(b, shardMagic, shardVersion, "shard export")
	if err != nil {
		return nil, err
	}
	r := &wireReader{b: body, at: "header"}
	e := &ShardExport{}
	e.Shard = r.int()
	e.Run = r.u64()
	e.window = Window{Start: r.varint(), End: r.varint()}
	if r.bool() {
		e.clientClock = &ClientClock{OffsetNs: r.varint(), BoundNs: r.varint()}
	}
	r.at = "series"
	e.seriesStart = r.varint()
	n := r.uvarint()
	if r.err == nil && (n < 1 || n > maxSeriesSeconds) {
		r.fail("%d seconds, want 1 to %d", n, maxSeriesSeconds)
	}
	if r.err == nil && n*uint64(numCounters) > uint64(len(r.b)) {
		r.fail("%d seconds exceed the %d bytes left", n, len(r.b))
	}
	if r.err == nil {
		e.counters = make([]int64, int(n)*int(numCounters))
		for i := range e.counters {
			e.counters[i] = r.varint()
		}
	}
	e.gauges = makeN[gaugeReading](r.count(10))
	for i := range e.gauges {
		g := gaugeReading{bucket: int(r.uvarint()), gauge: Gauge(r.uvarint()), bits: r.u64()}
		if r.err == nil && (uint64(g.bucket) >= n || g.gauge < 0 || g.gauge >= numGauges) {
			r.fail("gauge reading (second %d, gauge %d) outside %d seconds × %d gauges", g.bucket, g.gauge, n, numGauges)
		}
		e.gauges[i] = g
	}
	r.at = "ledger"
	l := &e.ledger
	np := r.count(2)
	for range np {
		c := r.uvarint()
		if r.err != nil {
			break
		}
		if c > 1<<40 {
			r.fail("producer capacity %d", c)
			break
		}
		l.capacity = append(l.capacity, c)
		l.bits = append(l.bits, r.runs(4*((c+63)/64)))
	}
	l.repeats = makeN[repeatExport](r.count(3))
	for i := range l.repeats {
		l.repeats[i] = repeatExport{producer: uint32(min(r.uvarint(), math.MaxUint32)), seq: r.uvarint(), extra: r.varint()}
		if rp := l.repeats[i]; r.err == nil && (int(rp.producer) >= len(l.capacity) || rp.seq >= l.capacity[rp.producer] || rp.extra < 1) {
			r.fail("repeat completion (producer %d, seq %d, %d extra) outside the ledger", rp.producer, rp.seq, rp.extra)
		}
	}
	l.foreign = r.varint()
	l.producedAcks = r.varint()
	l.elsewhereHits = r.varint()
	if r.err == nil && l.elsewhereHits < 0 {
		r.fail("%d deliveries seen elsewhere, want ≥ 0", l.elsewhereHits)
	}
	r.at = "producers"
	e.producers = makeN[producerExport](r.count(6))
	for i := range e.producers {
		p := &e.producers[i]
		r.snapshotPart(fieldsOf[int64](&p.counts), p.hists[:])
	}
	r.at = "members"
	e.members = makeN[memberExport](r.count(40))
	for i := range e.members {
		m := &e.members[i]
		r.snapshotPart(fieldsOf[int64](&m.counts), m.hists[:])
		m.firstDlv, m.lastFin, m.id, m.joined, m.left = r.varint(), r.varint(), r.int(), r.varint(), r.varint()
		m.held, m.lastDlv, m.idleNs, m.idleStart = r.varint(), r.varint(), r.varint(), r.varint()
		m.crashed = r.bool()
	}
	partition := func() int32 {
		part := r.varint()
		if r.err == nil && (part < math.MinInt32 || part > math.MaxInt32) {
			r.fail("partition %d", part)
		}
		return int32(part)
	}
	for k, ps := range []*[]RebalancePause{&e.pauses, &e.openPauses} {
		r.at = []string{"pauses", "open pauses"}[k]
		*ps = makeN[RebalancePause](r.count(4))
		for i := range *ps {
			p := RebalancePause{Member: r.int()}
			p.Partition = partition()
			p.StartNs, p.EndNs = r.varint(), r.varint()
			(*ps)[i] = p
		}
	}
	r.at = "assignments"
	e.assignments = makeN[PartitionAssigned](r.count(2))
	for i := range e.assignments {
		e.assignments[i] = PartitionAssigned{Partition: partition(), AtNs: r.varint()}
	}
	for k := range e.intervals {
		r.at = []string{"completion intervals", "publish intervals"}[k]
		e.intervals[k] = makeN[intervalExport](r.count(2))
		for i := range e.intervals[k] {
			iv := &e.intervals[k][i]
			iv.start = r.varint()
			iv.buckets = makeN[bucketCount](r.count(2))
			var prev, total int64
			for j := range iv.buckets {
				d, c := r.uvarint(), r.uvarint()
				if r.err == nil && (d < 1 || d > uint64(histHighestUS-prev) || c < 1 || c > uint64(math.MaxInt64-total)) {
					r.fail("interval at %d ns: bucket %d (value +%d, count %d): want increasing values up to %d and counts ≥ 1 summing within int64", iv.start, j, d, c, histHighestUS)
				}
				prev += int64(d)
				total += int64(c)
				iv.buckets[j] = bucketCount{prev, int64(c)}
			}
		}
	}
	for k := range e.order {
		r.at = []string{"key order", "partition order"}[k]
		t := &e.order[k]
		t.checked, t.viol, t.maxRecs, t.maxNs = r.varint(), r.varint(), r.varint(), r.varint()
		t.fronts = makeN[frontExport](r.count(4))
		for i := range t.fronts {
			t.fronts[i] = frontExport{id: r.uvarint(), pos: r.uvarint(), intended: r.varint(), affected: r.bool()}
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("shard export: %d bytes left after the last field", len(r.b))
	}
	return e, nil
}

// OffsetSample is one clock-offset ping: the agent's clock when it sent the
// ping and when the reply arrived, and the coordinator's clock when it
// answered.
type OffsetSample struct{ SendNs, RemoteNs, RecvNs int64 }

// EstimateOffset returns the offset to add to the local clock to read the
// remote one, from the sample with the smallest round trip, and its
// uncertainty (docs/measurement.md#sharded-runs-how-shard-results-merge).
// The remote clock was read somewhere between SendNs and RecvNs, so the
// estimate takes the midpoint: offset = RemoteNs − (SendNs+RecvNs)/2, and
// the true offset lies within ±⌈RTT/2⌉ of it (RTT = RecvNs − SendNs) however
// the round trip split between the two directions. It fails on no samples
// or on a sample whose reply arrived before its send.
func EstimateOffset(samples []OffsetSample) (offsetNs, uncertaintyNs int64, err error) {
	if len(samples) == 0 {
		return 0, 0, errors.New("results: clock offset: no ping samples")
	}
	best := -1
	for i, s := range samples {
		rtt := s.RecvNs - s.SendNs
		if rtt < 0 {
			return 0, 0, fmt.Errorf("results: clock offset: sample %d has a negative round trip (send %d ns, receive %d ns); want receive ≥ send", i, s.SendNs, s.RecvNs)
		}
		if best < 0 || rtt < samples[best].RecvNs-samples[best].SendNs {
			best = i
		}
	}
	s := samples[best]
	rtt := s.RecvNs - s.SendNs
	// Send + ⌊rtt/2⌋ is the midpoint without overflowing Send+Recv; the
	// remote reading is at most ⌈rtt/2⌉ from it.
	return s.RemoteNs - (s.SendNs + rtt/2), (rtt + 1) / 2, nil
}

// NewClockOffset starts a clock that reads the local wall time plus
// offsetNs: an agent's clock corrected to its coordinator's. Like NewClock
// it advances on the monotonic clock only; the offset shifts its epoch.
func NewClockOffset(offsetNs int64) *Clock {
	c := NewClock()
	c.epochUnix += offsetNs
	return c
}
