package consumers

import "testing"

func TestOffsetTrackerCommitsOnlyTheCompletedPrefix(t *testing.T) {
	tr := newOffsetTracker()
	for _, o := range []int64{10, 11, 12, 14, 15} { // 13 is a gap in the log
		tr.handed(0, o, 3)
	}
	tr.handed(1, 0, 1)
	tr.finished(0, 11) // out of order: 10 still running
	if got := tr.committable(); len(got) != 0 {
		t.Fatalf("committed %v before offset 10 finished", got)
	}
	tr.finished(0, 10)
	tr.finished(0, 14) // 12 still running
	got := tr.committable()
	if len(got) != 1 || got[0] != (commitPoint{offset: 12, epoch: 3}) {
		t.Fatalf("got %v, want partition 0 at 12", got)
	}
	if again := tr.committable(); len(again) != 0 {
		t.Fatalf("unchanged prefix committed again: %v", again)
	}
	tr.finished(0, 12)
	tr.finished(0, 15)
	tr.finished(1, 0)
	got = tr.committable()
	if got[0].offset != 16 || got[1].offset != 1 {
		t.Fatalf("got %v, want p0 16 (across the gap) and p1 1", got)
	}
	if l := tr.latestPoints(); l[0].offset != 16 || l[1].offset != 1 {
		t.Fatalf("latest %v, want p0 16 p1 1 even after committable() consumed them", l)
	}
	tr.handed(2, 5, 1)
	tr.forget([]int32{2})
	tr.finished(2, 5)
	if got := tr.committable(); len(got) != 0 {
		t.Fatalf("revoked partition committed: %v", got)
	}
}
