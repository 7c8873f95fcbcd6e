package campaign

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sync/errgroup"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/internal/retry"
	"github.com/sharebench/sharebench/results/runs"
)

// The JIT warm-up's records: warmupRecordBytes each, to a topic of
// warmupPartitions.
const (
	warmupRecordBytes = 256
	warmupPartitions  = 4
)

// warmupConfig bounds the JIT warm-up. It produces rounds of Records
// records, as fast as the brokers take them, while a consumer group and a
// share group consume. Without a JIT reading (no metrics endpoint, or one
// without compile time) it stops after the first round, once both groups
// have consumed it. With one it goes on, a round taking at least MinRound,
// at most Rounds rounds and Time in all, until the brokers' JIT compile
// rate over the last Window is at most SettledRate per broker (jitSettled).
type warmupConfig struct {
	Records     int64
	Rounds      int
	MinRound    time.Duration
	Time        time.Duration
	Window      time.Duration
	SettledRate float64
}

// defaultWarmup is the campaigns' warm-up. A round lasts at least the rate
// window, so the rounds bound cannot end the warm-up before the compile
// rate was read (a fast cluster moves 40,000 records in well under a
// second). The window spans a few 1 s scrapes, so that one large method's
// compilation (tens to hundreds of ms) does not decide alone; 0.02
// compile-s per s is 2 % of one compiler thread. The bounds (2 rounds,
// 20 s) keep the warm-up near what it cost before it read the compiler
// (6–11 s on this project's 2-core host): measured on Kafka 4.2.2, 8
// rounds over 40 s never settled and left the first arm's window
// compiling as much as without any warm-up (docs/measured-results.md,
// "Compile time, measured"), so more rounds of this load buy nothing
// until the load matches the runs' request pattern.
var defaultWarmup = warmupConfig{Records: 40_000, Rounds: 2, MinRound: 5 * time.Second, Time: 20 * time.Second,
	Window: 5 * time.Second, SettledRate: 0.02}

// primeCluster prepares a fresh cluster before the first run, outside any
// measurement, in two steps:
//
//  1. one record through a consumer group and a share group on a throwaway
//     topic, so Kafka creates its internal topics (__consumer_offsets,
//     __share_group_state) and loads the coordinators: otherwise the first
//     run of a campaign pays seconds of one-time set-up inside its warm-up
//     or window;
//  2. a JIT warm-up under load: rounds of records produced to a second
//     throwaway topic while a consumer group and a share group (explicit
//     acknowledgement) consume them at once, until the brokers' JIT compile
//     rate has settled (bounded in rounds and time; one round when the
//     brokers' metrics give no compile time), so the broker's produce,
//     fetch, share-fetch, acknowledge and offset-commit paths are compiled
//     before the first measured run and the first arm of a campaign does
//     not pay the fresh JVM's warm-up in its broker CPU.
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
		return &runs.Priming{JITWarmup: false, RecordsLimit: defaultWarmup.Records * int64(defaultWarmup.Rounds), TimeLimitSec: defaultWarmup.Time.Seconds()}, nil
	}
	scraper := collectors.NewBrokerScraper(metricsURLs, brokerScrapeInterval) // none: does nothing
	scraper.Start(ctx)
	defer scraper.Stop()
	return warmUp(ctx, adm, brokers, nodes, scraper, defaultWarmup, conn...)
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

// warmUp is primeCluster's step 2: produce rounds of warmupRecords while a
// consumer group and a share group consume them, until the brokers' JIT
// compile rate has settled (read from scraper's samples) or a bound ends it;
// without a compile-time reading, one round. A warm-up that moved fewer
// records than it aimed at or did not settle (a slow host) is not an error:
// it is recorded as it was.
func warmUp(ctx context.Context, adm *admin, brokers []string, nodes int, scraper *collectors.BrokerScraper, cfg warmupConfig, conn ...kgo.Opt) (*runs.Priming, error) {
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
	wctx, cancel := context.WithTimeout(ctx, cfg.Time)
	defer cancel()
	w := &warmupState{cfg: cfg, settledRate: cfg.SettledRate * float64(max(nodes, 1))}
	w.target.Store(math.MaxInt64)
	g, gctx := errgroup.WithContext(wctx)
	// The settle or the rounds bound stops the producer only: the
	// consumers then take what it produced (both groups must have run
	// the paths; a share group can take seconds to form on a busy host),
	// and the time bound ends whatever is left.
	pctx, stopProducing := context.WithCancel(gctx)
	defer stopProducing()
	g.Go(func() error { return w.produce(pctx, brokers, topic, scraper, conn...) })
	g.Go(func() error { w.watchJIT(gctx, stopProducing, scraper); return nil })
	for _, c := range []struct {
		group kgo.Opt
		n     *atomic.Int64
		share bool
	}{{kgo.ConsumerGroup(topic + "-consumer"), &w.byConsumer, false}, {kgo.ShareGroup(shareGroup), &w.byShare, true}} {
		g.Go(func() error { return warmupConsume(gctx, brokers, topic, c.group, c.share, c.n, &w.target, conn...) })
	}
	err := g.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return nil, fmt.Errorf("prime: JIT warm-up: %w", err)
	}
	p := &runs.Priming{JITWarmup: true, DurationSec: time.Since(began).Seconds(),
		RecordsProduced: w.produced.Load(), ConsumedConsumerGroup: w.byConsumer.Load(), ConsumedShareGroup: w.byShare.Load(),
		RecordsLimit: cfg.Records * int64(cfg.Rounds), TimeLimitSec: cfg.Time.Seconds(), Rounds: int(w.rounds.Load())}
	if compiled, ok := collectors.JITCompiled(scraper.Samples()); ok {
		w.mu.Lock()
		p.JIT = &runs.PrimingJIT{CompileSec: compiled, EndRate: w.lastRate, TargetRate: w.settledRate,
			WindowSec: cfg.Window.Seconds(), Settled: w.settled, Rates: w.rates}
		w.mu.Unlock()
	}
	return p, nil
}

// warmupState is what the warm-up's producer, consumers and JIT watcher
// share.
type warmupState struct {
	cfg                           warmupConfig
	produced, byConsumer, byShare atomic.Int64
	rounds                        atomic.Int32
	// target is the records each consumer stops at: none (MaxInt64) while
	// the producer goes on, the records it produced once it stopped (the
	// settle, the rounds bound, or one round without a JIT reading).
	target      atomic.Int64
	settledRate float64 // cfg.SettledRate × brokers

	mu       sync.Mutex
	rates    []float64
	lastRate float64
	settled  bool
}

// jitSettled is the warm-up's stop decision: at least one round produced,
// and the brokers' compile rate over the last window (rateOK: readable) at
// most settledRate.
func jitSettled(rounds int, rate float64, rateOK bool, settledRate float64) bool {
	return rounds >= 1 && rateOK && rate <= settledRate
}

// watchJIT reads the brokers' compile rate from scraper's samples every
// second and stops the producer (stopProducing) once jitSettled.
func (w *warmupState) watchJIT(ctx context.Context, stopProducing context.CancelFunc, scraper *collectors.BrokerScraper) {
	if scraper == nil {
		return
	}
	for retry.Sleep(ctx, brokerScrapeInterval) {
		if w.target.Load() != math.MaxInt64 { // the producer is done: one round, or a bound
			return
		}
		rate, ok := collectors.JITRate(scraper.Samples(), w.cfg.Window)
		if !ok {
			continue
		}
		w.mu.Lock()
		w.rates = append(w.rates, math.Round(rate*1e4)/1e4)
		w.lastRate = rate
		done := jitSettled(int(w.rounds.Load()), rate, ok, w.settledRate)
		w.settled = w.settled || done
		w.mu.Unlock()
		if done {
			stopProducing()
			return
		}
	}
}

// produce sends rounds of cfg.Records, at most cfg.Rounds, each taking at
// least cfg.MinRound, until ctx ends (the settle); after the first round it
// stops when the brokers give no compile time (scraper's samples have
// none). However it stops, it sets the consumers' target to what it
// produced, so that they finish consuming it.
func (w *warmupState) produce(ctx context.Context, brokers []string, topic string, scraper *collectors.BrokerScraper, conn ...kgo.Opt) error {
	defer func() { w.target.Store(w.produced.Load()) }()
	for round := 1; round <= w.cfg.Rounds; round++ {
		began := time.Now()
		if err := warmupProduce(ctx, brokers, topic, w.cfg.Records, &w.produced, conn...); err != nil || ctx.Err() != nil {
			return err
		}
		w.rounds.Store(int32(round))
		if !jitReadable(ctx, scraper) {
			return nil
		}
		if !retry.Sleep(ctx, w.cfg.MinRound-time.Since(began)) {
			return nil
		}
	}
	return nil // the rounds bound: the watcher's last reading stands
}

// jitReadable reports whether scraper's samples give the brokers' compile
// time. A first round can end before the first scrape has landed (kfake
// moves it in milliseconds), so it waits, at most 5 s, until every endpoint
// has a sample; no endpoint, or samples without the series, is no.
func jitReadable(ctx context.Context, scraper *collectors.BrokerScraper) bool {
	for range 25 {
		ss := scraper.Samples()
		if len(ss) == 0 {
			return false
		}
		if _, ok := collectors.JITCompiled(ss); ok {
			return true
		}
		if !slices.ContainsFunc(ss, func(s []collectors.BrokerSample) bool { return len(s) == 0 }) {
			return false // every endpoint scraped, one without the series
		}
		if !retry.Sleep(ctx, 200*time.Millisecond) {
			return false
		}
	}
	return false
}

// warmupProduce sends n records as fast as the broker takes them, at most
// 10,000 unacknowledged at once.
func warmupProduce(ctx context.Context, brokers []string, topic string, n int64, produced *atomic.Int64, conn ...kgo.Opt) error {
	p, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic),
		kgo.MaxBufferedRecords(10_000), kgo.ProducerLinger(5 * time.Millisecond)}, conn...)...)
	if err != nil {
		return err
	}
	defer p.Close()
	value := make([]byte, warmupRecordBytes)
	var mu sync.Mutex
	var first error
	for range n {
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
	_ = p.Flush(ctx) // bounded by ctx (the warm-up's time bound)
	mu.Lock()
	defer mu.Unlock()
	if first != nil {
		return fmt.Errorf("produce: %w", first)
	}
	return nil
}

// warmupConsume consumes until it has target records or ctx ends; a share
// member accepts each record explicitly, a consumer group member commits
// after every poll. Each poll waits at most a second, so a target set while
// it waits is seen.
func warmupConsume(ctx context.Context, brokers []string, topic string, group kgo.Opt, share bool, n, target *atomic.Int64, conn ...kgo.Opt) error {
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
	for n.Load() < target.Load() {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		fs := cl.PollRecords(pctx, 500)
		cancel()
		if ctx.Err() != nil {
			return nil // the bound or the settle: what was consumed is recorded
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

// jitLine says in words what the brokers' JIT compiler did in the warm-up.
func jitLine(j *runs.PrimingJIT) string {
	if j == nil {
		return "no JIT compile time from the brokers' metrics: one round"
	}
	verdict := "settled"
	if !j.Settled {
		verdict = "not settled within the bounds"
	}
	return fmt.Sprintf("JIT compiled %.2fs, last %.0fs at %.3f compile-s/s (target %.3f): %s",
		j.CompileSec, j.WindowSec, j.EndRate, j.TargetRate, verdict)
}
