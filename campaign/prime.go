package campaign

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sync/errgroup"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/results/runs"
)

// The JIT warm-up's bounds: it produces at most warmupRecords records of
// warmupRecordBytes each, and stops producing and consuming at warmupTime
// whatever it reached. On an idle 2-core host it moves the records in a few
// seconds; on a loaded one the time bound ends it.
const (
	warmupRecords     = 40_000
	warmupRecordBytes = 256
	warmupTime        = 20 * time.Second
	warmupPartitions  = 4
)

// primeCluster prepares a fresh cluster before the first run, outside any
// measurement, in two steps:
//
//  1. one record through a consumer group and a share group on a throwaway
//     topic, so Kafka creates its internal topics (__consumer_offsets,
//     __share_group_state) and loads the coordinators: otherwise the first
//     run of a campaign pays seconds of one-time set-up inside its warm-up
//     or window;
//  2. a JIT warm-up under load: a bounded burst (warmupRecords, warmupTime)
//     produced to a second throwaway topic while a consumer group and a
//     share group (explicit acknowledgement) consume it at once, so the
//     broker's produce, fetch, share-fetch, acknowledge and offset-commit
//     paths are compiled before the first measured run and the first arm
//     of a campaign does not pay the fresh JVM's warm-up in its broker CPU.
//
// What step 2 did is returned for the environment record (run.json and
// campaign.json environment.priming).
//
// metricsURLs are scraped during step 2 as a run scrapes them, so the
// brokers' metrics exporter is compiled too before the scrape calibration
// and the runs. jit false skips step 2 (Options.NoJITWarmup: only to
// measure what the warm-up buys) and records that it was skipped.
func primeCluster(ctx context.Context, brokers []string, nodes int, metricsURLs []string, jit bool, conn ...kgo.Opt) (*runs.Priming, error) {
	adm, err := newAdmin(brokers, conn...)
	if err != nil {
		return nil, err
	}
	defer adm.close()
	topic := "sharebench-prime-" + randomSuffix()
	if err := adm.createTopic(ctx, topic, 1, min(nodes, 3)); err != nil {
		return nil, err
	}
	defer func() { _ = adm.deleteTopic(context.WithoutCancel(ctx), topic) }() // a priming topic left behind holds one record
	p, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic)}, conn...)...)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	if err := p.ProduceSync(ctx, kgo.StringRecord("prime")).FirstErr(); err != nil {
		return nil, fmt.Errorf("prime: produce: %w", err)
	}
	shareGroup := topic + "-share"
	if err := adm.setGroupConfig(ctx, shareGroup, map[string]string{"share.auto.offset.reset": "earliest"}); err != nil {
		return nil, err
	}
	for _, opt := range []kgo.Opt{
		kgo.ConsumerGroup(topic + "-consumer"),
		kgo.ShareGroup(shareGroup),
	} {
		if err := consumeOne(ctx, brokers, topic, opt, conn...); err != nil {
			return nil, err
		}
	}
	if !jit {
		return &runs.Priming{JITWarmup: false, RecordsLimit: warmupRecords, TimeLimitSec: warmupTime.Seconds()}, nil
	}
	scraper := collectors.NewBrokerScraper(metricsURLs, brokerScrapeInterval) // none: does nothing
	scraper.Start(ctx)
	defer scraper.Stop()
	return warmUp(ctx, adm, brokers, nodes, conn...)
}

func consumeOne(ctx context.Context, brokers []string, topic string, group kgo.Opt, conn ...kgo.Opt) error {
	opts := append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic), group,
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, conn...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	for {
		fs := cl.PollRecords(ctx, 10)
		if ctx.Err() != nil {
			return fmt.Errorf("prime: no record consumed from %s within 90s", topic)
		}
		if len(fs.Records()) > 0 {
			if err := cl.FlushAcks(ctx); err != nil {
				return fmt.Errorf("prime: flush acks: %w", err)
			}
			return nil
		}
	}
}

// warmUp is primeCluster's step 2: produce up to warmupRecords while a
// consumer group and a share group consume them, for at most warmupTime.
// A warm-up that moved fewer records than it aimed at (a slow host) is not
// an error: it is recorded as it was.
func warmUp(ctx context.Context, adm *admin, brokers []string, nodes int, conn ...kgo.Opt) (*runs.Priming, error) {
	topic := "sharebench-warmup-" + randomSuffix()
	if err := adm.createTopic(ctx, topic, warmupPartitions, min(nodes, 3)); err != nil {
		return nil, err
	}
	defer func() { _ = adm.deleteTopic(context.WithoutCancel(ctx), topic) }()
	shareGroup := topic + "-share"
	if err := adm.setGroupConfig(ctx, shareGroup, map[string]string{"share.auto.offset.reset": "earliest"}); err != nil {
		return nil, err
	}
	began := time.Now()
	wctx, cancel := context.WithTimeout(ctx, warmupTime)
	defer cancel()
	var produced, byConsumer, byShare atomic.Int64
	g, gctx := errgroup.WithContext(wctx)
	g.Go(func() error { return warmupProduce(gctx, brokers, topic, &produced, conn...) })
	for _, c := range []struct {
		group kgo.Opt
		n     *atomic.Int64
		share bool
	}{{kgo.ConsumerGroup(topic + "-consumer"), &byConsumer, false}, {kgo.ShareGroup(shareGroup), &byShare, true}} {
		g.Go(func() error { return warmupConsume(gctx, brokers, topic, c.group, c.share, c.n, conn...) })
	}
	err := g.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("prime: JIT warm-up: %w", err)
	}
	return &runs.Priming{JITWarmup: true, DurationSec: time.Since(began).Seconds(),
		RecordsProduced: produced.Load(), ConsumedConsumerGroup: byConsumer.Load(), ConsumedShareGroup: byShare.Load(),
		RecordsLimit: warmupRecords, TimeLimitSec: warmupTime.Seconds()}, nil
}

// warmupProduce sends warmupRecords records as fast as the broker takes
// them, at most 10,000 unacknowledged at once.
func warmupProduce(ctx context.Context, brokers []string, topic string, produced *atomic.Int64, conn ...kgo.Opt) error {
	p, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic),
		kgo.MaxBufferedRecords(10_000), kgo.ProducerLinger(5 * time.Millisecond)}, conn...)...)
	if err != nil {
		return err
	}
	defer p.Close()
	value := make([]byte, warmupRecordBytes)
	var mu sync.Mutex
	var first error
	for range warmupRecords {
		if ctx.Err() != nil {
			break
		}
		p.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
			if err == nil {
				produced.Add(1)
				return
			}
			mu.Lock()
			if first == nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				first = err
			}
			mu.Unlock()
		})
	}
	_ = p.Flush(ctx) // bounded by ctx (warmupTime)
	mu.Lock()
	defer mu.Unlock()
	if first != nil {
		return fmt.Errorf("produce: %w", first)
	}
	return nil
}

// warmupConsume consumes until it has every record the warm-up may produce
// or ctx ends; a share member accepts each record explicitly, a consumer
// group member commits after every poll.
func warmupConsume(ctx context.Context, brokers []string, topic string, group kgo.Opt, share bool, n *atomic.Int64, conn ...kgo.Opt) error {
	opts := append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic), group,
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(500 * time.Millisecond)}, conn...)
	if !share {
		opts = append(opts, kgo.DisableAutoCommit())
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	for n.Load() < warmupRecords {
		fs := cl.PollRecords(ctx, 500)
		if ctx.Err() != nil {
			return nil // the time bound: what was consumed is recorded
		}
		recs := fs.Records()
		if share {
			for _, r := range recs {
				r.Ack(kgo.AckAccept)
			}
		} else if len(recs) > 0 {
			if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
				return fmt.Errorf("commit: %w", err)
			}
		}
		n.Add(int64(len(recs)))
	}
	if share {
		_ = cl.FlushAcks(ctx)
	}
	return nil
}
