package consumers

import (
	"slices"
	"testing"
)

// Config.IDs gives a shard's members their global ids (on kfake, not
// Kafka): members 1 and 4 of a fleet split over 3 shards report those ids,
// later joins continue above the largest, and bad id lists are refused.
func TestMemberIDsSubset(t *testing.T) {
	f := newFakeRun(t, 2, 20, nil)
	f.c.Members, f.c.IDs = 2, []int{1, 4}
	fl, stop := f.start(t)
	if got := fl.Join(1); !slices.Equal(got, []int{5}) {
		t.Errorf("a later join got ids %v, want [5]", got)
	}
	m := stop()
	var ids []int
	for _, mt := range m.Members {
		ids = append(ids, mt.ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []int{1, 4, 5}) {
		t.Fatalf("member ids %v, want [1 4 5]", ids)
	}
	for _, bad := range [][]int{{1}, {2, 2}, {-1, 3}} {
		c := f.c
		c.IDs = bad
		if err := c.validate(); err == nil {
			t.Errorf("ids %v for 2 members accepted", bad)
		}
	}
}
