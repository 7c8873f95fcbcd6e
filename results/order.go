package results

import (
	"encoding/binary"
	"sync"
)

// Ordering (docs/explanation/measurement.md#ordering): every record a worker finishes
// processing successfully is checked against what its key (key_mode hashed)
// and its partition finished before it. A record is out of order when a
// record produced after it, of the same key (same producer: Kafka orders a
// key per producer only) or the same partition (by offset), finished first.
// Its displacement is how far behind the front it finished: in records (the
// key's sequence, or the offset, of the front minus its own) and in
// produce time (the front's intended send time minus its own).
//
// The check is one map lookup under one of orderStripes striped locks, so
// members contend only when they finish records of keys in the same stripe
// at the same instant; the figures of the stripes add up.

// KeySeqHeader is the record header carrying, under key_mode hashed, the
// record's sequence within its key (8 bytes, big-endian, from 0 per
// producer and key).
const KeySeqHeader = "sb-kseq"

// KeyBytes is key id's record key under key_mode hashed: 8 bytes,
// big-endian.
func KeyBytes(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

// KeyID decodes a key_mode hashed record key; ok is false for any other key.
func KeyID(key []byte) (id uint64, ok bool) {
	if len(key) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(key), true
}

// KeySeq decodes a KeySeqHeader value.
func KeySeq(v []byte) (uint64, bool) {
	if len(v) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(v), true
}

// OrderPoint is where a processed record stands in the two orders checked:
// its key's (when Keyed) and its partition's.
type OrderPoint struct {
	Keyed     bool
	Key       uint64 // key id (key_mode hashed)
	KeySeq    uint64 // sequence within the key and producer
	Partition int32
	Offset    int64
}

const orderStripes = 64

// orderTracker holds the front (highest position finished so far) of every
// key and partition; the zero value is ready.
type orderTracker struct {
	keys, parts orderTable
}

type orderTable struct {
	stripes [orderStripes]orderStripe
}

type orderStripe struct {
	mu      sync.Mutex
	fronts  map[uint64]*orderFront
	checked int64
	viol    int64
	maxRecs int64
	maxNs   int64
}

type orderFront struct {
	pos      uint64 // highest position finished
	intended int64  // its intended send time
	affected bool   // a record of this stream finished out of order
}

// observe checks one finished record of stream id at position pos.
func (t *orderTable) observe(id, pos uint64, intended int64) {
	s := t.stripe(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checked++
	f := s.fronts[id]
	if f == nil {
		if s.fronts == nil {
			s.fronts = map[uint64]*orderFront{}
		}
		s.fronts[id] = &orderFront{pos: pos, intended: intended}
		return
	}
	if pos >= f.pos {
		f.pos, f.intended = pos, intended
		return
	}
	s.viol++
	f.affected = true
	s.maxRecs = max(s.maxRecs, int64(f.pos-pos))
	s.maxNs = max(s.maxNs, f.intended-intended)
}

// stripe is the stripe holding stream id.
func (t *orderTable) stripe(id uint64) *orderStripe { return &t.stripes[(id*0x9e3779b97f4a7c15)>>58] }

// figures sums the table's stripes.
func (t *orderTable) figures() OrderFigures {
	var o OrderFigures
	for i := range t.stripes {
		s := &t.stripes[i]
		s.mu.Lock()
		o.Checked += s.checked
		o.Violations += s.viol
		o.MaxDisplacementRecords = max(o.MaxDisplacementRecords, s.maxRecs)
		o.MaxDisplacementMs = max(o.MaxDisplacementMs, float64(s.maxNs)/1e6)
		o.Streams += int64(len(s.fronts))
		for _, f := range s.fronts {
			if f.affected {
				o.Affected++
			}
		}
		s.mu.Unlock()
	}
	if o.Streams > 0 {
		o.AffectedShare = float64(o.Affected) / float64(o.Streams)
	}
	return o
}

// OrderFigures are the order figures of one kind of stream: keys (per
// producer) or partitions.
type OrderFigures struct {
	// Checked counts the records checked: every successful processing,
	// replays after a rebalance or a redelivery included.
	Checked int64 `json:"checked"`
	// Violations counts records finished after a record of the same stream
	// produced later.
	Violations int64 `json:"violations"`
	// Streams is the number of keys (producer × key id) or partitions seen;
	// Affected how many of them had a violation; AffectedShare their ratio.
	Streams       int64   `json:"streams"`
	Affected      int64   `json:"affected"`
	AffectedShare float64 `json:"affected_share"`
	// MaxDisplacementRecords is the largest gap between a stream's front
	// and a record finished behind it, in the stream's positions (key
	// sequence or offset); MaxDisplacementMs the same in intended send time.
	MaxDisplacementRecords int64   `json:"max_displacement_records"`
	MaxDisplacementMs      float64 `json:"max_displacement_ms"`
}

// OrderAudit is run.json's audit.order: per key (key_mode hashed; absent
// otherwise) at the top level, per partition under partition.
type OrderAudit struct {
	OrderFigures
	// Keyed says the per-key figures were measured (key_mode hashed).
	Keyed     bool         `json:"keyed"`
	Partition OrderFigures `json:"partition"`
	// PerShard says the figures were checked within each shard of a
	// sharded run and added up: a record finished on one shard behind a
	// later record of its stream finished on another is not counted
	// (docs/explanation/measurement.md#sharded-runs-how-shard-results-merge).
	PerShard bool `json:"per_shard,omitempty"`
}

// RecordProcessed checks a record a worker finished processing
// successfully against its key's and partition's order.
func (s *MemberRecorder) RecordProcessed(st Stamp, p OrderPoint) {
	o := &s.r.order
	if p.Keyed {
		o.keys.observe(uint64(st.Producer)<<40|p.Key&(1<<40-1), p.KeySeq, st.Intended)
	}
	if p.Offset >= 0 {
		o.parts.observe(uint64(uint32(p.Partition)), uint64(p.Offset), st.Intended)
	}
}

// Order returns the run's order figures so far; nil when no record was
// checked (a client that does not report processing, like the Java runner).
func (r *Recorder) Order() *OrderAudit {
	r.mu.Lock()
	sources := r.absorbed.orderSources
	r.mu.Unlock()
	return r.order.audit(sources)
}

// audit reads the figures; sources is the number of absorbed shard exports
// that checked order (more than one: the figures are per shard).
func (o *orderTracker) audit(sources int) *OrderAudit {
	a := &OrderAudit{OrderFigures: o.keys.figures(), Partition: o.parts.figures(), PerShard: sources > 1}
	a.Keyed = a.Checked > 0
	if !a.Keyed && a.Partition.Checked == 0 {
		return nil
	}
	return a
}

// KeysAffected is the number of keys with a violation (0 without keys).
func (a *OrderAudit) KeysAffected() int64 { return a.Affected }
