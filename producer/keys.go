package producer

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/results"
)

// KeyHashed is key_mode hashed: keys are key ids 0..Keys-1, written as 8
// big-endian bytes (results.KeyBytes) and partitioned by their hash; each
// record carries its key's sequence in the results.KeySeqHeader header, so
// the consumers can measure order per key.
const KeyHashed = "hashed"

// keyGen draws one producer's keys: a share HotShare of the records goes to
// the first HotKeys key ids, the rest uniformly to all Keys. It counts each
// key's records, the sequence stamped in the header; one producer goroutine
// owns it.
type keyGen struct {
	keys     uint64
	hotShare float64
	hotKeys  uint64
	next     []uint64 // next sequence of each key id
}

// newKeyGen returns the producer's key generator, nil unless key_mode is
// hashed.
func newKeyGen(c Config) (*keyGen, error) {
	if c.KeyMode != KeyHashed {
		return nil, nil
	}
	if c.Keys < 1 {
		return nil, fmt.Errorf("keys: key_mode hashed needs keys ≥ 1, got %d", c.Keys)
	}
	if c.HotShare < 0 || c.HotShare > 1 || c.HotKeys < 0 || c.HotKeys > c.Keys {
		return nil, fmt.Errorf("hot_keys: need share in [0, 1] and 0 ≤ keys ≤ %d, got {share: %v, keys: %d}", c.Keys, c.HotShare, c.HotKeys)
	}
	return &keyGen{keys: uint64(c.Keys), hotShare: c.HotShare, hotKeys: uint64(c.HotKeys), next: make([]uint64, c.Keys)}, nil
}

// pick draws a key id.
func (g *keyGen) pick(rng *rand.Rand) uint64 {
	if g.hotKeys > 0 && g.hotShare > 0 && rng.Float64() < g.hotShare {
		return rng.Uint64N(g.hotKeys)
	}
	return rng.Uint64N(g.keys)
}

// key sets the record's key and its key-sequence header.
func (g *keyGen) key(r *kgo.Record, rng *rand.Rand) {
	id := g.pick(rng)
	seq := g.next[id]
	g.next[id]++
	r.Key = results.KeyBytes(id)
	r.Headers = append(r.Headers, kgo.RecordHeader{Key: results.KeySeqHeader, Value: binary.BigEndian.AppendUint64(nil, seq)})
}

// BusyPartitions reports, per partition, whether the producers' key mode
// sends it records: key_mode hashed sends each key id to the partition
// franz-go's default partitioner hashes it to (murmur2, as Kafka's), so
// fewer keys than partitions leave partitions empty; every other mode
// spreads records over every partition. Beyond 4096 keys every partition
// counts as busy.
func BusyPartitions(keyMode string, keys, partitions int) []bool {
	out := make([]bool, max(0, partitions))
	if keyMode != KeyHashed || keys > 4096 || keys < 1 {
		for i := range out {
			out[i] = true
		}
		return out
	}
	part := kgo.StickyKeyPartitioner(nil).ForTopic("")
	for id := range uint64(keys) {
		if p := part.Partition(&kgo.Record{Key: results.KeyBytes(id)}, partitions); p >= 0 && p < partitions {
			out[p] = true
		}
	}
	return out
}

// maxShareKeys bounds the key ids PartitionShares hashes one by one; above
// it the hashed key space is taken as spread evenly.
const maxShareKeys = 1 << 20

// PartitionShares is, per partition, the share of the records the
// producers send it: key_mode hashed sends key id i to the partition
// franz-go's default partitioner hashes it to, with hotShare of the records
// over the first hotKeys key ids and the rest uniform over all keys; a
// partition_skew (skew > 0, other key modes) is the Zipf law; every other
// mode spreads records evenly (on average: the sticky partitioner of
// key_mode none moves batches round the partitions). The shares sum to 1.
func PartitionShares(keyMode string, keys, partitions int, hotShare float64, hotKeys int, skew float64) []float64 {
	out := make([]float64, max(0, partitions))
	if partitions < 1 {
		return out
	}
	even := func() []float64 {
		for i := range out {
			out[i] = 1 / float64(partitions)
		}
		return out
	}
	switch {
	case keyMode == KeyHashed && keys >= 1 && keys <= maxShareKeys:
		part := kgo.StickyKeyPartitioner(nil).ForTopic("")
		hotShare, hotKeys = min(max(hotShare, 0), 1), min(max(hotKeys, 0), keys)
		if hotKeys == 0 {
			hotShare = 0
		}
		for id := range keys {
			p := part.Partition(&kgo.Record{Key: results.KeyBytes(uint64(id))}, partitions)
			if p < 0 || p >= partitions {
				continue
			}
			w := (1 - hotShare) / float64(keys)
			if id < hotKeys {
				w += hotShare / float64(hotKeys)
			}
			out[p] += w
		}
		return out
	case keyMode != KeyHashed && skew > 0:
		z, err := NewZipf(partitions, skew)
		if err != nil {
			return even()
		}
		for p := range out {
			out[p] = z.Prob(p)
		}
		return out
	}
	return even()
}
