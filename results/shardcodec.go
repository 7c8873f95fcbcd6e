package results

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
)

// The wire format of a ShardExport (docs/measurement.md#sharded-runs-how-shard-results-merge):
//
//	"SBSX" | version (1 byte) | body | CRC-32C of everything before it (4 bytes, big-endian)
//
// The body is a fixed sequence of unsigned and zig-zag varints, length-
// prefixed byte strings (histograms in HdrHistogram's V2 compressed
// encoding) and the ledger's bitsets as runs of non-zero words.
// Every length is checked against the bytes left before anything is
// allocated, so a truncated or corrupt export fails with an error.

const (
	shardMagic   = "SBSX"
	shardVersion = 1
)

var shardCRC = crc32.MakeTable(crc32.Castagnoli)

type wireWriter struct{ b []byte }

func (w *wireWriter) uvarint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *wireWriter) varint(v int64)   { w.b = binary.AppendVarint(w.b, v) }
func (w *wireWriter) u64(v uint64)     { w.b = binary.BigEndian.AppendUint64(w.b, v) }
func (w *wireWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}
func (w *wireWriter) bytes(p []byte) { w.uvarint(uint64(len(p))); w.b = append(w.b, p...) }

// runs writes a ledger's non-zero words: per run its gap from the previous
// run's end, its length and its words.
func (w *wireWriter) runs(rs []wordRun) {
	w.uvarint(uint64(len(rs)))
	var end uint64
	for _, r := range rs {
		w.uvarint(r.at - end)
		w.bytes8(r.words)
		end = r.at + uint64(len(r.words))
	}
}

func (w *wireWriter) bytes8(ws []uint64) {
	w.uvarint(uint64(len(ws)))
	for _, v := range ws {
		w.u64(v)
	}
}

// wireReader reads what wireWriter wrote; the first error sticks and every
// later read returns zero values.
type wireReader struct {
	b   []byte
	err error
	at  string // the field being read, for errors
}

func (r *wireReader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("shard export: %s: %s", r.at, fmt.Sprintf(format, a...))
	}
}

func (r *wireReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("truncated or malformed varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *wireReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("truncated or malformed varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *wireReader) u64() uint64 {
	if r.err != nil {
		return 0
	}
	if len(r.b) < 8 {
		r.fail("truncated: want 8 bytes, %d left", len(r.b))
		return 0
	}
	v := binary.BigEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *wireReader) bool() bool {
	if r.err != nil {
		return false
	}
	if len(r.b) < 1 {
		r.fail("truncated")
		return false
	}
	v := r.b[0]
	r.b = r.b[1:]
	if v > 1 {
		r.fail("boolean byte %d, want 0 or 1", v)
	}
	return v == 1
}

// count reads a length of items each taking at least minBytes, bounded by
// the bytes left.
func (r *wireReader) count(minBytes int) int {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)/minBytes) {
		r.fail("length %d exceeds the %d bytes left", n, len(r.b))
		return 0
	}
	return int(n)
}

func (r *wireReader) int() int {
	v := r.varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.fail("value %d out of range", v)
		return 0
	}
	return int(v)
}

func (r *wireReader) bytes() []byte {
	n := r.count(1)
	if r.err != nil {
		return nil
	}
	p := r.b[:n:n]
	r.b = r.b[n:]
	return p
}

// runs reads runs of words within total words, in order, each non-empty.
func (r *wireReader) runs(total uint64) []wordRun {
	rs := makeN[wordRun](r.count(10))
	var end uint64
	for i := range rs {
		gap := r.uvarint()
		n := r.count(8)
		if r.err != nil {
			return nil
		}
		if n == 0 || gap > total-end || uint64(n) > total-end-gap {
			r.fail("run of %d words %d words after word %d: want a non-empty run within the ledger's %d words", n, gap, end, total)
			return nil
		}
		rs[i] = wordRun{at: end + gap, words: make([]uint64, n)}
		for j := range rs[i].words {
			rs[i].words[j] = r.u64()
		}
		end = rs[i].at + uint64(n)
	}
	return rs
}

// seal appends the CRC; open checks the frame and returns the body.
func seal(body []byte) []byte {
	return binary.BigEndian.AppendUint32(body, crc32.Checksum(body, shardCRC))
}

func openFrame(b []byte) ([]byte, error) {
	if len(b) < len(shardMagic)+1+4 {
		return nil, fmt.Errorf("shard export: %d bytes, too short for a shard export (want at least %d)", len(b), len(shardMagic)+5)
	}
	if string(b[:4]) != shardMagic {
		return nil, fmt.Errorf("shard export: starts with %q, want %q", b[:4], shardMagic)
	}
	if b[4] != shardVersion {
		return nil, fmt.Errorf("shard export: format version %d, want %d", b[4], shardVersion)
	}
	n := len(b) - 4
	if got, want := binary.BigEndian.Uint32(b[n:]), crc32.Checksum(b[:n], shardCRC); got != want {
		return nil, errors.New("shard export: checksum mismatch (truncated or corrupt bytes)")
	}
	return b[5:n], nil
}
