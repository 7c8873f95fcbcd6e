package consumers

import (
	"math/bits"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// fetchPool is the members' franz-go record pools (kgo.WithPools): a fetched
// batch's records (kgo.PoolRecords) and its decompressed bytes
// (kgo.PoolDecompressBytes) come from it, and go back once every record of
// the batch is recycled (kgo.Record.Recycle). A blocking member recycles a
// poll's records once the batch is settled (pollLoop), so a drain reuses
// the same few buffers instead of allocating a record and its value for
// every record fetched, which the Go collector then has to reclaim (issue
// 27.2). One pool serves a fleet's members; sync.Pool lets idle buffers go
// at the next collections.
type fetchPool struct {
	recs  [poolClasses]sync.Pool // *[]kgo.Record of capacity 1 << class
	bytes [poolClasses]sync.Pool // *[]byte of capacity 1 << class
}

// poolClasses bounds the pooled sizes: capacities up to 2^27 (a batch of
// 128 MiB decompressed, more records than any batch has); larger ones are
// allocated and left to the collector.
const poolClasses = 28

var (
	_ kgo.PoolRecords         = (*fetchPool)(nil)
	_ kgo.PoolDecompressBytes = (*fetchPool)(nil)
)

// sizeClass is the smallest class whose capacity (1 << class) holds n.
func sizeClass(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

// GetRecords returns a slice with capacity of at least n.
func (p *fetchPool) GetRecords(n int) []kgo.Record {
	c := sizeClass(n)
	if c >= poolClasses {
		return make([]kgo.Record, 0, n)
	}
	if s, _ := p.recs[c].Get().(*[]kgo.Record); s != nil {
		return (*s)[:0]
	}
	return make([]kgo.Record, 0, 1<<c)
}

// PutRecords takes back a slice GetRecords gave (franz-go has zeroed it).
func (p *fetchPool) PutRecords(s []kgo.Record) {
	if c := sizeClass(cap(s)); c < poolClasses && cap(s) == 1<<c {
		s = s[:0]
		p.recs[c].Put(&s)
	}
}

// GetDecompressBytes returns a slice to decompress into, sized for eight
// times the compressed bytes (the harness's values, a stamp and zeros,
// shrink about fivefold under snappy); the codec grows it when that is
// short, and the grown slice comes back to the pool instead.
func (p *fetchPool) GetDecompressBytes(compressed []byte, _ kgo.CompressionCodecType) []byte {
	c := sizeClass(8 * len(compressed))
	if c >= poolClasses {
		return nil // the codec allocates
	}
	if s, _ := p.bytes[c].Get().(*[]byte); s != nil {
		return (*s)[:0]
	}
	return make([]byte, 0, 1<<c)
}

// PutDecompressBytes takes back a decompression slice (franz-go has zeroed
// it). A slice the codec grew to a capacity that is not a class's goes to
// the class below, which it more than fills.
func (p *fetchPool) PutDecompressBytes(s []byte) {
	if cap(s) == 0 {
		return
	}
	c := bits.Len(uint(cap(s))) - 1 // 1 << c ≤ cap(s)
	if c >= poolClasses {
		return
	}
	s = s[: 0 : 1<<c]
	p.bytes[c].Put(&s)
}
