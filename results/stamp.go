package results

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
)

// StampSize is the number of bytes the stamp occupies at the start of every
// record value; the smallest allowed message size.
const StampSize = 40

const stampMagic uint32 = 0x53424e31 // "SBN1"

// Stamp identifies a produced record and carries its send times. Times are
// Unix nanoseconds from the run's Clock.
type Stamp struct {
	Run      uint64 // RunTag of the run that produced it
	Producer uint32 // producer index within the fleet
	Seq      uint64 // sequence number within the producer, from 0
	Intended int64  // when the open-loop schedule wanted it sent
	Sent     int64  // when the producer handed it to the client
}

// ErrNotStamped reports a record that was not produced by this harness (or is
// too short to carry a stamp).
var ErrNotStamped = errors.New("record carries no sharebench stamp")

// RunTag derives the 64-bit tag stamped in records from a run id, so records
// left over from another run on the same topic are recognised as foreign.
func RunTag(runID string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(runID))
	return h.Sum64()
}

// Put writes the stamp into the first StampSize bytes of b.
func (s Stamp) Put(b []byte) {
	_ = b[StampSize-1]
	binary.BigEndian.PutUint32(b[0:], stampMagic)
	binary.BigEndian.PutUint32(b[4:], s.Producer)
	binary.BigEndian.PutUint64(b[8:], s.Run)
	binary.BigEndian.PutUint64(b[16:], s.Seq)
	binary.BigEndian.PutUint64(b[24:], uint64(s.Intended))
	binary.BigEndian.PutUint64(b[32:], uint64(s.Sent))
}

// DecodeStamp reads the stamp at the start of a record value.
func DecodeStamp(b []byte) (Stamp, error) {
	if len(b) < StampSize || binary.BigEndian.Uint32(b) != stampMagic {
		return Stamp{}, ErrNotStamped
	}
	return Stamp{
		Producer: binary.BigEndian.Uint32(b[4:]),
		Run:      binary.BigEndian.Uint64(b[8:]),
		Seq:      binary.BigEndian.Uint64(b[16:]),
		Intended: int64(binary.BigEndian.Uint64(b[24:])),
		Sent:     int64(binary.BigEndian.Uint64(b[32:])),
	}, nil
}
