package consumers

import "github.com/sharebench/sharebench/results"

// processed checks a record whose processing just succeeded against its
// key's and partition's produce order (results.MemberRecorder.RecordProcessed):
// the order in which the application saw records, whatever the group
// commits or acknowledges afterwards. Replays (a consumer group's records
// redelivered after a rebalance) count; failed attempts and crashed members
// do not.
func (m *member) processed(h *handled) {
	if h.outcome != accepted || h.foreign || m.crashed.Load() {
		return
	}
	m.memberRec.RecordProcessed(h.st, orderPoint(h))
}

// orderPoint reads a record's key id and key sequence (key_mode hashed) and
// its partition and offset.
func orderPoint(h *handled) results.OrderPoint {
	p := results.OrderPoint{Partition: h.r.Partition, Offset: h.r.Offset}
	id, ok := results.KeyID(h.r.Key)
	if !ok {
		return p
	}
	for _, hd := range h.r.Headers {
		if hd.Key == results.KeySeqHeader {
			if seq, ok := results.KeySeq(hd.Value); ok {
				p.Keyed, p.Key, p.KeySeq = true, id, seq
			}
			break
		}
	}
	return p
}
