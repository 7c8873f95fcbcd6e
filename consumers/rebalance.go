package consumers

import (
	"sync"
	"sync/atomic"

	"github.com/sharebench/sharebench/results"
)

// rebalanceWatch turns consumer-group assignment callbacks into rebalance
// pauses: a partition revoked from or lost by a member (or held by a member
// that crashed) pauses until it is assigned again, to any member. The
// recorder holds the open pauses and the assignments
// (results.Recorder.OpenPause), so a sharded run's coordinator can end a
// pause begun on one agent at an assignment on another.
type rebalanceWatch struct {
	rec   *results.Recorder
	mu    sync.Mutex
	owner map[int32]int // partition → member
	// generation is the highest group generation seen in an assignment.
	generation atomic.Int32
}

// sawGeneration notes a group generation a member was assigned in.
func (w *rebalanceWatch) sawGeneration(g int32) {
	for {
		cur := w.generation.Load()
		if g <= cur || w.generation.CompareAndSwap(cur, g) {
			return
		}
	}
}

func newRebalanceWatch(rec *results.Recorder) *rebalanceWatch {
	return &rebalanceWatch{rec: rec, owner: map[int32]int{}}
}

func (w *rebalanceWatch) assigned(member int, ps []int32) {
	now := w.rec.Clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range ps {
		w.owner[p] = member
		w.rec.PartitionAssigned(p, now)
	}
}

// revoked notes partitions a member gave up (revoked or lost).
func (w *rebalanceWatch) revoked(member int, ps []int32) {
	now := w.rec.Clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range ps {
		if o, ok := w.owner[p]; !ok || o != member {
			continue // assigned elsewhere already, or never ours
		}
		delete(w.owner, p)
		w.rec.OpenPause(results.RebalancePause{Member: member, Partition: p, StartNs: now})
	}
}

// crashed marks every partition the member owned as paused from now.
func (w *rebalanceWatch) crashed(member int, now int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for p, o := range w.owner {
		if o == member {
			delete(w.owner, p)
			w.rec.OpenPause(results.RebalancePause{Member: member, Partition: p, StartNs: now})
		}
	}
}
