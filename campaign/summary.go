package campaign

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

func producerConfig(s scenarios.RunSpec, brokers []string, topic string) producer.Config {
	return producer.Config{
		Brokers: brokers, Topic: topic, Producers: s.Producers, Rate: s.Rate,
		MessageSize: s.MessageSize, KeyMode: s.KeyMode, Acks: s.Acks,
		Linger: s.Linger, BatchSize: s.BatchSize, Duration: s.Warmup + s.Duration,
		Keys: s.Keys, HotShare: s.HotKeys.Share, HotKeys: s.HotKeys.Keys,
		PartitionSkew: s.PartitionSkew, Partitions: s.Partitions,
		Profile: rateProfile(s),
	}
}

// rateProfile is the producers' rate over warm-up + window from the
// rate_schedule: list: the warm-up at the schedule's first rate, then its
// steps (nil without one, or when it does not build: validation refused
// such a schedule already).
func rateProfile(s scenarios.RunSpec) *producer.Profile {
	if len(s.RateSchedule) == 0 {
		return nil
	}
	segs := make([]producer.Segment, len(s.RateSchedule))
	for i, st := range s.RateSchedule {
		segs[i] = producer.Segment{Dur: st.Duration, From: st.From, To: st.To}
	}
	p, err := producer.NewProfile(s.Warmup, segs)
	if err != nil {
		return nil
	}
	return p
}

func consumerConfig(s scenarios.RunSpec, brokers []string, topic, group string) consumers.Config {
	p := s.Processing
	c := consumers.Config{
		Brokers: brokers, Topic: topic, Group: group,
		Type: s.ConsumerType, Members: s.Members, Workers: s.Workers,
		MaxPollRecords: s.MaxPollRecords, Acquire: cmp.Or(s.AcquireMode, consumers.AcquireBatchOptimized),
		Ack: consumers.AckImplicit,
		Processing: consumers.Processing{Model: consumers.ProcessingModel(p.Model), Time: p.Time, Min: p.Min, Max: p.Max,
			Mean: p.Mean, Median: p.Median, P99: p.P99},
		TransientRate: s.TransientRate, PoisonRate: s.PoisonRate, StuckRate: s.StuckRate,
		DeliveryLimit: s.DeliveryCountLimit(),
		Renew:         s.Renew == vocab.RenewAuto,
		Style:         cmp.Or(s.Style, consumers.StyleBlocking), MaxInFlight: s.MaxInFlight,
		SessionTimeout: sessionTimeout(s), LockDuration: s.RecordLockDuration(),
		Client: s.Client, KafkaVersion: s.KafkaVersion,
		Fetch: consumers.Fetch{MaxBytes: int32(s.FetchMaxBytes), MaxPartitionBytes: int32(s.FetchMaxPartitionBytes),
			MaxWait: s.EffectiveFetchMaxWait(), MinBytes: int32(s.FetchMinBytes), Prefetch: s.Prefetch.Forced()},
		Groups: groupKnobs(s),
	}
	if s.Client.Runner() {
		c.OwnJVM = crashTargets(s)
	}
	if s.ConsumerType != consumers.ShareGroup {
		c.Type = consumers.ConsumerGroup
	}
	if s.AckMode == consumers.AckExplicit {
		c.Ack = consumers.AckExplicit
	}
	return c
}

// defaultMinSessionTimeout is Kafka's group.min.session.timeout.ms default.
const defaultMinSessionTimeout = 6 * time.Second

// sessionTimeout is the consumer-group session timeout of a run that
// crashes members: the broker's minimum (group.min.session.timeout.ms from
// broker_config, else Kafka's 6 s), so a crashed member's partitions move
// soon; 0 (franz-go's 45 s) otherwise. The harness uses the classic group
// protocol (franz-go without ServerSideBalancer).
func sessionTimeout(s scenarios.RunSpec) time.Duration {
	if s.ConsumerType != vocab.ShareGroup && s.SessionTimeout > 0 {
		return s.SessionTimeout // session_timeout (classic only; validated)
	}
	if s.ConsumerType != vocab.ShareGroup && s.GroupProtocol == vocab.ProtocolConsumer {
		return 0 // KIP-848: the broker's group.consumer.session.timeout.ms (consumerSessionTimeout)
	}
	if s.ConsumerType == vocab.ShareGroup || !slices.ContainsFunc(s.Events, func(e scenarios.Event) bool { return e.Action == scenarios.ActionCrash }) {
		return 0
	}
	if ms, err := strconv.Atoi(s.BrokerConfig["group.min.session.timeout.ms"]); err == nil && ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return defaultMinSessionTimeout
}

// crashGrace is how long a crashed member's records stay out of reach:
// the share lock duration, else the consumer group's session timeout (the
// broker's with KIP-848).
func crashGrace(s scenarios.RunSpec) time.Duration {
	grace := s.RecordLockDuration()
	if s.ConsumerType != vocab.ShareGroup {
		grace = sessionTimeout(s)
	}
	if s.ConsumerType != vocab.ShareGroup && s.GroupProtocol == vocab.ProtocolConsumer {
		grace = consumerSessionTimeout(s)
	}
	return grace
}

// measured hands what the run measured to runs.FromMeasurement, which
// builds its record.
func (r *run) measured() *Measured {
	s, rc, f := r.setup, r.rc, r.fleet
	m := rc.rec.Merge()
	in := runs.Measurement{Spec: s.spec, RunID: s.id, Merged: m, Audit: rc.rec.Ledger.Audit(), DeadLetter: s.dlq, Destination: s.destIn,
		Window: rc.window, Series: rc.series, LoadStart: rc.start, StartedAt: rc.clock.Time(rc.start), Environment: s.env,
		Client: clientRecord(s.spec, rc.rec), TopicConfig: maps.Clone(topicConfigs),
		GroupConfig: s.groupCfg, Group: s.groupInfo, PerPartition: r.times.form.perPartition,
		FormationSec: r.times.form.sec, FormationRounds: r.times.form.rounds, FillSec: r.times.fill,
		DrainSec: r.times.drain, DrainTimedOut: errors.Is(f.drainErr, errDrainTimeout),
		Stall: f.stalled, Fired: mergeEvents(f.fired, f.scaled), Scaler: f.scalerLog, CrashGrace: crashGrace(s.spec), Errors: f.errs, ProduceOnly: r.times.produceOnly,
		Settle: r.times.settle, Shards: r.ld.record()}
	cs := r.ld.clientStats()
	in.ClientStats = &runs.ClientHistograms{Buffered: cs.Buffered, PerAcquisition: cs.PerAcquisition, PerResponse: cs.PerResponse}
	in.Requests = cs.Requests
	in.FetchWait = fetchWaitInput(s.spec, r.times.form.brokers)
	_, in.LastEvent, in.HasSpan = rc.rec.Span()
	in.Resources = rc.cpu.usage()
	if in.Resources.Seconds > 0 { // the collectors' own CPU over the same window (collectors.CPUMeter)
		if d, ok := collectors.CollectorCPU(rc.clock.Time(rc.window.Start), rc.clock.Time(rc.window.End),
			rc.scraper.CPU(), rc.lag.CPU(), rc.procs.CPU()); ok {
			in.Resources.SetCollectorCPU(d.Seconds())
		}
	}
	if mx := collectors.MaxHarnessRSS(rc.procs.Samples()); mx > 0 {
		mib := float64(mx) / (1 << 20)
		in.Resources.HarnessRSSMaxMiB = &mib
	}
	in.Harness = harnessSamples(rc.procs.Samples(), rc.clock.Time(rc.window.Start), rc.clock.Time(rc.window.End))
	completedPerSec := float64(m.CompletedInWindow) / rc.window.Seconds() // the record's throughput.completed_per_sec
	in.Broker = brokerSummary(rc.scraper, rc.clock, rc.window, completedPerSec*rc.window.Seconds())
	if len(s.cl.PIDs()) > 0 { // the brokers' /proc CPU at the window's edges, not the exporters'
		collectors.UseProcCPU(&in.Broker, in.Resources.BrokerCPUSeconds, in.Resources.Seconds, m.CompletedInWindow, runtime.NumCPU())
	}
	in.BrokerScrapes = collectors.ScrapesIn(rc.scraper.Samples(), rc.clock.Time(rc.window.Start), rc.clock.Time(rc.window.End))
	recordLockLimit(&in.Broker, s.spec) // groupconfig.go
	for _, line := range collectors.UnavailableLines(in.Broker.Naming, in.Broker.Unavailable, in.Broker.CPUSource) {
		fmt.Fprintf(s.log, "  %s: %s\n", s.id, line) // e.g. broker CPU: unavailable from this exporter (strimzi)
	}
	in.Lag = rc.lag.Summary(rc.clock.Time(rc.window.End))
	in.Checks = s.conn.validity(runs.ValidityInput{ // with tls_insecure and throttled from the connection
		IsKafka: s.cl.IsKafka(), HarnessCPUPercent: in.Resources.HarnessPercent, HostCPUPercent: in.Resources.HostPercent,
		Errors: f.errs, ClientExit: f.clientExit, Collectors: collectorHealth(in.Broker, in.Lag, rc.lag.Missing(rc.clock.Time(rc.window.End))),
	})
	rr := runs.FromMeasurement(in)
	fillGauges(rc.series, rc.scraper, rc.lag, rc.procs)
	return &Measured{Record: rr, Merged: m, Series: rc.series, Files: f.stallFiles}
}

// fillGauges writes the samplers' readings into the series' gauge columns.
func fillGauges(series *results.Series, scraper *collectors.BrokerScraper, lag *collectors.LagSampler, procs *collectors.ProcSampler) {
	collectors.FillBrokerGauges(series, scraper.Samples(), runtime.NumCPU())
	collectors.FillLagGauge(series, lag.Samples(), lag.Gaps())
	collectors.FillProcGauges(series, procs.Samples(), runtime.NumCPU())
}

// harnessSamples are the /proc readings taken in the window [start, end],
// as run.json's harness block takes them (runs.NewHarnessSeries).
func harnessSamples(samples []collectors.ProcSample, start, end time.Time) []runs.HarnessSample {
	var out []runs.HarnessSample
	for _, s := range samples {
		if s.At.Before(start) || s.At.After(end) {
			continue
		}
		out = append(out, runs.HarnessSample{AtSec: s.At.Sub(start).Seconds(), RSSBytes: s.HarnessRSSBytes,
			Goroutines: s.Goroutines, OpenFiles: s.OpenFiles,
			RecorderBytes: s.Recorder.Bounded(), IntervalLogBytes: s.Recorder.IntervalLogs})
	}
	return out
}
