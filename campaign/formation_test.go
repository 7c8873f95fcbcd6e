package campaign

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

func TestGroupSnapshotFormed(t *testing.T) {
	cg := groupSnapshot{state: "Stable", members: map[string][]int32{"a": {0, 1, 2, 3}, "b": nil, "c": nil}}
	// The first member holds every partition: joined, stable, but not formed.
	if cg.formed(false, 3, 4) {
		t.Error("one owner of 4 partitions with 3 members: formed")
	}
	cg.members = map[string][]int32{"a": {0, 1}, "b": {2}, "c": {3}}
	if !cg.formed(false, 3, 4) {
		t.Error("3 owners of 4 partitions: not formed")
	}
	cg.state = "CompletingRebalance"
	if cg.formed(false, 3, 4) {
		t.Error("rebalancing: formed")
	}
	// 6 members on 4 partitions: 4 owners, 2 idle.
	cg = groupSnapshot{state: "Stable", members: map[string][]int32{"a": {0}, "b": {1}, "c": {2}, "d": {3}, "e": nil, "f": nil}}
	if !cg.formed(false, 6, 4) {
		t.Error("4 owners of 4 partitions, 6 members: not formed")
	}
	sg := groupSnapshot{members: map[string][]int32{"a": {0}, "b": {1}, "c": {0}, "d": nil}}
	if sg.formed(true, 4, 2) {
		t.Error("share member without assignment: formed")
	}
	sg.members["d"] = []int32{1}
	if !sg.formed(true, 4, 2) || !equalInts(sg.perPartition(2), []int{2, 2}) {
		t.Errorf("share group: formed %v per partition %v", sg.formed(true, 4, 2), sg.perPartition(2))
	}
	k1 := sg.key()
	sg.members["d"] = []int32{0}
	if sg.key() == k1 {
		t.Error("a changed assignment kept its key")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// mpr-cliff at max_poll_records 200 is predicted lock-bound at 400/s.
func TestPredictedCeilingNamesLocks(t *testing.T) {
	s := baseSpec()
	s.ConsumerType, s.Partitions, s.Members, s.Rate, s.MaxPollRecords = "share", 2, 6, 800, 200
	s.AcquireMode, s.Processing.Time = "record_limit", 5*time.Millisecond
	s.BrokerConfig = map[string]string{scenarios.KeyRecordLocks: "100"}
	if c := predictedCeiling(s); c.Bound != "locks" || c.RecordsPerSec != 400 {
		t.Errorf("mpr 200: %+v, want locks-bound 400", c)
	}
	s.MaxPollRecords = 10
	if c := predictedCeiling(s); c.Bound != "producer" {
		t.Errorf("mpr 10: %+v, want producer-bound", c)
	}
}
