package consumers

import "sync"

// offsetTracker computes, per partition, the offset a consumer group may
// commit when W workers finish records out of order: only the contiguous
// completed prefix of what was handed out, so a crash never skips an
// unfinished record. Offsets are tracked in delivery order, so gaps in the
// log (compaction, transaction markers) do not stall the prefix.
type offsetTracker struct {
	mu    sync.Mutex
	parts map[int32]*partitionProgress
}

type partitionProgress struct {
	pending []pendingOffset // handed out, in delivery order, not yet committed
	commit  int64           // next offset to commit (last done prefix offset + 1); -1 = none
	latest  int64           // the most recent commit point, kept for the final commit; -1 = none
	epoch   int32
}

type pendingOffset struct {
	offset int64
	done   bool
}

func newOffsetTracker() *offsetTracker { return &offsetTracker{parts: map[int32]*partitionProgress{}} }

// handed registers an offset given to a worker.
func (t *offsetTracker) handed(partition int32, offset int64, epoch int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.parts[partition]
	if p == nil {
		p = &partitionProgress{commit: -1, latest: -1}
		t.parts[partition] = p
	}
	p.pending = append(p.pending, pendingOffset{offset: offset})
	p.epoch = epoch
}

// finished marks an offset done and advances the partition's prefix.
func (t *offsetTracker) finished(partition int32, offset int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.parts[partition]
	if p == nil {
		return
	}
	for i := range p.pending {
		if p.pending[i].offset == offset {
			p.pending[i].done = true
			break
		}
	}
	n := 0
	for n < len(p.pending) && p.pending[n].done {
		p.commit = p.pending[n].offset + 1
		p.latest = p.commit
		n++
	}
	p.pending = p.pending[n:]
}

// committable returns the next offset to commit per partition (only
// partitions whose prefix advanced since the last call are included).
func (t *offsetTracker) committable() map[int32]commitPoint {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[int32]commitPoint{}
	for part, p := range t.parts {
		if p.commit >= 0 {
			out[part] = commitPoint{offset: p.commit, epoch: p.epoch}
			p.commit = -1
		}
	}
	return out
}

// latestPoints returns every owned partition's most recent commit point, for a
// final synchronous commit that must not depend on earlier async commits.
func (t *offsetTracker) latestPoints() map[int32]commitPoint {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[int32]commitPoint{}
	for part, p := range t.parts {
		if p.latest >= 0 {
			out[part] = commitPoint{offset: p.latest, epoch: p.epoch}
		}
	}
	return out
}

// forget drops partitions that were revoked; their unfinished offsets will
// be redelivered to the new owner.
func (t *offsetTracker) forget(partitions []int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range partitions {
		delete(t.parts, p)
	}
}

type commitPoint struct {
	offset int64
	epoch  int32
}
