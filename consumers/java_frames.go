package consumers

import (
	"encoding/binary"
	"fmt"

	"github.com/sharebench/sharebench/internal/wire"
	"github.com/sharebench/sharebench/results"
)

// A client runner's event stream (the Java runner's Frames.java, the
// librdkafka runner's frames in runner.py): fixed-size frames on its stdout in
// the project's one wire discipline (internal/wire: magic, version, body,
// CRC-32C of everything before it; big-endian), so a third runner speaks
// the same by writing the same 61 bytes.
//
//	off size field
//	  0   4  magic     "SBRF" (sharebench runner frame)
//	  4   u8 version   (javaFrameProtocol)
//	  5   u8 kind
//	  6   u8 flags     (1: lock expired, 2: archived)
//	  7  u16 member
//	  9  i32 n         (delivery count, poll size, partition, ping sequence, count)
//	 13  u32 producer
//	 17  u64 run       (stamp run tag)
//	 25  u64 seq
//	 33  i64 intended  (stamp intended send time)
//	 41  i64 at        (event time, runner clock ns)
//	 49  i64 aux       (delivery: record timestamp Unix ns; completion: delivered at, runner clock ns)
//	 57  u32 CRC-32C (Castagnoli) of bytes 0..56
//
// A requests frame (frameRequests, RequestMetrics.java) reuses the layout
// for one member's request count to one broker, read from its client's
// metrics as it stops: flags is the frame's record version
// (javaRequestsVersion), member the member, n the broker id, producer the
// connection (javaConnData, javaConnCoordinator), run the count; seq,
// intended and aux are 0 (room for times a later version may carry).
//
// A write frame (frameWrite, a member's write of one completed record to
// the destination, java_destination.go) carries in flags 1 when the write
// failed, in n the write's time in µs (waiting for a connection
// included) and in aux the time its statement held the connection in ns.
const (
	javaFrameMagic = "SBRF"
	// javaFrameProtocol 2: the frame discipline above (version 1 was
	// 64-byte little-endian frames without magic or checksum).
	javaFrameProtocol = 2
	javaFrameBody     = 52
	javaFrameSize     = 4 + 1 + javaFrameBody + 4
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
	frameRequests
	frameWrite
)

const (
	frameFlagLockExpired = 1
	frameFlagArchived    = 2
	// frameFlagWriteFailed marks a frameWrite whose write failed.
	frameFlagWriteFailed = 1
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

// decodeJavaFrame decodes one frame from b (javaFrameSize bytes): magic,
// version and checksum first, so a corrupt stream is refused.
func decodeJavaFrame(b []byte) (javaFrame, error) {
	if len(b) != javaFrameSize {
		return javaFrame{}, fmt.Errorf("runner frame: %d bytes, want %d", len(b), javaFrameSize)
	}
	body, err := wire.Open(b, javaFrameMagic, javaFrameProtocol, "runner frame")
	if err != nil {
		return javaFrame{}, err
	}
	be := binary.BigEndian
	f := javaFrame{
		Kind:     javaFrameKind(body[0]),
		Flags:    body[1],
		Member:   be.Uint16(body[2:]),
		N:        int32(be.Uint32(body[4:])),
		Producer: be.Uint32(body[8:]),
		Run:      be.Uint64(body[12:]),
		Seq:      be.Uint64(body[20:]),
		Intended: int64(be.Uint64(body[28:])),
		At:       int64(be.Uint64(body[36:])),
		Aux:      int64(be.Uint64(body[44:])),
	}
	if f.Kind < frameHello || f.Kind > frameWrite {
		return f, fmt.Errorf("runner frame: unknown frame kind %d", f.Kind)
	}
	return f, nil
}

// encode is the inverse of decodeJavaFrame (tests and vectors).
func (f javaFrame) encode() []byte {
	b := make([]byte, 0, javaFrameBody)
	be := binary.BigEndian
	b = append(b, byte(f.Kind), f.Flags)
	b = be.AppendUint16(b, f.Member)
	b = be.AppendUint32(b, uint32(f.N))
	b = be.AppendUint32(b, f.Producer)
	b = be.AppendUint64(b, f.Run)
	b = be.AppendUint64(b, f.Seq)
	b = be.AppendUint64(b, uint64(f.Intended))
	b = be.AppendUint64(b, uint64(f.At))
	b = be.AppendUint64(b, uint64(f.Aux))
	return wire.Seal(javaFrameMagic, javaFrameProtocol, b)
}

// stamp is the record identity the frame carries (the send time is not
// needed by the recorder and is not sent).
func (f javaFrame) stamp() results.Stamp {
	return results.Stamp{Run: f.Run, Producer: f.Producer, Seq: f.Seq, Intended: f.Intended}
}
