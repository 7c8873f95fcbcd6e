package results

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// LedgerMarks are a ledger's produced and finished (completed or archived)
// bits, per producer: what a sharded run's drain check needs from each
// agent. The union over every shard's marks says exactly whether every
// acknowledged record was finished somewhere, which summed counters cannot
// (a record completed on two shards counts twice).
type LedgerMarks struct {
	Produced, Finished [][]uint64
}

// Marks reads the ledger's marks; safe while the run goes on (each word is
// read atomically).
func (l *Ledger) Marks() LedgerMarks {
	m := LedgerMarks{Produced: make([][]uint64, len(l.producers)), Finished: make([][]uint64, len(l.producers))}
	for pi := range l.producers {
		s := &l.producers[pi]
		m.Produced[pi] = make([]uint64, len(s.produced))
		m.Finished[pi] = make([]uint64, len(s.produced))
		for w := range s.produced {
			m.Produced[pi][w] = s.produced[w].Load()
			m.Finished[pi][w] = s.completed[w].Load() | s.archived[w].Load()
		}
	}
	return m
}

// Encode writes the marks as little-endian words: producers, words per
// producer, then the produced and the finished words.
func (m LedgerMarks) Encode() []byte {
	words := 0
	if len(m.Produced) > 0 {
		words = len(m.Produced[0])
	}
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(m.Produced)))
	out = binary.LittleEndian.AppendUint32(out, uint32(words))
	for _, set := range [][][]uint64{m.Produced, m.Finished} {
		for _, p := range set {
			for _, w := range p {
				out = binary.LittleEndian.AppendUint64(out, w)
			}
		}
	}
	return out
}

// DecodeLedgerMarks reads what Encode wrote.
func DecodeLedgerMarks(b []byte) (LedgerMarks, error) {
	if len(b) < 8 {
		return LedgerMarks{}, fmt.Errorf("results: ledger marks: %d bytes, want ≥ 8", len(b))
	}
	producers, words := int(binary.LittleEndian.Uint32(b)), int(binary.LittleEndian.Uint32(b[4:]))
	if want := 8 + 2*8*producers*words; producers < 0 || words < 0 || len(b) != want {
		return LedgerMarks{}, fmt.Errorf("results: ledger marks: %d bytes for %d producers × %d words, want %d", len(b), producers, words, want)
	}
	m := LedgerMarks{Produced: make([][]uint64, producers), Finished: make([][]uint64, producers)}
	off := 8
	for _, set := range [][][]uint64{m.Produced, m.Finished} {
		for p := range set {
			set[p] = make([]uint64, words)
			for w := range words {
				set[p][w] = binary.LittleEndian.Uint64(b[off:])
				off += 8
			}
		}
	}
	return m, nil
}

// Unfinished counts the records produced on any shard that no shard has
// finished: 0 ends a sharded run's drain. The marks must have one shape
// (the ledger's dimensions, the same on every shard).
func Unfinished(marks ...LedgerMarks) (produced, unfinished int64, err error) {
	if len(marks) == 0 {
		return 0, 0, nil
	}
	p0 := marks[0].Produced
	for i, m := range marks {
		if len(m.Produced) != len(p0) || len(m.Finished) != len(p0) {
			return 0, 0, fmt.Errorf("results: ledger marks %d: %d producers, want %d", i, len(m.Produced), len(p0))
		}
		for p := range p0 {
			if len(m.Produced[p]) != len(p0[p]) || len(m.Finished[p]) != len(p0[p]) {
				return 0, 0, fmt.Errorf("results: ledger marks %d: producer %d has %d words, want %d", i, p, len(m.Produced[p]), len(p0[p]))
			}
		}
	}
	for p := range p0 {
		for w := range p0[p] {
			var prod, fin uint64
			for _, m := range marks {
				prod |= m.Produced[p][w]
				fin |= m.Finished[p][w]
			}
			produced += int64(bits.OnesCount64(prod))
			unfinished += int64(bits.OnesCount64(prod &^ fin))
		}
	}
	return produced, unfinished, nil
}
