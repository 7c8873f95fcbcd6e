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
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// The JIT warm-up's topic has warmupPartitions; its producers stop
// warmupCatchUp before its time bound, so the members end with the backlog
// taken.
const (
	warmupPartitions = 4
	warmupCatchUp    = 3 * time.Second
)

// warmupConfig is the JIT warm-up: the harness's producer fleet with
// Producer's settings (a run's: rate, producers, record size, keys, acks,
// linger, batch size) sends while a consumer group and a share group of
// Members members each consume, polling up to PollRecords (warmupFor takes
// these from the runs). It goes on at least MinTime and at most Time, and
// stops between the two once the brokers' JIT compile rate over the last
// Window is at most SettledRate per broker (jitSettled); without a JIT
// reading, at MinTime.
type warmupConfig struct {
	Producer    producer.Config // Brokers, Topic, Conn, Start and Duration are the warm-up's
	Members     int             // per group
	PollRecords int
	MinTime     time.Duration
	Time        time.Duration
	Window      time.Duration
	SettledRate float64
	// NoShare: the cluster's share groups are off (Kafka 4.1 without
	// share.version 1; its share runs were refused): prime and warm up
	// through a consumer group only, which no share member would consume.
	NoShare bool
}

// defaultWarmup is the warm-up without runs to copy (warmupFor's starting
// point). The window spans ten 1 s scrapes, so that one large method's
// compilation (tens to hundreds of ms) or a short lull does not decide
// alone; 0.02 compile-s per s is 2 % of one compiler thread. MinTime lets
// the first window fill. Measured on Kafka 4.2.2 on this project's 2-core
// host (docs/lab/README.md, "The runs' request pattern"), a broker's
// compiler, one C2 thread there, is busy for over a minute under a new
// load: large batches through one member per group (the earlier warm-up)
// left the first arm compiling as much as without a warm-up, while the
// runs' pattern for 90 s cut its excess compile time from 7–8 s to 1.4 s.
var defaultWarmup = warmupConfig{Producer: producer.Config{Producers: 2, Rate: 2000, MessageSize: 256, KeyMode: "none", Acks: "all"},
	Members: 4, PollRecords: 20,
	MinTime: 10 * time.Second, Time: scenarios.DefaultJITWarmup, Window: 10 * time.Second, SettledRate: 0.02}

// warmupFor is the warm-up for a cluster's runs, bounded by bound: their
// request pattern, so that the broker's per-request paths the runs take
// are the ones compiled. The producers of the rate-mode run with the
// highest rate (the first run when none is rate mode), at that rate from
// 500 to 4,000 records/s (2,000 when none is rate mode), 1 to 4 of them,
// records of up to 16 KiB, without a rate_schedule; the most members of any
// run (1 to 8) per group; the first run's max_poll_records (up to 500).
func warmupFor(specs []scenarios.RunSpec, bound time.Duration) warmupConfig {
	w := defaultWarmup
	w.Time = bound
	if len(specs) == 0 {
		return w
	}
	w.PollRecords = min(max(specs[0].MaxPollRecords, 1), 500)
	from, top := specs[0], -1.0
	members := 1
	for _, s := range specs {
		members = max(members, s.Members)
		if s.LoadMode == scenarios.LoadRate && s.Rate > top {
			from, top = s, s.Rate
		}
	}
	w.Members = min(members, 8)
	p := producerConfig(from, nil, "")
	p.Profile = nil
	p.Producers = min(max(p.Producers, 1), 4)
	p.MessageSize = min(max(p.MessageSize, results.StampSize), 16<<10)
	p.Rate = defaultWarmup.Producer.Rate
	if top > 0 {
		p.Rate = min(max(top, 500), 4000)
	}
	w.Producer = p
	return w
}

// primeCluster prepares a fresh cluster before the first run, outside any
// measurement, with warm, the JIT warm-up (warmupFor): the runs' request
// pattern through a consumer group and a share group on a throwaway topic
// until the brokers' JIT compile rate has settled or warm's bounds end it,
// so that the broker's produce, fetch, share-fetch, acknowledge and
// offset-commit paths are compiled before the first measured run. It also
// makes Kafka create its internal topics (__consumer_offsets,
// __share_group_state) and load the coordinators: otherwise the first run
// of a campaign pays seconds of one-time set-up inside its warm-up or
// window. What the warm-up did is returned for the environment record
// (run.json and campaign.json environment.priming).
//
// metricsURLs are scraped during the warm-up as a run scrapes them, so the
// brokers' metrics exporter is compiled too before the scrape calibration
// and the runs. A warm without a time (jit_warmup 0, --jit-warmup=false:
// only to measure what the warm-up buys) moves one record through each
// group type instead, for the internal topics and coordinators, and
// records that the warm-up was skipped.
func primeCluster(ctx context.Context, brokers []string, nodes int, metricsURLs []string, warm warmupConfig, conn ...kgo.Opt) (*runs.Priming, error) {
	adm, err := newAdmin(brokers, conn...)
	if err != nil {
		return nil, err
	}
	defer adm.close()
	if warm.Time <= 0 {
		if err := primeInternal(ctx, adm, brokers, nodes, !warm.NoShare, conn...); err != nil {
			return nil, err
		}
		return &runs.Priming{JITWarmup: false}, nil
	}
	scraper := collectors.NewBrokerScraper(metricsURLs, primingScrapeInterval) // none: does nothing
	scraper.Start(ctx)
	defer scraper.Stop()
	return warmUp(ctx, adm, brokers, nodes, scraper, warm, conn...)
}

// primeInternal moves one record through a consumer group and (share) a
// share group on a throwaway topic: Kafka creates its internal topics and
// loads the coordinators.
func primeInternal(ctx context.Context, adm *admin, brokers []string, nodes int, share bool, conn ...kgo.Opt) error {
	topic := "sharebench-prime-" + randomSuffix()
	if err := adm.createTopic(ctx, topic, 1, min(nodes, 3)); err != nil {
		return err
	}
	defer func() { _ = adm.deleteTopic(context.WithoutCancel(ctx), topic) }() // a priming topic left behind holds one record
	p, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic)}, conn...)...)
	if err != nil {
		return err
	}
	defer p.Close()
	if err := p.ProduceSync(ctx, kgo.StringRecord("prime")).FirstErr(); err != nil {
		return fmt.Errorf("prime: produce: %w", err)
	}
	groups := []kgo.Opt{kgo.ConsumerGroup(topic + "-consumer")}
	if share {
		shareGroup := topic + "-share"
		if err := adm.setGroupConfig(ctx, shareGroup, map[string]string{"share.auto.offset.reset": "earliest"}); err != nil {
			return err
		}
		groups = append(groups, kgo.ShareGroup(shareGroup))
	}
	for _, opt := range groups {
		if err := consumeOne(ctx, brokers, topic, opt, conn...); err != nil {
			return err
		}
	}
	return nil
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

// warmUp is primeCluster's step 2: the runs' request pattern at a higher
// rate than a run sends it (cfg.Producers paced producers, cfg.Members
// members per group polling cfg.PollRecords, a consumer group committing
// every poll, a share group acknowledging every record), until the brokers'
// JIT compile rate has settled (read from scraper's samples) or a bound
// ends it; without a compile-time reading, cfg.MinTime. A warm-up that did
// not settle (a slow host) is not an error: it is recorded as it was.
func warmUp(ctx context.Context, adm *admin, brokers []string, nodes int, scraper *collectors.BrokerScraper, cfg warmupConfig, conn ...kgo.Opt) (*runs.Priming, error) {
	topic := "sharebench-warmup-" + randomSuffix()
	if err := adm.createTopic(ctx, topic, warmupPartitions, min(nodes, 3)); err != nil {
		return nil, err
	}
	defer func() { _ = adm.deleteTopic(context.WithoutCancel(ctx), topic) }()
	shareGroup := topic + "-share"
	if !cfg.NoShare {
		if err := adm.setGroupConfig(ctx, shareGroup, map[string]string{"share.auto.offset.reset": "earliest"}); err != nil {
			return nil, err
		}
	}
	began := time.Now()
	wctx, cancel := context.WithTimeout(ctx, cfg.Time)
	defer cancel()
	w := &warmupState{cfg: cfg, settledRate: cfg.SettledRate * float64(max(nodes, 1)), began: began}
	w.target.Store(math.MaxInt64)
	g, gctx := errgroup.WithContext(wctx)
	// The settle (or MinTime without a JIT reading) stops the producers
	// only: the members then take what was produced, and the time bound
	// ends whatever is left. Without a settle the producers stop
	// warmupCatchUp before the bound, so the members end with the backlog
	// taken.
	pctx, stopProducing := context.WithTimeout(gctx, cfg.Time-min(warmupCatchUp, cfg.Time/4))
	defer stopProducing()
	g.Go(func() error {
		defer func() { w.target.Store(w.produced.Load()) }()
		return w.produce(pctx, brokers, topic, conn...)
	})
	g.Go(func() error { w.watchJIT(gctx, stopProducing, scraper); return nil })
	for _, c := range []struct {
		group kgo.Opt
		n     *atomic.Int64
		share bool
	}{{kgo.ConsumerGroup(topic + "-consumer"), &w.byConsumer, false}, {kgo.ShareGroup(shareGroup), &w.byShare, true}} {
		if c.share && cfg.NoShare {
			continue
		}
		for range cfg.Members {
			g.Go(func() error {
				return warmupConsume(gctx, brokers, topic, c.group, c.share, cfg.PollRecords, c.n, &w.target, conn...)
			})
		}
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
		RatePerSec: cfg.Producer.Rate, Producers: cfg.Producer.Producers, RecordBytes: cfg.Producer.MessageSize,
		MembersPerGroup: cfg.Members, PollRecords: cfg.PollRecords,
		MinTimeSec: cfg.MinTime.Seconds(), TimeLimitSec: cfg.Time.Seconds()}
	if compiled, ok := collectors.JITCompiled(scraper.Samples()); ok {
		w.mu.Lock()
		p.JIT = &runs.PrimingJIT{CompileSec: compiled, EndRate: w.lastRate, TargetRate: w.settledRate,
			WindowSec: cfg.Window.Seconds(), Settled: w.settled, Rates: w.rates}
		w.mu.Unlock()
	}
	return p, nil
}

// warmupState is what the warm-up's producers, members and JIT watcher
// share.
type warmupState struct {
	cfg                           warmupConfig
	began                         time.Time
	produced, byConsumer, byShare atomic.Int64
	// target is the records each group stops at: none (MaxInt64) while
	// the producers go on, the records they produced once they stopped.
	target      atomic.Int64
	settledRate float64 // cfg.SettledRate × brokers

	mu       sync.Mutex
	rates    []float64
	lastRate float64
	settled  bool
}

// jitSettled is the warm-up's stop decision: at least minTime spent, and
// the brokers' compile rate over the last window (rateOK: readable) at
// most settledRate.
func jitSettled(spent, minTime time.Duration, rate float64, rateOK bool, settledRate float64) bool {
	return spent >= minTime && rateOK && rate <= settledRate
}

// watchJIT reads the brokers' compile rate from scraper's samples every
// second and stops the producers (stopProducing) once jitSettled; when the
// brokers give no compile time, at cfg.MinTime.
func (w *warmupState) watchJIT(ctx context.Context, stopProducing context.CancelFunc, scraper *collectors.BrokerScraper) {
	for retry.Sleep(ctx, primingScrapeInterval) {
		spent := time.Since(w.began)
		if spent >= w.cfg.MinTime && !jitReadable(ctx, scraper) {
			stopProducing()
			return
		}
		rate, ok := collectors.JITRate(scraper.Samples(), w.cfg.Window)
		if !ok {
			continue
		}
		w.mu.Lock()
		w.rates = append(w.rates, math.Round(rate*1e4)/1e4)
		w.lastRate = rate
		done := jitSettled(spent, w.cfg.MinTime, rate, ok, w.settledRate)
		w.settled = w.settled || done
		w.mu.Unlock()
		if done {
			stopProducing()
			return
		}
	}
}

// jitReadable reports whether scraper's samples give the brokers' compile
// time. The first scrape may not have landed yet, so it waits, at most 5 s, until every endpoint
// has a sample; no endpoint, or samples without the series, is no.
func jitReadable(ctx context.Context, scraper *collectors.BrokerScraper) bool {
	if scraper == nil {
		return false
	}
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

// produce runs the harness's producer fleet with the warm-up's producer
// settings to topic until ctx ends (the settle, or warmupCatchUp before
// the time bound), counting what the brokers acknowledged.
func (w *warmupState) produce(ctx context.Context, brokers []string, topic string, conn ...kgo.Opt) error {
	c := w.cfg.Producer
	c.Brokers, c.Topic, c.Conn = brokers, topic, conn
	clock := results.NewClock()
	c.Start, c.Duration = clock.Now(), w.cfg.Time
	c.FlushTimeout = 5 * time.Second
	perProducer, err := c.PerProducerMax()
	if err != nil {
		return err
	}
	rec := results.NewRecorder(clock, results.RunTag("sharebench-warmup"), results.NewLedger(c.Producers, perProducer),
		results.NewSeries(clock.Now(), int(c.Duration/time.Second)+60))
	err = producer.Run(ctx, c, rec)
	w.produced.Store(int64(rec.Merge().Acked)) // the members' target, once the producers are done
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("produce: %w", err)
	}
	return nil
}

// warmupConsume consumes until its group has target records or ctx ends;
// a share member accepts each record explicitly, a consumer group member
// commits after every poll. Each poll waits at most a second, so a target
// set while it waits is seen.
func warmupConsume(ctx context.Context, brokers []string, topic string, group kgo.Opt, share bool, poll int, n, target *atomic.Int64, conn ...kgo.Opt) error {
	opts := append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic), group,
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100 * time.Millisecond)}, conn...)
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
		fs := cl.PollRecords(pctx, poll)
		cancel()
		if ctx.Err() != nil {
			return nil // the bound: what was consumed is recorded
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
	return fmt.Sprintf("compiled %.1fs, last %.0fs at %.3f compile-s/s (target %.3f): %s",
		j.CompileSec, j.WindowSec, j.EndRate, j.TargetRate, verdict)
}
