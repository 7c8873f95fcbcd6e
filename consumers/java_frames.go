package consumers

import (
	"encoding/binary"
	"fmt"

	"github.com/sharebench/sharebench/results"
)

// The Java runner's event stream (javarunner/.../Frames.java): fixed
// 64-byte little-endian frames on its stdout.
//
//	off size field
//	  0   u8  kind
//	  1   u8  flags     (1: lock expired, 2: archived)
//	  2   u16 member
//	  4   i32 n         (delivery count, poll size, partition, ping sequence, count)
//	  8   u32 producer
//	 12   u32 reserved
//	 16   u64 run       (stamp run tag)
//	 24   u64 seq
//	 32   i64 intended  (stamp intended send time)
//	 40   i64 at        (event time, runner clock ns)
//	 48   i64 aux       (delivery: record timestamp Unix ns; completion: delivered at, runner clock ns)
//	 56   i64 reserved
const (
	javaFrameSize     = 64
	javaFrameProtocol = 1
)

// javaFrameKind is a frame's kind byte.
type javaFrameKind uint8

const (
	frameHello javaFrameKind = iota + 1
	framePong
	framePoll
	frameDelivery
	frameCompletion
	frameRelease
	frameReject
	frameRetry
	frameForeign
	framePollError
	frameAckError
	frameRenewal
	frameAssigned
	frameRevoked
	frameLeft
	frameExited
	frameBye
)

const (
	frameFlagLockExpired = 1
	frameFlagArchived    = 2
)

// javaFrame is one decoded frame; times are still on the runner's clock.
type javaFrame struct {
	Kind     javaFrameKind
	Flags    uint8
	Member   uint16
	N        int32
	Producer uint32
	Run      uint64
	Seq      uint64
	Intended int64
	At       int64
	Aux      int64
}

// decodeJavaFrame decodes one frame from b (javaFrameSize bytes).
func decodeJavaFrame(b []byte) (javaFrame, error) {
	if len(b) < javaFrameSize {
		return javaFrame{}, fmt.Errorf("java runner: short frame (%d bytes)", len(b))
	}
	le := binary.LittleEndian
	f := javaFrame{
		Kind:     javaFrameKind(b[0]),
		Flags:    b[1],
		Member:   le.Uint16(b[2:]),
		N:        int32(le.Uint32(b[4:])),
		Producer: le.Uint32(b[8:]),
		Run:      le.Uint64(b[16:]),
		Seq:      le.Uint64(b[24:]),
		Intended: int64(le.Uint64(b[32:])),
		At:       int64(le.Uint64(b[40:])),
		Aux:      int64(le.Uint64(b[48:])),
	}
	if f.Kind < frameHello || f.Kind > frameBye {
		return f, fmt.Errorf("java runner: unknown frame kind %d", f.Kind)
	}
	return f, nil
}

// encode is the inverse of decodeJavaFrame (tests and vectors).
func (f javaFrame) encode() []byte {
	b := make([]byte, javaFrameSize)
	le := binary.LittleEndian
	b[0], b[1] = byte(f.Kind), f.Flags
	le.PutUint16(b[2:], f.Member)
	le.PutUint32(b[4:], uint32(f.N))
	le.PutUint32(b[8:], f.Producer)
	le.PutUint64(b[16:], f.Run)
	le.PutUint64(b[24:], f.Seq)
	le.PutUint64(b[32:], uint64(f.Intended))
	le.PutUint64(b[40:], uint64(f.At))
	le.PutUint64(b[48:], uint64(f.Aux))
	return b
}

// stamp is the record identity the frame carries (the send time is not
// needed by the recorder and is not sent).
func (f javaFrame) stamp() results.Stamp {
	return results.Stamp{Run: f.Run, Producer: f.Producer, Seq: f.Seq, Intended: f.Intended}
}
