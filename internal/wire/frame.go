// Package wire is the one discipline for every blob a sharebench process
// hands another (docs/how-to/run-sharded.md#what-crosses-a-process): a frame
//
//	magic (4 ASCII bytes) | version (1 byte) | body | CRC-32C (Castagnoli) of everything before it (4 bytes)
//
// with every fixed-width integer big-endian (network order, as in the record
// stamp and Kafka's own protocol), and a codec (Marshal, Unmarshal) that
// walks a plain data type's fields, so an encoder and its decoder are one
// walk of one type and cannot drift apart. Each kind of blob has its own
// magic: "SBSX" a shard export (campaign/shard), "SBLM" ledger marks
// (results), "SBCS" a member fleet's client statistics (consumers), "SBRF"
// a Java runner frame (consumers). A frame whose magic, version or checksum
// is not the expected one is refused with an error naming what it held.
package wire

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// FrameOverhead is a frame's bytes besides its body.
const FrameOverhead = 4 + 1 + 4

// Seal frames body: magic (4 bytes), version, body, CRC-32C.
func Seal(magic string, version byte, body []byte) []byte {
	b := make([]byte, 0, len(body)+FrameOverhead)
	b = append(append(append(b, magic...), version), body...)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// Open checks a frame's magic, version and checksum and returns its body;
// what names the blob in errors ("ledger marks").
func Open(b []byte, magic string, version byte, what string) ([]byte, error) {
	if len(b) < FrameOverhead {
		return nil, fmt.Errorf("%s: %d bytes, too short for a frame (want at least %d)", what, len(b), FrameOverhead)
	}
	if string(b[:4]) != magic {
		return nil, fmt.Errorf("%s: starts with %q, want %q", what, b[:4], magic)
	}
	if b[4] != version {
		return nil, fmt.Errorf("%s: format version %d, want %d", what, b[4], version)
	}
	n := len(b) - 4
	if got, want := binary.BigEndian.Uint32(b[n:]), crc32.Checksum(b[:n], castagnoli); got != want {
		return nil, fmt.Errorf("%s: checksum mismatch (truncated or corrupt bytes)", what)
	}
	return b[5:n], nil
}
