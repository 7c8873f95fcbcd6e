package producer

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sync/errgroup"

	"github.com/sharebench/sharebench/results"
)

// Config describes the producer fleet of one run.
type Config struct {
	Brokers []string
	// Conn are the connection options every producer client takes (TLS,
	// SASL, hooks: connection.Settings.ClientOpts); nil is plaintext.
	Conn      []kgo.Opt
	Topic     string
	Producers int
	Rate      float64 // records/s for the whole fleet (open loop)
	// Profile, when set, replaces Rate: the fleet's rate over time from
	// Start (rate_schedule, warm-up included; profile.go).
	Profile     *Profile
	MessageSize int           // bytes per record value, ≥ results.StampSize
	KeyMode     string        // "none" (sticky partitioning), "random" (16 random bytes), "round-robin" (partition by turn)
	Acks        string        // "all", "leader", "none"
	Linger      time.Duration // kgo.ProducerLinger
	BatchSize   int           // kgo.ProducerBatchMaxBytes
	Start       int64         // Clock ns when the schedule starts
	Duration    time.Duration // schedule length: records due in [Start, Start+Duration) are sent
	// Backlog, when > 0, replaces the schedule: the fleet sends Backlog
	// records in total (split evenly, the first producers taking the
	// remainder) as fast as it can, each stamped with its send time as the
	// intended time; Rate and Duration are ignored.
	Backlog uint64
	// FlushTimeout bounds the wait for outstanding acknowledgements after the
	// last send (default 30s).
	FlushTimeout time.Duration
	// Keys, HotShare and HotKeys shape KeyMode "hashed" (keys.go): key ids
	// 0..Keys-1, HotShare of the records on the first HotKeys of them.
	Keys     int
	HotShare float64
	HotKeys  int
	// Only, when not nil, runs just these producer indices (0..Producers-1)
	// of the fleet, with their global ids, schedules and backlog shares: one
	// shard of a sharded run (campaign/shard). nil runs every producer.
	Only []int
	// PartitionSkew, when > 0, sends each record to partition p (0-based)
	// of Partitions with probability ∝ 1/(p+1)^PartitionSkew (Zipf over
	// partitions, skew.go); keys are then not used to partition.
	PartitionSkew float64
	Partitions    int
}

// schedules are the fleet's schedules: the profile's, or Rate's.
func (c Config) schedules(rate float64) ([]Schedule, error) {
	if c.Profile != nil && c.Backlog == 0 {
		return ProfileSchedules(c.Start, c.Profile, c.Producers)
	}
	return FleetSchedules(c.Start, rate, c.Producers)
}

// runs reports whether this process runs producer i.
func (c Config) runs(i int) bool {
	return c.Only == nil || slices.Contains(c.Only, i)
}

// Indices are the producer indices i of a fleet of n that shard of shards
// runs: i mod shards = shard.
func Indices(n, shard, shards int) []int {
	out := []int{}
	for i := shard; i < n && shards > 0; i += shards {
		out = append(out, i)
	}
	return out
}

// PerProducerMax is the most records any producer of the fleet sends: the
// ledger is sized with it.
func (c Config) PerProducerMax() (uint64, error) {
	if c.Backlog > 0 {
		if c.Producers < 1 {
			return 0, fmt.Errorf("producers: must be ≥ 1, got %d", c.Producers)
		}
		return c.backlogShare(0), nil
	}
	scheds, err := c.schedules(c.Rate)
	if err != nil {
		return 0, err
	}
	return scheds[0].CountWithin(c.Duration), nil
}

// backlogShare is producer id's part of the backlog.
func (c Config) backlogShare(id int) uint64 {
	n := uint64(c.Producers)
	share := c.Backlog / n
	if uint64(id) < c.Backlog%n {
		share++
	}
	return share
}

// MaxBufferedRecords is how many records a producer's client holds before
// Produce blocks (kgo.MaxBufferedRecords): a backlog fill keeps it full.
const MaxBufferedRecords = 1 << 16

func (c Config) clientOpts() ([]kgo.Opt, error) {
	opts := []kgo.Opt{
		kgo.SeedBrokers(c.Brokers...),
		kgo.DefaultProduceTopic(c.Topic),
		kgo.ProducerLinger(c.Linger),
		kgo.MaxBufferedRecords(MaxBufferedRecords),
	}
	opts = append(opts, c.Conn...)
	if c.BatchSize > 0 {
		opts = append(opts, kgo.ProducerBatchMaxBytes(int32(c.BatchSize)))
	}
	switch c.Acks {
	case "", "all":
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	case "leader":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	case "none":
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
	default:
		return nil, fmt.Errorf("acks: expected all, leader or none, got %q", c.Acks)
	}
	switch c.KeyMode {
	case "", "none", "random", KeyHashed:
	case "round-robin":
		if c.PartitionSkew == 0 {
			opts = append(opts, kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
		}
	default:
		return nil, fmt.Errorf("key_mode: expected none, random, round-robin or hashed, got %q", c.KeyMode)
	}
	if c.PartitionSkew > 0 {
		if c.KeyMode == KeyHashed {
			return nil, fmt.Errorf("partition_skew: key_mode hashed partitions by key; use hot_keys to skew it")
		}
		opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	}
	return opts, nil
}

// newSkew returns the partition law of PartitionSkew, nil without one.
func newSkew(c Config) (*Zipf, error) {
	if c.PartitionSkew == 0 {
		return nil, nil
	}
	return NewZipf(c.Partitions, c.PartitionSkew)
}

// Run sends the fleet's schedule and returns once every record has been
// acknowledged or failed, or ctx ends. Each record is counted in rec.
func Run(ctx context.Context, c Config, rec *results.Recorder) error {
	if c.MessageSize < results.StampSize {
		return fmt.Errorf("message_size: must be ≥ %d bytes (the record stamp), got %d", results.StampSize, c.MessageSize)
	}
	rate := c.Rate
	if c.Backlog > 0 {
		rate = 1 // unused: the backlog is not paced
	}
	scheds, err := c.schedules(rate)
	if err != nil {
		return err
	}
	opts, err := c.clientOpts()
	if err != nil {
		return err
	}
	for _, i := range c.Only {
		if i < 0 || i >= len(scheds) {
			return fmt.Errorf("producers: index %d outside the fleet of %d", i, len(scheds))
		}
	}
	// The producers' goroutines, their clients' included (which start
	// theirs from here), carry the profiler label sharebench=producer:
	// go tool pprof -tagfocus sharebench=producer on a --cpu-profile.
	var runErr error
	pprof.Do(ctx, pprof.Labels("sharebench", "producer"), func(ctx context.Context) {
		g, gctx := errgroup.WithContext(ctx)
		for i, s := range scheds {
			if !c.runs(i) {
				continue
			}
			cl, err := kgo.NewClient(opts...)
			if err != nil {
				runErr = fmt.Errorf("producer %d: %w", i, err)
				return
			}
			g.Go(func() error {
				defer cl.Close()
				return produce(gctx, cl, c, uint32(i), s, rec.ProducerRecorder(), rec)
			})
		}
		runErr = g.Wait()
	})
	return runErr
}

func produce(ctx context.Context, cl *kgo.Client, c Config, id uint32, s Schedule, pr *results.ProducerRecorder, rec *results.Recorder) error {
	if c.Backlog > 0 {
		return produceBacklog(ctx, cl, c, id, pr, rec)
	}
	count := s.CountWithin(c.Duration)
	rng := rand.New(rand.NewPCG(uint64(id), rec.Run))
	kg, err := newKeyGen(c)
	if err != nil {
		return err
	}
	zp, err := newSkew(c)
	if err != nil {
		return err
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for seq := uint64(0); seq < count; seq++ {
		due := s.Due(seq)
		if wait := time.Duration(due - rec.Clock.Now()); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return flush(cl, c, true)
			case <-timer.C:
			}
		} else if ctx.Err() != nil {
			return flush(cl, c, true)
		}
		send(ctx, cl, c, rng, kg, zp, results.Stamp{Run: rec.Run, Producer: id, Seq: seq, Intended: due, Sent: rec.Clock.Now()}, pr, rec)
	}
	return flush(cl, c, false)
}

// produceBacklog sends this producer's share of the backlog without pacing:
// Produce blocks only when the client's buffer is full.
func produceBacklog(ctx context.Context, cl *kgo.Client, c Config, id uint32, pr *results.ProducerRecorder, rec *results.Recorder) error {
	rng := rand.New(rand.NewPCG(uint64(id), rec.Run))
	kg, err := newKeyGen(c)
	if err != nil {
		return err
	}
	zp, err := newSkew(c)
	if err != nil {
		return err
	}
	for seq := range c.backlogShare(int(id)) {
		if ctx.Err() != nil {
			return flush(cl, c, true)
		}
		now := rec.Clock.Now()
		send(ctx, cl, c, rng, kg, zp, results.Stamp{Run: rec.Run, Producer: id, Seq: seq, Intended: now, Sent: now}, pr, rec)
	}
	return flush(cl, c, false)
}

// send produces one stamped record and counts its acknowledgement.
func send(ctx context.Context, cl *kgo.Client, c Config, rng *rand.Rand, kg *keyGen, zp *Zipf, st results.Stamp, pr *results.ProducerRecorder, rec *results.Recorder) {
	r := &kgo.Record{Value: make([]byte, c.MessageSize)}
	if c.KeyMode == "random" {
		r.Key = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, rng.Uint64()), rng.Uint64())
	} else if kg != nil {
		kg.key(r, rng)
	}
	if zp != nil {
		r.Partition = zp.Pick(rng)
	}
	st.Put(r.Value)
	pr.Sent.Add(1)
	cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
		if err != nil {
			pr.RecordFailure()
			return
		}
		pr.RecordAck(st, rec.Clock.Now())
	})
}

// flush waits for outstanding acknowledgements, bounded by FlushTimeout (5 s
// when the run was interrupted: the user is waiting for the exit).
func flush(cl *kgo.Client, c Config, interrupted bool) error {
	d := c.FlushTimeout
	if d <= 0 {
		d = 30 * time.Second
	}
	if interrupted {
		d = min(d, 5*time.Second)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := cl.Flush(ctx); err != nil {
		return fmt.Errorf("flush outstanding records: %w", err)
	}
	return nil
}
