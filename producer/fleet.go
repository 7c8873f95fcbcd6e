package producer

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sync/errgroup"

	"github.com/sharebench/sharebench/results"
)

// Config describes the producer fleet of one run.
type Config struct {
	Brokers     []string
	Topic       string
	Producers   int
	Rate        float64       // records/s for the whole fleet (open loop)
	MessageSize int           // bytes per record value, ≥ results.StampSize
	KeyMode     string        // "none" (sticky partitioning), "random" (16 random bytes), "round-robin" (partition by turn)
	Acks        string        // "all", "leader", "none"
	Linger      time.Duration // kgo.ProducerLinger
	BatchSize   int           // kgo.ProducerBatchMaxBytes
	Start       int64         // Clock ns when the schedule starts
	Duration    time.Duration // schedule length: records due in [Start, Start+Duration) are sent
	// FlushTimeout bounds the wait for outstanding acknowledgements after the
	// last send (default 30s).
	FlushTimeout time.Duration
}

// PerProducerMax is the most records any producer of the fleet sends: the
// ledger is sized with it.
func (c Config) PerProducerMax() (uint64, error) {
	scheds, err := FleetSchedules(c.Start, c.Rate, c.Producers)
	if err != nil {
		return 0, err
	}
	return scheds[0].CountWithin(c.Duration), nil
}

func (c Config) clientOpts() ([]kgo.Opt, error) {
	opts := []kgo.Opt{
		kgo.SeedBrokers(c.Brokers...),
		kgo.DefaultProduceTopic(c.Topic),
		kgo.ProducerLinger(c.Linger),
		kgo.MaxBufferedRecords(1 << 16),
	}
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
	case "", "none", "random":
	case "round-robin":
		opts = append(opts, kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	default:
		return nil, fmt.Errorf("key_mode: expected none, random or round-robin, got %q", c.KeyMode)
	}
	return opts, nil
}

// Run sends the fleet's schedule and returns once every record has been
// acknowledged or failed, or ctx ends. Each record is counted in rec.
func Run(ctx context.Context, c Config, rec *results.Recorder) error {
	if c.MessageSize < results.StampSize {
		return fmt.Errorf("message_size: must be ≥ %d bytes (the record stamp), got %d", results.StampSize, c.MessageSize)
	}
	scheds, err := FleetSchedules(c.Start, c.Rate, c.Producers)
	if err != nil {
		return err
	}
	opts, err := c.clientOpts()
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	for i, s := range scheds {
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return fmt.Errorf("producer %d: %w", i, err)
		}
		g.Go(func() error {
			defer cl.Close()
			return produce(gctx, cl, c, uint32(i), s, rec.ProducerShard(), rec)
		})
	}
	return g.Wait()
}

func produce(ctx context.Context, cl *kgo.Client, c Config, id uint32, s Schedule, shard *results.ProducerShard, rec *results.Recorder) error {
	count := s.CountWithin(c.Duration)
	rng := rand.New(rand.NewPCG(uint64(id), rec.Run))
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
		r := &kgo.Record{Value: make([]byte, c.MessageSize)}
		if c.KeyMode == "random" {
			r.Key = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, rng.Uint64()), rng.Uint64())
		}
		st := results.Stamp{Run: rec.Run, Producer: id, Seq: seq, Intended: due, Sent: rec.Clock.Now()}
		st.Put(r.Value)
		shard.Sent.Add(1)
		cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				shard.RecordFailure()
				return
			}
			shard.RecordAck(st, rec.Clock.Now())
		})
	}
	return flush(cl, c, false)
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
