package results

import (
	"sync/atomic"
	"testing"
)

// TestSnapshotFieldsTakeEveryPath sets every counter of a producer's and a
// member's recorder to its own non-zero value and records a distinct value
// into every histogram, then checks each one arrives unchanged through the
// four paths a figure takes: Merge, Counts, the shard export's
// Encode/Decode and Absorb on a coordinator (whose Merge and Counts must
// give the same). A field added to the Snapshot's types that any path
// missed fails here. Built on TestAbsorbEqualsSingleRecorder's coordinator.
func TestSnapshotFieldsTakeEveryPath(t *testing.T) {
	agent := swRecorder()
	p, m := agent.ProducerRecorder(), agent.MemberRecorder()
	var want Counts
	next := int64(0)
	set := func(live []*atomic.Int64, snap []*int64) {
		for i := range live {
			next++
			live[i].Store(next * 7)
			*snap[i] = next * 7
		}
	}
	set(fieldsOf[atomic.Int64](&p.ProducerCounts), fieldsOf[int64](&want.ProducerCounts))
	set(fieldsOf[atomic.Int64](&m.MemberCounts), fieldsOf[int64](&want.MemberCounts))
	if int(next) != countersIn[ProducerCounts[int64]]()+countersIn[MemberCounts[int64]]() || next < 20 {
		t.Fatalf("%d counters set", next)
	}
	// histValue is the value histogram i of a recorder holds.
	histValue := func(i int) int64 { return int64(100 * (i + 1)) }
	for _, fs := range [][]histField{histogramsOf(&p.h), histogramsOf(&m.stripe.h)} {
		for i, f := range fs {
			_ = (*f.h).RecordValue(histValue(i))
		}
	}

	check := func(path string, got Counts, s *Snapshot) {
		t.Helper()
		w, g := fieldsOf[int64](&want.MemberCounts), fieldsOf[int64](&got.MemberCounts)
		w, g = append(fieldsOf[int64](&want.ProducerCounts), w...), append(fieldsOf[int64](&got.ProducerCounts), g...)
		for i := range w {
			if *g[i] != *w[i] {
				t.Errorf("%s: counter %d is %d, want %d", path, i, *g[i], *w[i])
			}
		}
		if s == nil {
			return
		}
		for _, fs := range [][]histField{histogramsOf(&s.ProducerHistograms), histogramsOf(&s.MemberHistograms)} {
			for i, f := range fs {
				if h := *f.h; h == nil || h.TotalCount() != 1 || !h.ValuesAreEquivalent(h.Max(), histValue(i)) {
					t.Errorf("%s: %s histogram does not hold the one value %d", path, f.name, histValue(i))
				}
			}
		}
	}
	merged := agent.Merge()
	check("Merge", merged.Counts, &merged.Snapshot)
	check("Counts", agent.Counts(), nil)

	e, err := agent.Export()
	if err != nil {
		t.Fatal(err)
	}
	b, err := encodeExport(e)
	if err != nil {
		t.Fatal(err)
	}
	if e, err = decodeExport(b); err != nil {
		t.Fatal(err)
	}
	coord := swRecorder()
	if err := coord.Absorb(e); err != nil {
		t.Fatal(err)
	}
	cm := coord.Merge()
	check("export → absorb → Merge", cm.Counts, &cm.Snapshot)
	check("export → absorb → Counts", coord.Counts(), nil)
}
