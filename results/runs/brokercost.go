package runs

import (
	"fmt"
	"slices"
	"strings"
)

// ScrapeShareLimit is the share of a run's broker CPU the harness's own
// scrapes may take before the cost figures subtract the measured
// calibration (ScrapeCost): 2 %.
const ScrapeShareLimit = 0.02

// BrokerCost is a run's broker CPU per record on a basis that treats a
// consumer group and a share group alike (docs/explanation/measurement.md, "Broker
// cost"). broker.cpu_seconds_per_million_records charges all the window's
// broker CPU to the records completed, so an arm that completes fewer than
// it produced is charged for producing; these figures separate the two.
type BrokerCost struct {
	// CPUSeconds is the brokers' CPU in the window (broker.cpu_seconds).
	CPUSeconds float64 `json:"cpu_seconds"`
	// Produced and Completed are the records produced (acknowledged) and
	// completed in the window; RecordsMoved their sum.
	Produced     int64 `json:"produced"`
	Completed    int64 `json:"completed"`
	RecordsMoved int64 `json:"records_moved"`
	// ScrapeCPUSeconds is the calibrated cost of the harness's scrapes in
	// the window (priming.scrape_cost.cpu_ms_per_scrape × the scrapes taken
	// in it); ScrapePercent its share of CPUSeconds. ScrapeSubtracted: the share exceeded
	// ScrapeShareLimit, so NetCPUSeconds excludes it.
	ScrapeCPUSeconds float64 `json:"scrape_cpu_seconds"`
	// Scrapes is the scrapes of the brokers' endpoints taken in the window
	// (every broker_metrics_interval, and one at the window's start).
	Scrapes          int     `json:"scrapes"`
	ScrapePercent    float64 `json:"scrape_percent"`
	ScrapeSubtracted bool    `json:"scrape_subtracted"`
	NetCPUSeconds    float64 `json:"net_cpu_seconds"`
	// MovedCPUSecondsPerMillion is NetCPUSeconds ÷ RecordsMoved × 10⁶.
	MovedCPUSecondsPerMillion float64 `json:"moved_cpu_seconds_per_million_records"`
	// ProduceOnly is the run's produce-only phase (absent when it was not
	// measured: load modes other than rate, sharded runs, no broker CPU).
	ProduceOnly *ProduceOnly `json:"produce_only,omitempty"`
	// ConsumeCPUSeconds is CPUSeconds − produce_only.cpu_cores × window:
	// the broker CPU the consumers added to producing at the run's rate
	// (the idle broker and the scrapes are in both terms and cancel).
	// ConsumeCPUSecondsPerMillion is it ÷ Completed × 10⁶. Both 0 without
	// a produce-only phase or with one that was still compiling
	// (Consumable); they can read below 0 when the consumers cost less
	// than the noise of the two CPU readings.
	ConsumeCPUSeconds           float64 `json:"consume_cpu_seconds"`
	ConsumeCPUSecondsPerMillion float64 `json:"consume_cpu_seconds_per_million_records"`
}

// ProduceOnly is a short phase before the run in which the run's producers
// send to a side topic nobody consumes, at the run's rate and settings,
// while the brokers are scraped as in the run: what producing alone costs
// the brokers.
type ProduceOnly struct {
	Sec        float64 `json:"s"`
	Records    int64   `json:"records"`
	CPUSeconds float64 `json:"cpu_seconds"`
	// CPUCores is CPUSeconds ÷ Sec.
	CPUCores float64 `json:"cpu_cores"`
	// CPUSecondsPerMillion is CPUSeconds ÷ Records × 10⁶ (the idle broker
	// and the scrapes included).
	CPUSecondsPerMillion float64 `json:"cpu_seconds_per_million_records"`
	// JITCompileSec is the brokers' JIT compile time over the measured
	// part, as broker.jit_compile_s over a run's window (absent when the
	// brokers' metrics give none).
	JITCompileSec *float64 `json:"jit_compile_s,omitempty"`
	// Compiling is true when JITCompileSec is at least JITShareLimit of
	// CPUSeconds: the brokers were still compiling the producers' paths,
	// so CPUCores is not what producing costs a warm broker and the
	// consume-side figures are withheld (Consumable).
	Compiling bool `json:"compiling,omitempty"`
}

// Consumable reports whether c's consume-side figures stand: a
// produce-only phase that was not still compiling.
func (c *BrokerCost) Consumable() bool {
	return c.ProduceOnly != nil && !c.ProduceOnly.Compiling
}

// BrokerCostInput is what ComputeBrokerCost needs.
type BrokerCostInput struct {
	CPUSeconds          float64 // brokers' CPU in the window
	WindowSec           float64
	Produced, Completed int64 // in the window
	// ScrapeCPUSeconds is what the harness's scrapes in the window cost
	// the brokers: the calibration's CPU per scrape × the scrapes taken in
	// the window (0: none measured).
	ScrapeCPUSeconds float64
	Scrapes          int // taken in the window
	// ProduceOnly is the produce-only phase (Sec 0: none).
	ProduceOnlySec     float64
	ProduceOnlyRecords int64
	ProduceOnlyCPU     float64
	ProduceOnlyJIT     *float64
}

// ComputeBrokerCost derives BrokerCost; nil when there is no broker CPU or
// no window.
func ComputeBrokerCost(in BrokerCostInput) *BrokerCost {
	if in.CPUSeconds <= 0 || in.WindowSec <= 0 {
		return nil
	}
	c := &BrokerCost{CPUSeconds: in.CPUSeconds, Produced: in.Produced, Completed: in.Completed,
		RecordsMoved: in.Produced + in.Completed, NetCPUSeconds: in.CPUSeconds}
	c.ScrapeCPUSeconds, c.Scrapes = in.ScrapeCPUSeconds, in.Scrapes
	c.ScrapePercent = 100 * c.ScrapeCPUSeconds / in.CPUSeconds
	if c.ScrapeCPUSeconds > ScrapeShareLimit*in.CPUSeconds {
		c.ScrapeSubtracted = true
		c.NetCPUSeconds = max(0, in.CPUSeconds-c.ScrapeCPUSeconds)
	}
	if c.RecordsMoved > 0 {
		c.MovedCPUSecondsPerMillion = c.NetCPUSeconds / float64(c.RecordsMoved) * 1e6
	}
	if in.ProduceOnlySec > 0 {
		p := &ProduceOnly{Sec: in.ProduceOnlySec, Records: in.ProduceOnlyRecords, CPUSeconds: in.ProduceOnlyCPU,
			CPUCores: in.ProduceOnlyCPU / in.ProduceOnlySec, JITCompileSec: in.ProduceOnlyJIT}
		if p.Records > 0 {
			p.CPUSecondsPerMillion = p.CPUSeconds / float64(p.Records) * 1e6
		}
		p.Compiling = p.JITCompileSec != nil && *p.JITCompileSec >= JITShareLimit*p.CPUSeconds
		c.ProduceOnly = p
		if !p.Compiling {
			c.ConsumeCPUSeconds = in.CPUSeconds - p.CPUCores*in.WindowSec
			if in.Completed > 0 {
				c.ConsumeCPUSecondsPerMillion = c.ConsumeCPUSeconds / float64(in.Completed) * 1e6
			}
		}
	}
	return c
}

// EqualThroughputTolerance is how close two runs' completed rates must be
// for their broker costs per record to count as compared at equal
// completed throughput: 5 %.
const EqualThroughputTolerance = 0.05

// CostDifference is a pair's share − consumer broker cost per record.
type CostDifference struct {
	Consumer, Share string // run ids
	// AtEqualPerMillion is share − consumer of net broker CPU ÷ records
	// completed × 10⁶: at equal completed throughput both arms produced and
	// completed alike, so the produce cost, the idle broker and the scrapes
	// fall on both and the difference is what the share group's consuming
	// costs more (or less) per record. Meaningful only when EqualThroughput.
	AtEqualPerMillion float64
	// ConsumePerMillion is share − consumer of
	// broker_cost.consume_cpu_seconds_per_million_records (HasConsume: both
	// runs had a produce-only phase); MovedPerMillion the same of
	// moved_cpu_seconds_per_million_records.
	ConsumePerMillion, MovedPerMillion float64
	HasConsume                         bool
	// PooledConsumePerMillion is the consume-side difference with one
	// produce-only rate for both arms: the median PooledCores of the
	// campaign's PooledPhases produce-only phases with the pair's producer
	// settings (CostDifferences; 0 phases: not pooled). Both arms produced
	// alike, so one rate is right for both, and the median of several
	// phases resists a background burst of broker work that one 5 s phase
	// cannot.
	PooledConsumePerMillion, PooledCores float64
	PooledPhases                         int
	// EqualThroughput: the completed rates are within
	// EqualThroughputTolerance of their mean.
	EqualThroughput bool
	// CompletedRatio is share ÷ consumer completed records/s.
	CompletedRatio float64
	// ConsumerMovedPerMillion and ShareMovedPerMillion are each arm's own
	// broker_cost.moved_cpu_seconds_per_million_records, and
	// ConsumerCompletedPerSec, ShareCompletedPerSec and OfferedPerSec the
	// rates beside them: what the line shows side by side, without a
	// difference, when the arms are not at equal completed throughput.
	ConsumerMovedPerMillion, ShareMovedPerMillion float64
	ConsumerCompletedPerSec, ShareCompletedPerSec float64
	OfferedPerSec                                 float64
	// ConsumerJIT and ShareJIT are each arm's broker.jit_compile_s and
	// ConsumerCPU and ShareCPU its broker CPU in the window (JITKnown:
	// both arms have the compile time). Compiling names the arms whose
	// compile time is at least JITShareLimit of their broker CPU: the
	// brokers were still compiling in their windows.
	ConsumerJIT, ShareJIT, ConsumerCPU, ShareCPU float64
	JITKnown                                     bool
	Compiling                                    []string
}

// JITShareLimit is the share of the brokers' CPU that their JIT compile
// time may reach before a window counts as still compiling: 25 %. Above
// it the broker-cost line says so for a run's window, and a produce-only
// phase's rate is not used for the consume side (ProduceOnly.Compiling).
const JITShareLimit = 0.25

// jitCompileSeconds is r's broker.jit_compile_s; false when the brokers
// gave none.
func jitCompileSeconds(r *Record) (float64, bool) {
	b := &r.Broker
	return b.JITCompileSeconds, b.Samples > 0 && !slices.Contains(b.Unavailable, "jit_compile_s")
}

// BrokerCostDifference compares the pair's broker cost; false when either
// run has no broker cost.
func (p Pair) BrokerCostDifference() (CostDifference, bool) {
	c, s := p.Consumer.BrokerCost, p.Share.BrokerCost
	if c == nil || s == nil || c.Completed <= 0 || s.Completed <= 0 {
		return CostDifference{}, false
	}
	d := CostDifference{Consumer: p.Consumer.RunID, Share: p.Share.RunID,
		AtEqualPerMillion: (s.NetCPUSeconds/float64(s.Completed) - c.NetCPUSeconds/float64(c.Completed)) * 1e6,
		MovedPerMillion:   s.MovedCPUSecondsPerMillion - c.MovedCPUSecondsPerMillion,
		HasConsume:        c.Consumable() && s.Consumable()}
	if d.HasConsume {
		d.ConsumePerMillion = s.ConsumeCPUSecondsPerMillion - c.ConsumeCPUSecondsPerMillion
	}
	cr, sr := p.Consumer.Throughput.CompletedPerSec, p.Share.Throughput.CompletedPerSec
	d.ConsumerMovedPerMillion, d.ShareMovedPerMillion = c.MovedCPUSecondsPerMillion, s.MovedCPUSecondsPerMillion
	d.ConsumerCompletedPerSec, d.ShareCompletedPerSec = cr, sr
	d.OfferedPerSec = p.Consumer.Throughput.OfferedPerSec
	if cr > 0 {
		d.CompletedRatio = sr / cr
	}
	if mean := (cr + sr) / 2; mean > 0 {
		d.EqualThroughput = abs(sr-cr) <= EqualThroughputTolerance*mean
	}
	cj, cok := jitCompileSeconds(&p.Consumer)
	sj, sok := jitCompileSeconds(&p.Share)
	d.ConsumerJIT, d.ShareJIT, d.ConsumerCPU, d.ShareCPU, d.JITKnown = cj, sj, c.CPUSeconds, s.CPUSeconds, cok && sok
	if d.JITKnown {
		if cj >= JITShareLimit*c.CPUSeconds {
			d.Compiling = append(d.Compiling, "consumer")
		}
		if sj >= JITShareLimit*s.CPUSeconds {
			d.Compiling = append(d.Compiling, "share")
		}
	}
	return d, true
}

// jitClause says, when an arm's brokers were still compiling in its
// window, how much, and what moves it out; "" otherwise.
func (d CostDifference) jitClause() string {
	if len(d.Compiling) == 0 {
		return ""
	}
	return fmt.Sprintf(". The brokers were still compiling (JIT) in the %s arm's window: %.1f s and %.1f s of compile time "+
		"beside %.1f and %.1f broker CPU-s (consumer, share), so part of that cost is the fresh JVM's; a longer jit_warmup moves it out",
		strings.Join(d.Compiling, " and the "), d.ConsumerJIT, d.ShareJIT, d.ConsumerCPU, d.ShareCPU)
}

// Line is the difference in words, e.g. "r01-consumer-t0 vs r02-share-t0:
// broker cost share − consumer at equal completed throughput (share/consumer
// 1.00x): +310 s/M records completed; consume side +86 s/M; per record
// moved +94 s/M".
//
// A pair NOT at equal completed throughput gets no difference: each arm's
// own cost per record moved side by side, and why the two do not compare.
func (d CostDifference) Line() string {
	if !d.EqualThroughput {
		return d.apartLine()
	}
	line := fmt.Sprintf("%s vs %s: broker cost share − consumer at equal completed throughput (share/consumer %.2fx): %+.0f s/M records completed;",
		d.Consumer, d.Share, d.CompletedRatio, d.AtEqualPerMillion)
	if d.PooledPhases > 0 {
		line += fmt.Sprintf(" consume side %+.0f s/M (produce-only %.3f cores, the median of %d phases; each run's own phase: %+.0f);",
			d.PooledConsumePerMillion, d.PooledCores, d.PooledPhases, d.ConsumePerMillion)
	} else if d.HasConsume {
		line += fmt.Sprintf(" consume side %+.0f s/M;", d.ConsumePerMillion)
	}
	return line + fmt.Sprintf(" per record moved %+.0f s/M", d.MovedPerMillion) + d.jitClause()
}

// apartLine is Line for a pair whose completed rates are more than
// EqualThroughputTolerance apart, e.g. "r01-consumer vs r02-share: broker
// CPU per record moved, each arm's own: consumer 1850 s/M, share 1120 s/M.
// Not a share − consumer figure: the arms completed 339 and 1000 of 1000
// records/s (share/consumer 2.95x), …".
func (d CostDifference) apartLine() string {
	of := fmt.Sprintf("of %.0f records/s", d.OfferedPerSec)
	if d.OfferedPerSec <= 0 { // a backlog drain: nothing offered on a schedule
		of = "records/s draining the same backlog"
	}
	return fmt.Sprintf("%s vs %s: broker CPU per record moved, each arm's own: consumer %.0f s/M, share %.0f s/M. "+
		"Not a share − consumer figure: the arms completed %.0f and %.0f %s (share/consumer %.2fx), "+
		"so the arm that completes less moves fewer records (produced + completed) per second over the same fixed broker cost "+
		"(the idle broker, its coordinators, the scrapes) and in another mix of produced to consumed; compare at a rate both complete",
		d.Consumer, d.Share, d.ConsumerMovedPerMillion, d.ShareMovedPerMillion,
		d.ConsumerCompletedPerSec, d.ShareCompletedPerSec, of, d.CompletedRatio) + d.jitClause()
}

// CostSummary sums up the differences of the pairs at equal completed
// throughput: how many, in how many the share group cost the broker more
// per record (AtEqualPerMillion > 0), the median AtEqualPerMillion, and the
// median consume-side difference (HasConsume: every such pair had one).
type CostSummary struct {
	Pairs, ShareDearer int
	Median             float64
	ConsumeMedian      float64
	HasConsume         bool
}

// SummarizeCostDifferences summarizes ds; Pairs 0 when none was at equal
// completed throughput.
func SummarizeCostDifferences(ds []CostDifference) CostSummary {
	var at, consume []float64
	out := CostSummary{HasConsume: true}
	for _, d := range ds {
		if !d.EqualThroughput {
			continue
		}
		at = append(at, d.AtEqualPerMillion)
		if d.AtEqualPerMillion > 0 {
			out.ShareDearer++
		}
		out.HasConsume = out.HasConsume && d.HasConsume
		if d.PooledPhases > 0 {
			consume = append(consume, d.PooledConsumePerMillion)
		} else {
			consume = append(consume, d.ConsumePerMillion)
		}
	}
	out.Pairs = len(at)
	if out.Pairs == 0 {
		return CostSummary{}
	}
	out.Median = median(at)
	if out.HasConsume {
		out.ConsumeMedian = median(consume)
	}
	return out
}

// Line is the summary in words ("" without a pair at equal throughput).
func (s CostSummary) Line() string {
	if s.Pairs == 0 {
		return ""
	}
	line := fmt.Sprintf("broker cost at equal completed throughput: the share group cost the broker more per record in %d of %d pairs; median share − consumer %+.0f s/M records completed",
		s.ShareDearer, s.Pairs, s.Median)
	if s.HasConsume {
		line += fmt.Sprintf(" (consume side %+.0f s/M)", s.ConsumeMedian)
	}
	return line
}

// CostDifferences are the broker-cost differences of every pair of recs
// with a broker cost on both sides.
func CostDifferences(recs []Record) []CostDifference {
	var out []CostDifference
	for _, p := range Pairs(recs) {
		d, ok := p.BrokerCostDifference()
		if !ok {
			continue
		}
		if r, n := PooledProduceCores(recs, p.Consumer); n > 0 && d.HasConsume {
			d.PooledCores, d.PooledPhases = r, n
			d.PooledConsumePerMillion = consumeAt(p.Share, r) - consumeAt(p.Consumer, r)
		}
		out = append(out, d)
	}
	return out
}

// consumeAt is the run's consume-side CPU per million records completed
// with produce-only rate cores: (C − cores × W) ÷ N × 10⁶.
func consumeAt(r Record, cores float64) float64 {
	c := r.BrokerCost
	return (c.CPUSeconds - cores*r.Phases.MeasureSec) / float64(c.Completed) * 1e6
}

// PooledProduceCores is the median produce_only.cpu_cores of the runs of
// recs with r's producer settings and cluster (producerKey), and how many
// there were.
func PooledProduceCores(recs []Record, r Record) (float64, int) {
	key := producerKey(r)
	if key == "" {
		return 0, 0
	}
	var cores []float64
	for _, o := range recs {
		if o.BrokerCost != nil && o.BrokerCost.Consumable() && producerKey(o) == key {
			cores = append(cores, o.BrokerCost.ProduceOnly.CPUCores)
		}
	}
	if len(cores) == 0 {
		return 0, 0
	}
	return median(cores), len(cores)
}

// producerKey names what producing costs the brokers: the campaign, the
// cluster (ClusterKey) and the producer-side settings.
func producerKey(r Record) string {
	s := r.Spec
	if s == nil {
		return ""
	}
	return fmt.Sprintf("%s|%s|%g|%d|%d|%d|%s|%s|%v|%d|%s", r.Campaign, s.ClusterKey(), s.Rate, s.Producers, s.Partitions,
		s.MessageSize, s.KeyMode, s.Acks, s.Linger, s.BatchSize, s.Duration)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
