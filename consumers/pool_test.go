package consumers

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The pool hands out slices of at least the size asked for, takes back
// what it gave (and a grown decompression slice), and gives it out again.
func TestFetchPoolReuses(t *testing.T) {
	for n, want := range map[int]int{0: 0, 1: 0, 2: 1, 3: 2, 500: 9, 512: 9, 513: 10} {
		if got := sizeClass(n); got != want {
			t.Errorf("sizeClass(%d) = %d, want %d", n, got, want)
		}
	}
	var p fetchPool
	recs := p.GetRecords(300)
	if cap(recs) != 512 || len(recs) != 0 {
		t.Fatalf("GetRecords(300): len %d cap %d, want 0 and 512", len(recs), cap(recs))
	}
	p.PutRecords(recs[:300])
	// Reused: a get and a put cost one small allocation (the pointer the
	// pool keeps), not a new slice of 512 records (sync.Pool may drop what
	// it holds at a collection, rarely: the average stays below 2).
	if a := testing.AllocsPerRun(100, func() { p.PutRecords(p.GetRecords(400)) }); a >= 2 {
		t.Errorf("get + put of records: %.0f allocations, want 1 (the slice reused)", a)
	}
	p.PutRecords(make([]kgo.Record, 0, 300)) // not a class's size: not pooled
	if b := p.GetDecompressBytes(make([]byte, 100), kgo.CodecSnappy); cap(b) != 1024 || len(b) != 0 {
		t.Errorf("GetDecompressBytes(100 bytes): len %d cap %d, want 0 and 1024", len(b), cap(b))
	}
	p.PutDecompressBytes(make([]byte, 10, 3000)) // grown by a codec: goes to class 11 (2048)
	if b := p.GetDecompressBytes(make([]byte, 200), kgo.CodecSnappy); cap(b) != 2048 || len(b) != 0 {
		t.Errorf("GetDecompressBytes(200 bytes): len %d cap %d, want 0 and 2048", len(b), cap(b))
	}
	if a := testing.AllocsPerRun(100, func() {
		p.PutDecompressBytes(p.GetDecompressBytes(make([]byte, 200), kgo.CodecSnappy))
	}); a >= 2 {
		t.Errorf("get + put of bytes: %.0f allocations, want 1", a)
	}
}
