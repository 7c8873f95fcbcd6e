package results

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The sharded-run workload: 6 producers (0..5, two per shard) and 5 members
// (0,1 on shard 0; 2 on shard 1; 3,4 on shard 2), every record consumed by
// member (7p+seq) mod 5, so records produced on shard 0 are completed on
// shards 1 and 2 too. Record (1,5) is completed on shard 1 and again on
// shard 2; (2,7) is released on shard 0 and completed on shard 2; (4,39) is
// delivered and never completed; (5,38) is never delivered; (3,9) is
// rejected. The same events go to one recorder and to three.

const (
	swRun       = uint64(0xfeed)
	swStart     = int64(1_700_000_000_000_000_000)
	swSeconds   = 30
	swProducers = 6
	swPerProd   = 40
)

var swMemberShard = []int{0, 0, 1, 2, 2}

type swWorld struct {
	prod []*ProducerRecorder
	mem  []*MemberRecorder
	rec  func(shard int) *Recorder
	// single: one recorder stands for every shard's process.
	single bool
	// relay, when set, runs after every delivery: the delivery exchange
	// between the agents, at its finest.
	relay func()
}

func (w *swWorld) delivered() {
	if w.relay != nil {
		w.relay()
	}
}

func swRecorder() *Recorder {
	return NewRecorder(NewClock(), swRun, NewLedger(swProducers, swPerProd), NewSeries(swStart, swSeconds))
}

var swWindow = Window{Start: swStart + 2e9, End: swStart + 25e9}

// swSingle is the workload's recorder of a single-process run.
func swSingle() *swWorld {
	r := swRecorder()
	r.SetWindow(swWindow)
	w := &swWorld{rec: func(int) *Recorder { return r }, single: true}
	for range swProducers {
		w.prod = append(w.prod, r.ProducerRecorder())
	}
	for range swMemberShard {
		w.mem = append(w.mem, r.MemberRecorder())
	}
	return w
}

// swSharded is the workload's three agent recorders.
func swSharded() (*swWorld, []*Recorder) {
	recs := []*Recorder{swRecorder(), swRecorder(), swRecorder()}
	w := &swWorld{rec: func(s int) *Recorder { return recs[s] }}
	for _, r := range recs {
		r.SetWindow(swWindow)
	}
	for p := range swProducers {
		w.prod = append(w.prod, recs[p/2].ProducerRecorder())
	}
	for _, s := range swMemberShard {
		w.mem = append(w.mem, recs[s].MemberRecorder())
	}
	return w, recs
}

// run plays the workload; share: deliveries carry the broker's delivery
// count (share group), else 0 (consumer group).
func (w *swWorld) run(share bool) {
	dc := func(n int32) int32 {
		if share {
			return n
		}
		return 0
	}
	for m, s := range w.mem {
		s.Joined(m, swStart+1e9+int64(m)*ms)
	}
	w.rec(0).RecordPause(RebalancePause{Member: 0, Partition: 1, StartNs: swStart + 5e9, EndNs: swStart + 6e9})
	w.rec(2).RecordPause(RebalancePause{Member: 3, Partition: 0, StartNs: swStart + 4e9, EndNs: swStart + 4e9 + 500*ms})
	// A partition held by member 4 (shard 2) when it crashed, assigned
	// again to member 0 (shard 0) 6 s later: one process ends the pause at
	// once, a sharded run's coordinator at the merge. Partition 2's pause
	// never ends (never assigned again) and is no pause in either.
	w.rec(2).OpenPause(RebalancePause{Member: 4, Partition: 1, StartNs: swStart + 7e9})
	w.rec(2).OpenPause(RebalancePause{Member: 4, Partition: 2, StartNs: swStart + 7e9})
	w.rec(0).PartitionAssigned(3, swStart+8e9)
	w.rec(0).PartitionAssigned(1, swStart+13e9)
	w.rec(1).PartitionAssigned(1, swStart+14e9)
	w.rec(1).SetClientClock(ClientClock{OffsetNs: 12345, BoundNs: 678})
	w.rec(1).Series.SetGauge(Lag, swStart+3e9, 100)
	// The harness's CPU is per process: the shards' readings add up.
	if w.single {
		w.rec(0).Series.SetGauge(HarnessCPUPercent, swStart+3e9, 15)
	} else {
		w.rec(0).Series.SetGauge(HarnessCPUPercent, swStart+3e9, 10)
		w.rec(2).Series.SetGauge(HarnessCPUPercent, swStart+3e9, 5)
	}
	var offsets [2]int64
	for seq := range uint64(swPerProd) {
		for p := range uint32(swProducers) {
			intended := swStart + int64(seq)*500*ms + int64(p)*ms
			st := Stamp{Run: swRun, Producer: p, Seq: seq, Intended: intended, Sent: intended + int64(seq%5)*100_000}
			ack := st.Sent + 2*ms + int64(p)*10_000
			w.prod[p].Sent.Add(1)
			w.prod[p].RecordAck(st, ack)
			if p == 5 && seq == 38 {
				continue // lost
			}
			m := (int(p)*7 + int(seq)) % 5
			dlv := ack + ms + int64(m)*100_000
			w.mem[m].RecordPoll(1, 0)
			w.mem[m].RecordDelivery(st, dc(1), ack, dlv)
			w.delivered()
			switch {
			case p == 4 && seq == 39: // in flight at the end
				continue
			case p == 3 && seq == 9:
				w.mem[m].RecordReject(st, dlv+ms)
				continue
			case p == 2 && seq == 7: // released on shard 0, completed on shard 2
				w.mem[m].RecordRelease(st, dlv+ms, false)
				m = 3
				dlv += 3 * ms
				w.mem[m].RecordPoll(1, 0)
				w.mem[m].RecordDelivery(st, dc(2), ack, dlv)
				w.delivered()
			}
			done := dlv + 2*ms + int64(seq%3)*ms
			w.mem[m].RecordCompletion(st, dlv, done, seq%13 == 0)
			part := int32(p % 2)
			w.mem[m].RecordProcessed(st, OrderPoint{Keyed: true, Key: seq % 3, KeySeq: seq / 3, Partition: part, Offset: offsets[part]})
			offsets[part]++
			if p == 1 && seq == 5 { // completed again on shard 2 (member 4)
				w.mem[4].RecordPoll(1, 0)
				w.mem[4].RecordDelivery(st, dc(2), ack, done+ms)
				w.delivered()
				w.mem[4].RecordCompletion(st, done+ms, done+3*ms, false)
			}
		}
		if seq%10 == 0 {
			w.mem[seq/10%5].RecordPoll(0, 0)
		}
	}
	// A violation within shard 0: partition 7, offset 10 then 5.
	st := Stamp{Run: swRun, Producer: 0, Seq: 0, Intended: swStart}
	w.mem[1].RecordProcessed(st, OrderPoint{Partition: 7, Offset: 10})
	w.mem[1].RecordProcessed(st, OrderPoint{Partition: 7, Offset: 5})
	w.prod[3].RecordFailure()
	w.rec(1).Ledger.Foreign() // another run's record, seen on shard 1
	w.mem[0].AckErrors.Add(1)
	w.mem[3].Renewals.Add(2)
	w.mem[4].PollErrors.Add(1)
	w.mem[3].Crashed(swStart + 20e9)
	w.mem[1].Left(swStart + 25e9)
}

// absorbAll exports every agent recorder, round-trips the exports through
// Encode/Decode and absorbs them into a fresh coordinator recorder.
func absorbAll(t *testing.T, recs []*Recorder) *Recorder {
	t.Helper()
	coord := swRecorder()
	for i, r := range recs {
		e, err := r.Export()
		if err != nil {
			t.Fatal(err)
		}
		e.Shard = i
		b, err := encodeExport(e)
		if err != nil {
			t.Fatal(err)
		}
		d, err := decodeExport(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := coord.Absorb(d); err != nil {
			t.Fatal(err)
		}
	}
	return coord
}

func seriesCSV(t *testing.T, s *Series) string {
	t.Helper()
	var b strings.Builder
	if err := s.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestAbsorbEqualsSingleRecorder: the three exports absorbed give the same
// Merge, Audit, Counts, Span and series as one recorder that saw every
// event.
func TestAbsorbEqualsSingleRecorder(t *testing.T) {
	for _, share := range []bool{true, false} {
		t.Run(map[bool]string{true: "share", false: "consumer"}[share], func(t *testing.T) {
			single := swSingle()
			single.run(share)
			sharded, recs := swSharded()
			sharded.run(share)
			coord := absorbAll(t, recs)
			want, got := single.rec(0).Merge(), coord.Merge()

			if wp := (RebalancePause{Member: 4, Partition: 1, StartNs: swStart + 7e9, EndNs: swStart + 13e9}); len(want.Pauses) != 3 || want.Pauses[2] != wp {
				t.Errorf("single pauses %+v: want three, the last %+v", want.Pauses, wp)
			}
			if want.Duplicates != 1 || want.Completed < 200 || want.Redelivered < 1 {
				t.Fatalf("workload: duplicates %d completed %d redelivered %d; want 1, ≥ 200, ≥ 1", want.Duplicates, want.Completed, want.Redelivered)
			}
			for _, h := range []struct {
				name string
				of   func(Merged) *hdrhistogram.Histogram
			}{
				{"publish", func(m Merged) *hdrhistogram.Histogram { return m.Publish }},
				{"schedule lag", func(m Merged) *hdrhistogram.Histogram { return m.ScheduleLag }},
				{"delivery", func(m Merged) *hdrhistogram.Histogram { return m.Delivery }},
				{"completion", func(m Merged) *hdrhistogram.Histogram { return m.Completion }},
				{"queue", func(m Merged) *hdrhistogram.Histogram { return m.Queue }},
				{"hold", func(m Merged) *hdrhistogram.Histogram { return m.Hold }},
				{"poll size", func(m Merged) *hdrhistogram.Histogram { return m.PollSize }},
			} {
				if !h.of(want).Equals(h.of(got)) {
					t.Errorf("%s histogram: sharded and single differ in their counts", h.name)
				}
				if w, g := SummarizeMillis(h.of(want)), SummarizeMillis(h.of(got)); w != g || w.Count == 0 {
					t.Errorf("%s histogram: sharded %+v, single %+v (want equal, non-empty)", h.name, g, w)
				}
			}
			for name, wb := range want.IntervalLogs {
				if gb := got.IntervalLogs[name]; !bytes.Equal(wb, gb) {
					t.Errorf("%s: sharded\n%s\nsingle\n%s", name, gb, wb)
				}
			}
			if want.IntervalLogErr != nil || got.IntervalLogErr != nil || len(got.IntervalLogs) != 2 {
				t.Errorf("interval logs: %v / %v, %d logs", want.IntervalLogErr, got.IntervalLogErr, len(got.IntervalLogs))
			}
			if got.Order == nil || !got.Order.PerShard {
				t.Errorf("order audit %+v: want per_shard", got.Order)
			} else if want.Order.Partition.Violations != 1 {
				t.Errorf("single order audit %+v: want 1 partition violation", want.Order)
			} else {
				w := *want.Order
				w.PerShard = true
				if !reflect.DeepEqual(w, *got.Order) {
					t.Errorf("order: sharded %+v, single %+v", *got.Order, w)
				}
			}
			strip := func(m Merged) Merged {
				m.Publish, m.ScheduleLag, m.Delivery, m.Completion, m.Queue, m.Hold, m.PollSize = nil, nil, nil, nil, nil, nil, nil
				m.IntervalLogs, m.Order = nil, nil
				return m
			}
			if w, g := strip(want), strip(got); !reflect.DeepEqual(w, g) {
				t.Errorf("merged counters:\nsharded %+v\nsingle  %+v", g, w)
			}
			if w, g := single.rec(0).Ledger.Audit(), coord.Ledger.Audit(); w != g || w.Lost != 1 || w.Duplicates != 1 || w.InFlight != 1 || w.Archived != 1 || w.Foreign != 1 {
				t.Errorf("audit: sharded %+v, single %+v (want equal, lost 1, duplicates 1, in flight 1, archived 1, foreign 1)", g, w)
			}
			if w, g := single.rec(0).Counts(), coord.Counts(); w != g {
				t.Errorf("counts: sharded %+v, single %+v", g, w)
			}
			wf, wl, _ := single.rec(0).Span()
			gf, gl, ok := coord.Span()
			if !ok || wf != gf || wl != gl {
				t.Errorf("span: sharded [%d, %d], single [%d, %d]", gf, gl, wf, wl)
			}
			if coord.Window() != swWindow {
				t.Errorf("window %+v, want %+v", coord.Window(), swWindow)
			}
			if c, ok := coord.ClientClock(); !ok || c != (ClientClock{12345, 678}) {
				t.Errorf("client clock %+v %v", c, ok)
			}
			ws, gs := seriesCSV(t, single.rec(0).Series), seriesCSV(t, coord.Series)
			if !share {
				// Without the delivery exchange (TestDeliveryExchange…) a
				// consumer group's redelivery across shards is counted in the
				// totals, not in the series (its second is unknown): records
				// (1,5) and (2,7), seconds 2 and 3.
				single.rec(0).Series.Add(Redelivered, swStart+2e9, -1)
				single.rec(0).Series.Add(Redelivered, swStart+3e9, -1)
				ws = seriesCSV(t, single.rec(0).Series)
			}
			if ws != gs {
				t.Errorf("series: sharded\n%s\nsingle\n%s", gs, ws)
			}
		})
	}
}

// With the delivery exchange (each agent's delivered words relayed to the
// others as they change) a consumer group's redelivery across shards lands
// in the series at its second, as in one process, and the merge does not
// count it twice: series, merged counters and audit equal the single
// recorder's, with no adjustment.
func TestDeliveryExchangeEqualsSingleRecorder(t *testing.T) {
	single := swSingle()
	single.run(false)
	sharded, recs := swSharded()
	cursors := make([]DeliveredCursor, len(recs))
	for _, r := range recs {
		r.Ledger.TrackDeliveredElsewhere()
	}
	sharded.relay = func() {
		for i, r := range recs {
			words := r.Ledger.DeliveredSince(&cursors[i], 1<<20)
			b := EncodeDeliveredWords(words)
			back, err := DecodeDeliveredWords(b)
			if err != nil {
				t.Fatal(err)
			}
			for j, other := range recs {
				if j != i {
					if n := other.Ledger.MarkDeliveredElsewhere(back); n != 0 {
						t.Fatalf("%d words outside the ledger", n)
					}
				}
			}
		}
	}
	sharded.run(false)
	var hits int64
	for _, r := range recs {
		hits += r.Ledger.ElsewhereHits()
	}
	if hits != 2 {
		t.Errorf("%d elsewhere hits, want 2: records (1,5) and (2,7) delivered again on another shard", hits)
	}
	coord := absorbAll(t, recs)
	want, got := single.rec(0).Merge(), coord.Merge()
	if want.Redelivered != got.Redelivered || want.Redelivered < 2 {
		t.Errorf("redelivered: sharded %d, single %d (want equal, ≥ 2)", got.Redelivered, want.Redelivered)
	}
	if w, g := single.rec(0).Ledger.Audit(), coord.Ledger.Audit(); w != g {
		t.Errorf("audit: sharded %+v, single %+v", g, w)
	}
	if ws, gs := seriesCSV(t, single.rec(0).Series), seriesCSV(t, coord.Series); ws != gs {
		t.Errorf("series: sharded\n%s\nsingle\n%s", gs, ws)
	}
}

// DeliveredSince hands out each changed word once, at most max at a time,
// and again when more of its bits are set; words outside a ledger are
// counted, not applied; a ledger that does not track deliveries elsewhere
// reports nothing again because of them.
func TestDeliveredSince(t *testing.T) {
	l := NewLedger(2, 200)
	var c DeliveredCursor
	l.Delivered(0, 3)
	l.Delivered(0, 70)
	l.Delivered(1, 199)
	if got := l.DeliveredSince(&c, 2); len(got) != 2 || got[0] != (DeliveredWord{0, 0, 1 << 3}) || got[1] != (DeliveredWord{0, 1, 1 << 6}) {
		t.Errorf("first call %v", got)
	}
	if got := l.DeliveredSince(&c, 2); len(got) != 1 || got[0] != (DeliveredWord{1, 3, 1 << 7}) {
		t.Errorf("second call %v", got)
	}
	if got := l.DeliveredSince(&c, 2); len(got) != 0 {
		t.Errorf("nothing new, got %v", got)
	}
	l.Delivered(0, 4)
	if got := l.DeliveredSince(&c, 2); len(got) != 1 || got[0] != (DeliveredWord{0, 0, 1<<3 | 1<<4}) {
		t.Errorf("a word with a new bit %v", got)
	}
	other := NewLedger(2, 200)
	if other.MarkDeliveredElsewhere([]DeliveredWord{{0, 0, 1 << 3}}) != 1 || other.Delivered(0, 3) {
		t.Error("a ledger that does not track deliveries elsewhere took a word")
	}
	other.TrackDeliveredElsewhere()
	if n := other.MarkDeliveredElsewhere([]DeliveredWord{{0, 0, 1 << 9}, {2, 0, 1}, {1, 4, 1}}); n != 2 {
		t.Errorf("%d words outside, want 2 (producer 2, word 4 of 200 records)", n)
	}
	if !other.Delivered(0, 9) || other.Delivered(0, 10) || other.ElsewhereHits() != 1 {
		t.Errorf("delivered elsewhere: hits %d, want 1", other.ElsewhereHits())
	}
	if !other.Delivered(0, 9) || other.ElsewhereHits() != 1 {
		t.Error("a second delivery here is again by this ledger's own bit, not another hit")
	}
	if _, err := DecodeDeliveredWords(make([]byte, 17)); err == nil {
		t.Error("17 bytes decoded")
	}
}

// exportsOf runs the consumer-group workload on three agents and returns
// their exports, shards 0..2.
func exportsOf(t *testing.T) []*ShardExport {
	t.Helper()
	w, recs := swSharded()
	w.run(false)
	var out []*ShardExport
	for i, r := range recs {
		e, err := r.Export()
		if err != nil {
			t.Fatal(err)
		}
		e.Shard = i
		out = append(out, e)
	}
	return out
}

func TestShardExportRoundTrip(t *testing.T) {
	for _, e := range exportsOf(t) {
		b, err := encodeExport(e)
		if err != nil {
			t.Fatal(err)
		}
		d, err := decodeExport(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(e, d) {
			t.Errorf("shard %d: decoded export differs from the encoded one", e.Shard)
		}
		if len(e.Members) == 0 || len(e.Intervals[0]) == 0 || len(e.Ledger.Repeats)+int(e.Ledger.ProducedAcks) == 0 {
			t.Errorf("shard %d: export is missing members, intervals or ledger", e.Shard)
		}
		b2, _ := encodeExport(d)
		if !bytes.Equal(b, b2) {
			t.Errorf("shard %d: re-encoding changed the bytes", e.Shard)
		}
	}
}

// TestAbsorbRejects: every mismatch is an error naming both values, and a
// failed Absorb leaves the coordinator as it was.
func TestAbsorbRejects(t *testing.T) {
	ex := exportsOf(t)
	coord := swRecorder()
	if err := coord.Absorb(ex[0]); err != nil {
		t.Fatal(err)
	}
	before := coord.Merge()
	beforeAudit := coord.Ledger.Audit()
	other := func(mut func(*Recorder) *Recorder) *ShardExport {
		w, recs := swSharded()
		w.run(false)
		r := mut(recs[1])
		e, err := r.Export()
		if err != nil {
			t.Fatal(err)
		}
		e.Shard = 1
		return e
	}
	for _, c := range []struct {
		name string
		e    *ShardExport
		want []string
	}{
		{"shard absorbed twice", ex[0], []string{"shard 0 was absorbed already"}},
		{"run tag", other(func(*Recorder) *Recorder {
			return NewRecorder(NewClock(), swRun+1, NewLedger(swProducers, swPerProd), NewSeries(swStart, swSeconds))
		}), []string{"run tag 0xfeee", "0xfeed"}},
		{"ledger producers", other(func(*Recorder) *Recorder {
			return NewRecorder(NewClock(), swRun, NewLedger(swProducers+1, swPerProd), NewSeries(swStart, swSeconds))
		}), []string{"ledger of 7 producers", "coordinator's 6"}},
		{"ledger capacity", other(func(*Recorder) *Recorder {
			return NewRecorder(NewClock(), swRun, NewLedger(swProducers, swPerProd+64), NewSeries(swStart, swSeconds))
		}), []string{"holds 104 records", "coordinator's 40"}},
		{"series length", other(func(*Recorder) *Recorder {
			return NewRecorder(NewClock(), swRun, NewLedger(swProducers, swPerProd), NewSeries(swStart, swSeconds+1))
		}), []string{"series of 31 s", "coordinator's 30 s"}},
		{"series start", other(func(*Recorder) *Recorder {
			return NewRecorder(NewClock(), swRun, NewLedger(swProducers, swPerProd), NewSeries(swStart+1, swSeconds))
		}), []string{"from 1700000000000000001 ns", "30 s from 1700000000000000000 ns"}},
		{"window", other(func(r *Recorder) *Recorder {
			r.SetWindow(Window{Start: swWindow.Start, End: swWindow.End + 1})
			return r
		}), []string{"window", "coordinator's"}},
	} {
		err := coord.Absorb(c.e)
		if err == nil {
			t.Errorf("%s: absorbed, want an error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not name %q", c.name, err, w)
			}
		}
	}
	bad := *ex[1]
	bad.Members = append([]MemberExport(nil), bad.Members...)
	bad.Members[0].Hists[1] = []byte("not a histogram")
	if err := coord.Absorb(&bad); err == nil || !strings.Contains(err.Error(), "member 0 completion histogram") {
		t.Errorf("corrupt histogram: %v", err)
	}
	after := coord.Merge()
	if !reflect.DeepEqual(before.PerMember, after.PerMember) || before.Completed != after.Completed ||
		before.Completion.TotalCount() != after.Completion.TotalCount() || coord.Ledger.Audit() != beforeAudit ||
		!bytes.Equal(before.IntervalLogs["completion.hlog"], after.IntervalLogs["completion.hlog"]) {
		t.Error("a refused export changed the coordinator")
	}
	// The refused shard 1 can still be absorbed, once.
	if err := coord.Absorb(ex[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := coord.Export(); err == nil {
		t.Error("Export of a coordinator that absorbed shards: want an error")
	}
}

// TestDecodeExportRejects: every truncation and a byte too many fail
// (campaign/shard's tests cover the frame: magic, version, checksum).
func TestDecodeExportRejects(t *testing.T) {
	b, err := encodeExport(exportsOf(t)[2])
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 4, 5, 9, len(b) / 2, len(b) - 1} {
		if _, err := decodeExport(b[:n]); err == nil {
			t.Errorf("truncated to %d of %d bytes: decoded, want an error", n, len(b))
		}
	}
	if _, err := decodeExport(append(bytes.Clone(b), 0)); err == nil {
		t.Error("trailing byte: decoded, want an error")
	}
}

// TestMergeAfterAbsorbRepeatable: Merge reads absorbed intervals without
// consuming them.
func TestMergeAfterAbsorbRepeatable(t *testing.T) {
	w, recs := swSharded()
	w.run(true)
	coord := absorbAll(t, recs)
	a, b := coord.Merge(), coord.Merge()
	for name := range a.IntervalLogs {
		if !bytes.Equal(a.IntervalLogs[name], b.IntervalLogs[name]) || len(a.IntervalLogs[name]) < 1000 {
			t.Errorf("%s: second Merge differs or log is short (%d bytes)", name, len(a.IntervalLogs[name]))
		}
	}
	if a.Completion.TotalCount() != b.Completion.TotalCount() {
		t.Error("second Merge differs")
	}
}

// emptyExport is the export of a recorder that recorded nothing but what
// set does, as shard i.
func emptyExport(t *testing.T, i int, set func(*Recorder)) *ShardExport {
	t.Helper()
	r := swRecorder()
	set(r)
	e, err := r.Export()
	if err != nil {
		t.Fatal(err)
	}
	e.Shard = i
	return e
}

// TestAbsorbGaugesAndClientClock: the harness's gauges add up; lag keeps
// the coordinator's reading, else the first shard's; the client clock with
// the largest bound wins.
func TestAbsorbGaugesAndClientClock(t *testing.T) {
	coord := swRecorder()
	coord.Series.SetGauge(Lag, swStart+1e9, 7) // the coordinator's own reading, second 1
	for i, c := range []struct {
		lag1, lag2, cpu float64
		clock           ClientClock
	}{
		{lag1: 100, lag2: 200, cpu: 10, clock: ClientClock{OffsetNs: 1, BoundNs: 50}},
		{lag1: 300, lag2: 400, cpu: 5, clock: ClientClock{OffsetNs: 2, BoundNs: 90}},
		{lag1: 500, lag2: 600, cpu: 1, clock: ClientClock{OffsetNs: 3, BoundNs: 70}},
	} {
		e := emptyExport(t, i, func(r *Recorder) {
			r.Series.SetGauge(Lag, swStart+1e9, c.lag1)
			r.Series.SetGauge(Lag, swStart+2e9, c.lag2)
			r.Series.SetGauge(HarnessCPUPercent, swStart+2e9, c.cpu)
			r.SetClientClock(c.clock)
		})
		if err := coord.Absorb(e); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		g      Gauge
		second int
		want   float64
	}{{Lag, 1, 7}, {Lag, 2, 200}, {HarnessCPUPercent, 2, 16}} {
		if v, ok := coord.Series.GaugeAt(c.g, c.second); !ok || v != c.want {
			t.Errorf("%s in second %d: %v (%v), want %v", c.g, c.second, v, ok, c.want)
		}
	}
	if _, ok := coord.Series.GaugeAt(HarnessCPUPercent, 1); ok {
		t.Error("harness CPU in second 1: a reading, want none")
	}
	if c, ok := coord.ClientClock(); !ok || c != (ClientClock{OffsetNs: 2, BoundNs: 90}) {
		t.Errorf("client clock %+v, want the largest bound's {2 90}", c)
	}
}

// TestAbsorbIgnoresBitsBeyondCapacity: a ledger word's bits past the
// producer's capacity (40 records: bits 40-63 of word 0) are not records.
func TestAbsorbIgnoresBitsBeyondCapacity(t *testing.T) {
	e := emptyExport(t, 0, func(r *Recorder) { r.Ledger.Produced(0, 3) })
	e.Ledger.Bits[0] = []WordRun{{At: 0, Words: []uint64{1<<3 | 1<<50}}}
	coord := swRecorder()
	if err := coord.Absorb(e); err != nil {
		t.Fatal(err)
	}
	if a := coord.Ledger.Audit(); a.Lost != 1 || coord.Ledger.ProducedUnique() != 1 {
		t.Errorf("audit %+v, produced unique %d: want 1 lost record, 1 produced", a, coord.Ledger.ProducedUnique())
	}
}

// TestShardExportCheckRejectsOutOfRange: what the bytes carry is checked
// against the export's own bounds, by Check and again by Absorb.
func TestShardExportCheckRejectsOutOfRange(t *testing.T) {
	for name, mut := range map[string]func(*ShardExport){
		"gauge second": func(e *ShardExport) { e.Gauges = append(e.Gauges, GaugeReading{Bucket: swSeconds, Gauge: Lag}) },
		"gauge":        func(e *ShardExport) { e.Gauges = append(e.Gauges, GaugeReading{Bucket: 0, Gauge: numGauges}) },
		"ledger run": func(e *ShardExport) {
			e.Ledger.Bits[5] = append(e.Ledger.Bits[5], WordRun{At: 4, Words: []uint64{1}}) // 4 words: 1 per bitset
		},
		"repeat producer": func(e *ShardExport) {
			e.Ledger.Repeats = append(e.Ledger.Repeats, RepeatExport{Producer: 6, Seq: 0, Extra: 1})
		},
		"repeat seq": func(e *ShardExport) {
			e.Ledger.Repeats = append(e.Ledger.Repeats, RepeatExport{Producer: 0, Seq: swPerProd, Extra: 1})
		},
		"interval bucket": func(e *ShardExport) {
			e.Intervals[0] = append(e.Intervals[0], IntervalExport{Start: swStart, Buckets: []BucketCount{{histHighestUS + 1, 1}}})
		},
	} {
		e := emptyExport(t, 0, func(*Recorder) {})
		mut(e)
		if err := e.Check(); err == nil {
			t.Errorf("%s out of range: Check passed, want an error", name)
		}
		if err := swRecorder().Absorb(e); err == nil {
			t.Errorf("%s out of range: absorbed, want an error", name)
		}
	}
}
