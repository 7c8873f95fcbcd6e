package results

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// absorbedState is what a coordinator's recorder holds from absorbed shard
// exports beyond what its producer and member recorders hold
// (docs/explanation/measurement.md#sharded-runs-how-shard-results-merge).
type absorbedState struct {
	shards map[int]bool
	// Snapshot holds the absorbed shards' histograms, merged as they
	// arrive (Merge reads only their union, so the coordinator keeps one
	// set rather than one per absorbed shard), and the counts no shard's
	// own ledger could see: Duplicates, completions of a record already
	// completed on another shard; Redelivered, deliveries (consumer group)
	// of a record already delivered on another shard. Its other counters
	// stay 0: each shard's are in its recorders.
	Snapshot
	// orderSources counts the absorbed exports that checked order.
	orderSources int
	// openPauses are the absorbed shards' rebalance pauses that no
	// assignment on their own shard ended (sortedPauses ends them at an
	// assignment on another).
	openPauses []RebalancePause
}

// decodeHist decodes an exported histogram into its sparse form and checks
// its geometry.
func decodeHist(b []byte, g histGeometry, what string) (*hdrhistogram.PackedHistogram, error) {
	p, err := hdrhistogram.DecodePacked(b)
	if err != nil {
		return nil, fmt.Errorf("%s histogram: %w", what, err)
	}
	if got := (histGeometry{p.LowestTrackableValue(), p.HighestTrackableValue(), p.SignificantFigures()}); got != g {
		return nil, fmt.Errorf("%s histogram: geometry %+v, want %+v", what, got, g)
	}
	return p, nil
}

// Absorb merges a shard's export into r (the coordinator's recorder, made
// like a single-process run's: same RunTag, ledger dimensions and series).
// It checks the export first and changes nothing when it fails: the RunTag,
// the ledger's dimensions, the series' start and length and the measurement
// window must match, and each shard index is absorbed once.
func (r *Recorder) Absorb(e *ShardExport) error {
	if e == nil {
		return errors.New("results: absorb: nil shard export")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	fail := func(format string, a ...any) error {
		return fmt.Errorf("results: absorb shard %d: %s", e.Shard, fmt.Sprintf(format, a...))
	}
	if err := e.Check(); err != nil {
		return fmt.Errorf("results: absorb shard %d: %w", e.Shard, err)
	}
	if r.absorbed.shards[e.Shard] {
		return fail("shard %d was absorbed already", e.Shard)
	}
	if e.Run != r.Run {
		return fail("run tag %#x, want the coordinator's %#x", e.Run, r.Run)
	}
	if n := len(e.Counters) / int(numCounters); e.SeriesStart != r.Series.start || n != len(r.Series.buckets) {
		return fail("series of %d s from %d ns, want the coordinator's %d s from %d ns", n, e.SeriesStart, len(r.Series.buckets), r.Series.start)
	}
	l := r.Ledger
	if len(e.Ledger.Capacity) != len(l.producers) {
		return fail("ledger of %d producers, want the coordinator's %d", len(e.Ledger.Capacity), len(l.producers))
	}
	for i, c := range e.Ledger.Capacity {
		if c != l.producers[i].capacity {
			return fail("ledger producer %d holds %d records, want the coordinator's %d", i, c, l.producers[i].capacity)
		}
	}
	if w := r.Window(); e.Window != (Window{}) && w != (Window{}) && e.Window != w {
		return fail("measurement window [%d, %d) ns, want the coordinator's [%d, %d) ns", e.Window.Start, e.Window.End, w.Start, w.End)
	}
	// Decode every histogram before changing anything.
	type decoded struct {
		dst *hdrhistogram.Histogram
		p   *hdrhistogram.PackedHistogram
	}
	if r.absorbed.shards == nil {
		r.absorbed = absorbedState{shards: map[int]bool{}, Snapshot: NewSnapshot()}
	}
	a := &r.absorbed
	var hists []decoded
	// add decodes one recorder's exported histograms into the fields of
	// dst they merge into.
	add := func(enc [][]byte, dst []histField, who string) error {
		for j, f := range dst {
			p, err := decodeHist(enc[j], f.geom, who+" "+f.name)
			if err != nil {
				return fail("%v", err)
			}
			hists = append(hists, decoded{*f.h, p})
		}
		return nil
	}
	for i, p := range e.Producers {
		if err := add(p.Hists[:], histogramsOf(&a.ProducerHistograms), fmt.Sprintf("producer %d", i)); err != nil {
			return err
		}
	}
	for i, m := range e.Members {
		if err := add(m.Hists[:], histogramsOf(&a.MemberHistograms), fmt.Sprintf("member %d", i)); err != nil {
			return err
		}
	}
	for k, log := range []*IntervalLog{r.completionLog, r.publishLog} {
		for _, iv := range e.Intervals[k] {
			if iv.Start < log.start || (iv.Start-log.start)%intervalNs != 0 {
				return fail("%s interval at %d ns is not on the log's one-second grid from %d ns", log.tag, iv.Start, log.start)
			}
		}
	}

	// Everything checked: merge.
	a.shards[e.Shard] = true
	for _, h := range hists {
		h.p.MergeInto(h.dst)
	}
	for k, log := range []*IntervalLog{r.completionLog, r.publishLog} {
		log.absorb(e.Intervals[k])
	}
	r.absorbSeries(e)
	shareDeliveries := false
	for _, s := range r.members {
		for i := range s.DeliveryCounts {
			shareDeliveries = shareDeliveries || s.DeliveryCounts[i].Load() > 0
		}
	}
	for _, m := range e.Members {
		for _, c := range m.Counts.DeliveryCounts {
			shareDeliveries = shareDeliveries || c > 0
		}
	}
	dup, redlv := l.absorb(&e.Ledger, !shareDeliveries)
	a.Duplicates += dup
	// A shard's elsewhere hits are cross-shard redeliveries it counted
	// itself (in its member counters and series); the bitsets find each
	// again here, once all are absorbed, so they are subtracted. The sum
	// may dip below 0 while shards are still to come.
	a.Redelivered += redlv - e.Ledger.ElsewhereHits
	for _, pe := range e.Producers {
		p := &ProducerRecorder{r: r} // no histograms nor log writer: they are in a and the log
		storeCounts(&p.ProducerCounts, &pe.Counts)
		r.producers = append(r.producers, p)
	}
	for _, me := range e.Members {
		s := &MemberRecorder{r: r}
		storeCounts(&s.MemberCounts, &me.Counts)
		s.firstDelivery.Store(me.FirstDlv)
		s.lastFinish.Store(me.LastFin)
		s.life.ID = me.ID
		s.life.joined.Store(me.Joined)
		s.life.left.Store(me.Left)
		s.life.crashed.Store(me.Crashed)
		s.life.held.Store(me.Held)
		s.life.lastDelivery.Store(me.LastDlv)
		s.life.idleNs.Store(me.IdleNs)
		s.life.idleStart.Store(me.IdleStart)
		r.members = append(r.members, s)
	}
	r.pauses = append(r.pauses, e.Pauses...)
	a.openPauses = append(a.openPauses, e.OpenPauses...)
	r.assignments = append(r.assignments, e.Assignments...)
	if e.Order[0].Checked > 0 || e.Order[1].Checked > 0 {
		a.orderSources++
	}
	r.order.keys.absorb(e.Order[0])
	r.order.parts.absorb(e.Order[1])
	if e.ClientClock != nil {
		if c, ok := r.ClientClock(); !ok || e.ClientClock.BoundNs > c.BoundNs {
			r.SetClientClock(*e.ClientClock)
		}
	}
	if r.Window() == (Window{}) {
		r.SetWindow(e.Window)
	}
	return nil
}

// absorbSeries adds an export's series: counters summed per second; of the
// gauges, the harness's CPU and memory summed (every process of the run is
// the harness), the group's lag and the brokers' readings kept from the
// coordinator, or from the first shard that has one for a second the
// coordinator lacks (every process reads the same group and brokers).
func (r *Recorder) absorbSeries(e *ShardExport) {
	s := r.Series
	for i := range s.buckets {
		for c := range numCounters {
			if v := e.Counters[i*int(numCounters)+int(c)]; v != 0 {
				s.buckets[i][c].Add(v)
			}
		}
	}
	for _, g := range e.Gauges {
		v := math.Float64frombits(g.Bits)
		cur, ok := s.GaugeAt(g.Gauge, g.Bucket)
		switch {
		case g.Gauge == HarnessCPUPercent || g.Gauge == HarnessRSSBytes:
			if ok {
				v += cur
			}
		case ok:
			continue
		}
		s.SetGaugeAt(g.Gauge, g.Bucket, v)
	}
}

// absorb ORs an export's bitsets into the ledger and adds its counts. A
// record completed here already and in the export is a repeat completion,
// counted as Completed counts one (repeats +1 per such record); with
// redeliveries set, a record delivered here already and in the export is
// counted as delivered again (a consumer group's redelivery across shards).
// It returns both counts.
func (l *Ledger) absorb(e *LedgerExport, redeliveries bool) (duplicates, redelivered int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for pi := range l.producers {
		s := &l.producers[pi]
		n := uint64(len(s.produced))
		tail := ^uint64(0) // the last word's bits within the capacity
		if r := s.capacity % 64; r != 0 {
			tail = 1<<r - 1
		}
		for _, run := range e.Bits[pi] {
			for j, v := range run.Words {
				idx := run.At + uint64(j)
				w := idx % n
				if w == n-1 {
					v &= tail
				}
				switch idx / n {
				case 0:
					s.produced[w].Or(v)
				case 1:
					if redeliveries {
						redelivered += int64(bits.OnesCount64(s.delivered[w].Load() & v))
					}
					s.delivered[w].Or(v)
				case 2:
					both := s.completed[w].Load() & v
					for both != 0 {
						b := bits.TrailingZeros64(both)
						both &= both - 1
						l.repeats[recordID{uint32(pi), w*64 + uint64(b)}]++
						duplicates++
					}
					s.completed[w].Or(v)
				case 3:
					s.archived[w].Or(v)
				}
			}
		}
	}
	for _, rp := range e.Repeats {
		l.repeats[recordID{rp.Producer, rp.Seq}] += int(rp.Extra)
	}
	l.foreign.Add(e.Foreign)
	l.producedAcks.Add(e.ProducedAcks)
	return duplicates, redelivered
}

// absorb merges an exported table: figures added (maxima kept), fronts
// united (the furthest position wins; affected if affected anywhere).
func (t *orderTable) absorb(e OrderTableExport) {
	s0 := &t.stripes[0]
	s0.mu.Lock()
	s0.checked += e.Checked
	s0.viol += e.Viol
	s0.maxRecs = max(s0.maxRecs, e.MaxRecs)
	s0.maxNs = max(s0.maxNs, e.MaxNs)
	s0.mu.Unlock()
	for _, fe := range e.Fronts {
		s := t.stripe(fe.ID)
		s.mu.Lock()
		if s.fronts == nil {
			s.fronts = map[uint64]*orderFront{}
		}
		f := s.fronts[fe.ID]
		switch {
		case f == nil:
			s.fronts[fe.ID] = &orderFront{pos: fe.Pos, intended: fe.Intended, affected: fe.Affected}
		default:
			if fe.Pos > f.pos {
				f.pos, f.intended = fe.Pos, fe.Intended
			}
			f.affected = f.affected || fe.Affected
		}
		s.mu.Unlock()
	}
}
