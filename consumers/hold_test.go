package consumers

import (
	"testing"
	"time"
)

// Held members join but consume nothing until the fleet is released; then
// every record completes, the consumer-group generation is known, and the
// client statistics saw every record buffered.
func TestHoldUntilReleaseOnKfake(t *testing.T) {
	for _, typ := range []GroupType{ConsumerGroup, ShareGroup} {
		t.Run(string(typ), func(t *testing.T) {
			const n = 200
			f := newFakeRun(t, 2, n, nil)
			f.c.Type, f.c.Members, f.c.MaxPollRecords, f.c.Hold = typ, 2, 20, true
			if typ == ShareGroup {
				f.c.Ack = AckExplicit
			}
			fl, stop := f.start(t)
			time.Sleep(2 * time.Second) // joined by now on kfake
			if c := f.rec.Counts(); c.Delivered != 0 {
				t.Fatalf("held fleet delivered %d records before its release", c.Delivered)
			}
			released := fl.Release()
			if again := fl.Release(); again != released {
				t.Errorf("a second Release moved the release time")
			}
			waitFor(t, 20*time.Second, "every record", f.allDone)
			if typ == ConsumerGroup && fl.Generation() < 1 {
				t.Errorf("generation %d after the group consumed", fl.Generation())
			}
			cs := fl.ClientStats()
			m := stop()
			if m.Completed < n || cs.Buffered.TotalCount() < n {
				t.Errorf("completed %d, buffered-time samples %d, want ≥ %d", m.Completed, cs.Buffered.TotalCount(), n)
			}
			if typ == ShareGroup && cs.PerAcquisition.TotalCount() == 0 {
				t.Errorf("share: no acquisition counted")
			}
			t.Logf("%s: acquisitions %d (max %d), responses %d, buffered p99 %d µs", typ, cs.PerAcquisition.TotalCount(),
				cs.PerAcquisition.Max(), cs.PerResponse.TotalCount(), cs.Buffered.ValueAtQuantile(99))
		})
	}
}
