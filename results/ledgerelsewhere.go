package results

import (
	"encoding/binary"
	"fmt"
)

// A sharded run's consumer-group members on different agents cannot see
// each other's deliveries in their own ledgers: a partition that moves from
// a crashed member on one agent to a member on another is re-read from its
// committed offset, and the new owner's ledger has never seen those
// records, so it would not count them as redelivered at the second it read
// them (share groups need nothing: the broker's delivery count says so).
// The delivery exchange closes that gap. Each agent sends the delivered
// words that changed since its last progress message (DeliveredSince), the
// coordinator relays them to every other agent, which ORs them into a
// separate "delivered elsewhere" bitset (MarkDeliveredElsewhere). Delivered
// then also reports a record delivered elsewhere as delivered again, so the
// redelivery lands in the agent's per-second series like a single
// process's, and counts it (ElsewhereHits). At the merge the coordinator
// finds every cross-shard redelivery again from the shards' bitsets and
// subtracts the hits, so none is counted twice
// (docs/explanation/measurement.md#sharded-runs-how-shard-results-merge). A
// redelivery read before the relayed words arrived (about one progress
// interval) is still counted at the merge, without its second.

// DeliveredWord is one word of a ledger's delivered bitset: producer P's
// word W (records 64·W to 64·W+63), bit i set for a delivered record.
type DeliveredWord struct {
	P uint32
	W uint32
	V uint64
}

// TrackDeliveredElsewhere makes Delivered also report records another
// shard delivered (MarkDeliveredElsewhere). Call it before the run, once.
func (l *Ledger) TrackDeliveredElsewhere() {
	for i := range l.producers {
		s := &l.producers[i]
		if s.elsewhere == nil {
			s.elsewhere = newBitset(s.capacity)
		}
	}
}

// MarkDeliveredElsewhere ORs words of another shard's delivered bitset into
// this ledger's delivered-elsewhere bitset; words outside the ledger are
// ignored and counted in the return. A ledger that does not track
// deliveries elsewhere ignores every word.
func (l *Ledger) MarkDeliveredElsewhere(words []DeliveredWord) (outside int) {
	for _, w := range words {
		if int(w.P) >= len(l.producers) || l.producers[w.P].elsewhere == nil || int(w.W) >= len(l.producers[w.P].elsewhere) {
			outside++
			continue
		}
		l.producers[w.P].elsewhere[w.W].Or(w.V)
	}
	return outside
}

// ElsewhereHits is the number of deliveries Delivered reported as again
// only because another shard had delivered the record.
func (l *Ledger) ElsewhereHits() int64 { return l.elsewhereHits.Load() }

// DeliveredCursor remembers which delivered words were sent already.
type DeliveredCursor struct {
	sent [][]uint64
}

// DeliveredSince returns at most max words of the delivered bitset that
// changed since the cursor's last call (the whole word, not its new bits),
// in producer and word order, and moves the cursor past them. Words beyond
// max stay for the next call.
func (l *Ledger) DeliveredSince(c *DeliveredCursor, max int) []DeliveredWord {
	if c.sent == nil {
		c.sent = make([][]uint64, len(l.producers))
		for i := range l.producers {
			c.sent[i] = make([]uint64, len(l.producers[i].delivered))
		}
	}
	var out []DeliveredWord
	for p := range l.producers {
		d := l.producers[p].delivered
		for w := range d {
			v := d[w].Load()
			if v == c.sent[p][w] {
				continue
			}
			if len(out) == max {
				return out
			}
			out = append(out, DeliveredWord{P: uint32(p), W: uint32(w), V: v})
			c.sent[p][w] = v
		}
	}
	return out
}

// EncodeDeliveredWords packs words as 16 bytes each (producer u32, word
// u32, value u64, big-endian) for a progress message.
func EncodeDeliveredWords(words []DeliveredWord) []byte {
	b := make([]byte, 0, 16*len(words))
	for _, w := range words {
		b = binary.BigEndian.AppendUint32(b, w.P)
		b = binary.BigEndian.AppendUint32(b, w.W)
		b = binary.BigEndian.AppendUint64(b, w.V)
	}
	return b
}

// DecodeDeliveredWords reads EncodeDeliveredWords' bytes.
func DecodeDeliveredWords(b []byte) ([]DeliveredWord, error) {
	if len(b)%16 != 0 {
		return nil, fmt.Errorf("results: delivered words: %d bytes, want a multiple of 16", len(b))
	}
	out := make([]DeliveredWord, 0, len(b)/16)
	for i := 0; i < len(b); i += 16 {
		out = append(out, DeliveredWord{P: binary.BigEndian.Uint32(b[i:]), W: binary.BigEndian.Uint32(b[i+4:]), V: binary.BigEndian.Uint64(b[i+8:])})
	}
	return out, nil
}
