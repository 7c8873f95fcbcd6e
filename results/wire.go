package results

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
)

// One wire discipline for every blob a sharebench process hands another
// (docs/distributed-runs.md#what-crosses-a-process): a frame
//
//	magic (4 ASCII bytes) | version (1 byte) | body | CRC-32C (Castagnoli) of everything before it (4 bytes)
//
// with every fixed-width integer big-endian (network order, as in the record
// stamp and Kafka's own protocol). Each kind of blob has its own magic:
// "SBSX" a ShardExport, "SBLM" LedgerMarks, "SBCS" a member fleet's client
// statistics (consumers). A frame whose magic, version or checksum is not
// the expected one is refused with an error naming what it held.
//
// A ShardExport's body is a fixed sequence of unsigned and zig-zag varints,
// length-prefixed byte strings (histograms in HdrHistogram's V2 compressed
// encoding) and the ledger's bitsets as runs of non-zero words. Every length
// is checked against the bytes left before anything is allocated, so a
// truncated or corrupt export fails with an error.

const (
	shardMagic = "SBSX"
	// shardVersion 2: each producer's and member's Snapshot part carries
	// its counter and histogram counts (version 1 had fixed lists); 3: the
	// ledger part ends with the deliveries seen elsewhere (the delivery
	// exchange of consumer groups), and the pauses are followed by the
	// open pauses and the partition assignments.
	shardVersion = 3
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// frameOverhead is a frame's bytes besides its body.
const frameOverhead = 4 + 1 + 4

type wireWriter struct{ b []byte }

// newWireWriter starts a frame.
func newWireWriter(magic string, version byte) *wireWriter {
	return &wireWriter{b: frameHeader(magic, version)}
}

// frameHeader is magic (4 bytes, a constant of each blob kind) and version.
func frameHeader(magic string, version byte) []byte { return append([]byte(magic), version) }

// seal ends the frame with its checksum.
func (w *wireWriter) seal() []byte {
	return binary.BigEndian.AppendUint32(w.b, crc32.Checksum(w.b, castagnoli))
}

// SealFrame frames body: magic (4 bytes), version, body, CRC-32C.
func SealFrame(magic string, version byte, body []byte) []byte {
	w := &wireWriter{b: append(frameHeader(magic, version), body...)}
	return w.seal()
}

// OpenFrame checks a frame's magic, version and checksum and returns its
// body; what names the blob in errors ("ledger marks").
func OpenFrame(b []byte, magic string, version byte, what string) ([]byte, error) {
	if len(b) < frameOverhead {
		return nil, fmt.Errorf("%s: %d bytes, too short for a frame (want at least %d)", what, len(b), frameOverhead)
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

// snapshotPart writes one producer's or member's part of a Snapshot: its
// counters and its encoded histograms, each list after its length.
func (w *wireWriter) snapshotPart(counts []*int64, hists [][]byte) {
	w.uvarint(uint64(len(counts)))
	for _, c := range counts {
		w.varint(*c)
	}
	w.uvarint(uint64(len(hists)))
	for _, h := range hists {
		w.bytes(h)
	}
}

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

// snapshotPart reads what wireWriter.snapshotPart wrote into counts and
// hists; the lengths must be the ones this build's types have (an agent
// built from other sources is refused here).
func (r *wireReader) snapshotPart(counts []*int64, hists [][]byte) {
	if n := r.uvarint(); r.err == nil && n != uint64(len(counts)) {
		r.fail("%d counters, want %d (agent and coordinator built from different sources?)", n, len(counts))
	}
	for _, c := range counts {
		*c = r.varint()
	}
	if n := r.uvarint(); r.err == nil && n != uint64(len(hists)) {
		r.fail("%d histograms, want %d (agent and coordinator built from different sources?)", n, len(hists))
	}
	for i := range hists {
		hists[i] = r.bytes()
	}
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
