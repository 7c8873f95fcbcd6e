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
	// leaves it 0 and the agent sets it before it sends the export.
	// Absorb refuses a second export with the same index.
	Shard int
	// Run is the recorder's RunTag.
	Run uint64

	Window      Window
	ClientClock *ClientClock
	SeriesStart int64
	Counters    []int64 // seconds × numCounters, second-major
	Gauges      []GaugeReading
	Ledger      LedgerExport
	Producers   []ProducerExport
	Members     []MemberExport
	Pauses      []RebalancePause
	// OpenPauses are the pauses still open at the export (their partition
	// was not assigned again on this shard) and Assignments every
	// partition assignment on it: the coordinator ends an open pause at
	// an assignment on another shard.
	OpenPauses  []RebalancePause
	Assignments []PartitionAssigned
	Intervals   [2][]IntervalExport // completion.hlog, publish.hlog
	Order       [2]OrderTableExport // keys, partitions
}

// GaugeReading is one gauge's reading (its float64 bits) at one second.
type GaugeReading struct {
	Bucket int
	Gauge  Gauge
	Bits   uint64
}

// LedgerExport is the ledger's bitsets and counts.
type LedgerExport struct {
	Capacity []uint64 // per producer
	// Bits are per producer the non-zero words of its produced,
	// delivered, completed and archived bitsets, indexed as if the four
	// were concatenated (n words each, n = ⌈capacity/64⌉).
	Bits         [][]WordRun
	Repeats      []RepeatExport
	Foreign      int64
	ProducedAcks int64
	// ElsewhereHits are the shard's deliveries reported as redeliveries
	// only because another shard delivered the record (the delivery
	// exchange): the merge, which finds those from the bitsets too,
	// subtracts them.
	ElsewhereHits int64
}

// WordRun is a run of words starting at word At.
type WordRun struct {
	At    uint64
	Words []uint64 `wire:"fixed64"` // 8 bytes each on the wire: bitset words are mostly ones
}

// RepeatExport is a record completed Extra times more than once.
type RepeatExport struct {
	Producer uint32
	Seq      uint64
	Extra    int64
}

// producerHistograms and memberHistograms count the histogram types'
// fields (every field is a pointer), so an export is a value that copies.
const (
	producerHistograms = unsafe.Sizeof(ProducerHistograms{}) / unsafe.Sizeof(&hdrhistogram.Histogram{})
	memberHistograms   = unsafe.Sizeof(MemberHistograms{}) / unsafe.Sizeof(&hdrhistogram.Histogram{})
)

// ProducerExport and MemberExport are one producer's and one member's
// part of the Snapshot, histograms in HdrHistogram's V2 compressed encoding
// in their type's field order (histogramsOf).
type ProducerExport struct {
	Counts ProducerCounts[int64]
	Hists  [producerHistograms][]byte
}

// MemberExport: see ProducerExport; the rest is the member's lifetime.
type MemberExport struct {
	Counts    MemberCounts[int64]
	Hists     [memberHistograms][]byte
	FirstDlv  int64
	LastFin   int64
	ID        int
	Joined    int64
	Left      int64
	Crashed   bool
	Held      int64
	LastDlv   int64
	IdleNs    int64
	IdleStart int64
}

// IntervalExport is one interval of an interval log: its start and its
// histogram's populated buckets. Intervals travel as bucket lists rather
// than V2-encoded histograms: a coordinator absorbs hundreds per shard, and
// adding sorted lists costs a fraction of inflating each histogram.
type IntervalExport struct {
	Start   int64
	Buckets []BucketCount
}

// OrderTableExport is an order table's figures and fronts.
type OrderTableExport struct {
	Checked, Viol, MaxRecs, MaxNs int64
	Fronts                        []FrontExport
}

// FrontExport is one stream's order front.
type FrontExport struct {
	ID, Pos  uint64
	Intended int64
	Affected bool
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
	e := &ShardExport{Run: r.Run, Window: r.Window(), SeriesStart: r.Series.start, Pauses: slices.Clone(r.pauses),
		OpenPauses: r.stillOpen(), Assignments: slices.Clone(r.assignments)}
	if c, ok := r.ClientClock(); ok {
		e.ClientClock = &c
	}
	// Series.
	e.Counters = make([]int64, len(r.Series.buckets)*int(numCounters))
	for i := range r.Series.buckets {
		for c := range numCounters {
			e.Counters[i*int(numCounters)+int(c)] = r.Series.buckets[i][c].Load()
		}
		for g := range numGauges {
			if b := r.Series.gauges[i][g].Load(); !math.IsNaN(math.Float64frombits(b)) {
				e.Gauges = append(e.Gauges, GaugeReading{Bucket: i, Gauge: g, Bits: b})
			}
		}
	}
	e.Ledger = r.Ledger.export()
	// Producers' and members' recorders.
	var publishPieces, completionPieces []*intervalPiece
	for _, p := range r.producers {
		p.mu.Lock()
		publishPieces = append(publishPieces, p.publishLog.piece())
		var pe ProducerExport
		err := encodeHists(pe.Hists[:], histogramsOf(&p.h))
		p.mu.Unlock()
		if err != nil {
			return nil, err
		}
		loadCounts(&pe.Counts, &p.ProducerCounts)
		e.Producers = append(e.Producers, pe)
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
		me := MemberExport{FirstDlv: s.firstDelivery.Load(), LastFin: s.lastFinish.Load(), ID: s.life.ID,
			Joined: s.life.joined.Load(), Left: s.life.left.Load(), Crashed: s.life.crashed.Load(), Held: s.life.held.Load(),
			LastDlv: s.life.lastDelivery.Load(), IdleNs: s.life.idleNs.Load(), IdleStart: s.life.idleStart.Load()}
		me.Hists = empty
		if s.owner {
			st := s.stripe
			st.mu.Lock()
			completionPieces = append(completionPieces, st.completionLog.piece())
			err := encodeHists(me.Hists[:], histogramsOf(&st.h))
			st.mu.Unlock()
			if err != nil {
				return nil, err
			}
		}
		loadCounts(&me.Counts, &s.MemberCounts)
		e.Members = append(e.Members, me)
	}
	var err error
	if e.Intervals[0], err = r.completionLog.export(completionPieces); err != nil {
		return nil, err
	}
	if e.Intervals[1], err = r.publishLog.export(publishPieces); err != nil {
		return nil, err
	}
	e.Order[0] = r.order.keys.export()
	e.Order[1] = r.order.parts.export()
	return e, nil
}

// export copies the ledger's bitsets and counts.
func (l *Ledger) export() LedgerExport {
	e := LedgerExport{Foreign: l.foreign.Load(), ProducedAcks: l.producedAcks.Load(), ElsewhereHits: l.elsewhereHits.Load()}
	for i := range l.producers {
		s := &l.producers[i]
		e.Capacity = append(e.Capacity, s.capacity)
		var rs []WordRun
		n := len(s.produced)
		for k, b := range []bitset{s.produced, s.delivered, s.completed, s.archived} {
			for w := range b {
				v := b[w].Load()
				if v == 0 {
					continue
				}
				at := uint64(k*n + w)
				if last := len(rs) - 1; last >= 0 && rs[last].At+uint64(len(rs[last].Words)) == at {
					rs[last].Words = append(rs[last].Words, v)
				} else {
					rs = append(rs, WordRun{At: at, Words: []uint64{v}})
				}
			}
		}
		e.Bits = append(e.Bits, rs)
	}
	l.mu.Lock()
	for id, n := range l.repeats {
		e.Repeats = append(e.Repeats, RepeatExport{id.producer, id.seq, int64(n)})
	}
	l.mu.Unlock()
	slices.SortFunc(e.Repeats, func(a, b RepeatExport) int {
		return cmp.Or(cmp.Compare(a.Producer, b.Producer), cmp.Compare(a.Seq, b.Seq))
	})
	return e
}

// export copies the table's fronts and figures, fronts sorted by stream id.
func (t *orderTable) export() OrderTableExport {
	var e OrderTableExport
	for i := range t.stripes {
		s := &t.stripes[i]
		s.mu.Lock()
		e.Checked += s.checked
		e.Viol += s.viol
		e.MaxRecs = max(e.MaxRecs, s.maxRecs)
		e.MaxNs = max(e.MaxNs, s.maxNs)
		for id, f := range s.fronts {
			e.Fronts = append(e.Fronts, FrontExport{ID: id, Pos: f.pos, Intended: f.intended, Affected: f.affected})
		}
		s.mu.Unlock()
	}
	slices.SortFunc(e.Fronts, func(a, b FrontExport) int { return cmp.Compare(a.ID, b.ID) })
	return e
}

// Seconds is the length of the export's series.
func (e *ShardExport) Seconds() int { return len(e.Counters) / int(numCounters) }

// maxSeriesSeconds bounds an export's series (a week of one-second buckets).
const maxSeriesSeconds = 7 * 24 * 3600

// Check refuses an export whose parts do not fit together: its series,
// gauges, ledger runs and repeats, and interval buckets must lie within
// their bounds (histograms are checked when absorbed). The codec that
// carries an export (campaign/shard) checks the bytes; Check and Absorb
// check what they say, so a corrupt or hostile export fails with an error
// naming the part before it is merged.
func (e *ShardExport) Check() error {
	fail := func(part, format string, a ...any) error {
		return fmt.Errorf("shard export: %s: %s", part, fmt.Sprintf(format, a...))
	}
	if e.Shard < 0 || e.Shard > math.MaxInt32 {
		return fail("header", "shard index %d, want 0 to %d", e.Shard, math.MaxInt32)
	}
	n := len(e.Counters) / int(numCounters)
	if len(e.Counters)%int(numCounters) != 0 || n < 1 || n > maxSeriesSeconds {
		return fail("series", "%d counters, want 1 to %d seconds × %d counters", len(e.Counters), maxSeriesSeconds, numCounters)
	}
	for _, g := range e.Gauges {
		if g.Bucket < 0 || g.Bucket >= n || g.Gauge < 0 || g.Gauge >= numGauges {
			return fail("series", "gauge reading (second %d, gauge %d) outside %d seconds × %d gauges", g.Bucket, g.Gauge, n, numGauges)
		}
	}
	l := &e.Ledger
	if len(l.Bits) != len(l.Capacity) {
		return fail("ledger", "%d producers' bitsets for %d producers", len(l.Bits), len(l.Capacity))
	}
	for p, c := range l.Capacity {
		if c > 1<<40 {
			return fail("ledger", "producer %d capacity %d, want ≤ 2^40", p, c)
		}
		total := 4 * ((c + 63) / 64)
		var end uint64
		for _, r := range l.Bits[p] {
			if len(r.Words) == 0 || r.At < end || r.At >= total || uint64(len(r.Words)) > total-r.At {
				return fail("ledger", "producer %d: run of %d words at word %d: want non-empty runs in order within the ledger's %d words", p, len(r.Words), r.At, total)
			}
			end = r.At + uint64(len(r.Words))
		}
	}
	for _, rp := range l.Repeats {
		if int(rp.Producer) >= len(l.Capacity) || rp.Seq >= l.Capacity[rp.Producer] || rp.Extra < 1 {
			return fail("ledger", "repeat completion (producer %d, seq %d, %d extra) outside the ledger", rp.Producer, rp.Seq, rp.Extra)
		}
	}
	if l.ElsewhereHits < 0 {
		return fail("ledger", "%d deliveries seen elsewhere, want ≥ 0", l.ElsewhereHits)
	}
	for k, ivs := range e.Intervals {
		for _, iv := range ivs {
			var prev, total int64
			for j, b := range iv.Buckets {
				if b.Value <= prev || b.Value > histHighestUS || b.Count < 1 || b.Count > math.MaxInt64-total {
					return fail([]string{"completion intervals", "publish intervals"}[k],
						"interval at %d ns: bucket %d (value %d, count %d): want increasing values from 1 to %d and counts ≥ 1 summing within int64",
						iv.Start, j, b.Value, b.Count, histHighestUS)
				}
				prev, total = b.Value, total+b.Count
			}
		}
	}
	return nil
}

// OffsetSample is one clock-offset ping: the agent's clock when it sent the
// ping and when the reply arrived, and the coordinator's clock when it
// answered.
type OffsetSample struct{ SendNs, RemoteNs, RecvNs int64 }

// EstimateOffset returns the offset to add to the local clock to read the
// remote one, from the sample with the smallest round trip, and its
// uncertainty (docs/explanation/measurement.md#sharded-runs-how-shard-results-merge).
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
