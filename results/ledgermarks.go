package results

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/sharebench/sharebench/internal/wire"
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

// Ledger marks travel as a frame (internal/wire) with magic "SBLM": producers
// (u32), words per producer (u32), then the produced and the finished words
// (u64 each), all big-endian.
const (
	marksMagic   = "SBLM"
	marksVersion = 1
)

// Encode writes the marks in their frame.
func (m LedgerMarks) Encode() []byte {
	words := 0
	if len(m.Produced) > 0 {
		words = len(m.Produced[0])
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(len(m.Produced)))
	out = binary.BigEndian.AppendUint32(out, uint32(words))
	for _, set := range [][][]uint64{m.Produced, m.Finished} {
		for _, p := range set {
			for _, w := range p {
				out = binary.BigEndian.AppendUint64(out, w)
			}
		}
	}
	return wire.Seal(marksMagic, marksVersion, out)
}

// DecodeLedgerMarks reads what Encode wrote.
func DecodeLedgerMarks(frame []byte) (LedgerMarks, error) {
	b, err := wire.Open(frame, marksMagic, marksVersion, "results: ledger marks")
	if err != nil {
		return LedgerMarks{}, err
	}
	if len(b) < 8 {
		return LedgerMarks{}, fmt.Errorf("results: ledger marks: %d bytes, want ≥ 8", len(b))
	}
	producers, words := uint64(binary.BigEndian.Uint32(b)), uint64(binary.BigEndian.Uint32(b[4:]))
	if want := 8 + 2*8*producers*words; (words > 0 && producers > uint64(len(b))/16/words) || uint64(len(b)) != want {
		return LedgerMarks{}, fmt.Errorf("results: ledger marks: %d bytes for %d producers × %d words, want %d", len(b), producers, words, want)
	}
	m := LedgerMarks{Produced: make([][]uint64, producers), Finished: make([][]uint64, producers)}
	off := 8
	for _, set := range [][][]uint64{m.Produced, m.Finished} {
		for p := range set {
			set[p] = make([]uint64, words)
			for w := range words {
				set[p][w] = binary.BigEndian.Uint64(b[off:])
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
