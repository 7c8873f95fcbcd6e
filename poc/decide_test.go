package poc

import (
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/results/runs/runstest"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// taskQueue is a profile with no restriction: 2000 records/s at the peak,
// 4 partitions, lognormal processing.
func taskQueue() Profile {
	return Profile{Name: "orders", Source: "orders.yaml", SteadyRate: 1000, PeakRate: 2000,
		Processing: scenarios.Processing{Model: "lognormal", Median: 10 * time.Millisecond, P99: 50 * time.Millisecond},
		Workers:    1, Partitions: 4, RecordBytes: 1024, Keys: "none", DeliveryLimit: 5, Client: "franz-go", Budget: 15 * time.Minute,
		Restrictions: Restrictions{Framework: "plain", Platform: "apache", KafkaVersion: "4.2.2"}}
}

// rec is a consistent run record of experiment label: completed records/s
// and completion p99 ms, 12 members on 4 partitions; mods adjust it.
func rec(id, label string, g vocab.GroupType, completed, p99 float64, mods ...func(*runs.Record)) runs.Record {
	r := runstest.Run(id, g, 0, completed, p99)
	r.Spec.Label = label
	r.Spec.MaxPollRecords = 100
	r.Spec.Workers = 1
	r.Latency.HoldMs.P99, r.Latency.BufferedMs.P99 = 40, 5
	if g == vocab.ConsumerGroup {
		r.Ceiling = runs.Ceiling{RecordsPerSec: 400, Workers: 400, Bound: runs.BoundWorkers, ActiveMembers: 4}
	} else {
		r.Ceiling = runs.Ceiling{RecordsPerSec: 1200, Workers: 1200, Bound: runs.BoundWorkers, ActiveMembers: 12}
	}
	for _, m := range mods {
		m(&r)
	}
	return r
}

func exp(key string) Experiment { return Experiment{Key: key, Label: strings.ReplaceAll(key, "_", "")} }

func planOf(keys ...string) Plan {
	var p Plan
	for _, k := range keys {
		p.Experiments = append(p.Experiments, exp(k))
	}
	return p
}

// sweep is a settings sweep of both group types: max.poll.records 50 and
// 200; the share arm with 200 completes most.
func sweep() []runs.Record {
	mpr := func(n int) func(*runs.Record) { return func(r *runs.Record) { r.Spec.MaxPollRecords = n } }
	return []runs.Record{
		rec("r01-settingssweep-consumer", "settingssweep", vocab.ConsumerGroup, 380, 90, mpr(50)),
		rec("r02-settingssweep-consumer", "settingssweep", vocab.ConsumerGroup, 395, 80, mpr(200)),
		rec("r03-settingssweep-share", "settingssweep", vocab.ShareGroup, 800, 40, mpr(50)),
		rec("r04-settingssweep-share", "settingssweep", vocab.ShareGroup, 950, 45, mpr(200)),
	}
}

func setting(d Decision, name string) (Setting, bool) {
	for _, s := range d.Settings {
		if s.Name == name {
			return s, true
		}
	}
	return Setting{}, false
}

func finding(fs []Finding, key string) Finding {
	for _, f := range fs {
		if f.Key == key {
			return f
		}
	}
	return Finding{}
}

func TestDecide(t *testing.T) {
	capPair := []runs.Record{
		rec("r05-partitioncap-consumer", "partitioncap", vocab.ConsumerGroup, 400, 900),
		rec("r06-partitioncap-share", "partitioncap", vocab.ShareGroup, 1000, 60),
	}
	cases := []struct {
		name     string
		profile  func(p *Profile)
		plan     Plan
		recs     []runs.Record
		notKafka bool
		verdict  Verdict
		headline string   // text the headline contains
		says     []string // text some finding, setting or problem contains
		settings []string // settings that must be there, measured
	}{
		{name: "ordering per key", profile: func(p *Profile) { p.Restrictions.OrderingPerKey = true },
			plan: planOf("settings_sweep"), recs: sweep(), verdict: VerdictConsumerGroup,
			headline: "ordering_per_key", says: []string{"cooperative-sticky", "KIP-848"},
			settings: []string{"members", "max.poll.records"}},
		{name: "exactly once", profile: func(p *Profile) { p.Restrictions.ExactlyOnce = true },
			plan: planOf("settings_sweep"), recs: sweep(), verdict: VerdictConsumerGroup, headline: "exactly_once",
			settings: []string{"max.poll.records"}},
		{name: "kafka connect", profile: func(p *Profile) { p.Restrictions.Framework = "kafka_connect" },
			plan: planOf("settings_sweep"), recs: sweep(), verdict: VerdictConsumerGroup, headline: "framework",
			says: []string{"Kafka Connect sink tasks consume through consumer groups only"}},
		{name: "msk express", profile: func(p *Profile) { p.Restrictions.Platform = "msk_express" },
			plan: planOf(), verdict: VerdictConsumerGroup, headline: "platform", says: []string{"lack KIP-932"}},
		{name: "msk standard 4.1 is a preview", profile: func(p *Profile) { p.Restrictions.Platform, p.Restrictions.KafkaVersion = "msk_standard", "4.1.1" },
			plan: planOf(), verdict: VerdictConsumerGroup, headline: "platform", says: []string{"only a preview"}},
		{name: "task queue above its partition cap", plan: planOf("settings_sweep", "partition_cap"),
			recs: append(sweep(), capPair...), verdict: VerdictShareGroup, headline: "partition_cap",
			says:     []string{"capped by its 4 partitions", "2.50×"},
			settings: []string{"members", "max.poll.records", scenarios.KeyRecordLockDuration, scenarios.KeyRecordLocks, "renew"}},
		{name: "head of line", plan: planOf("head_of_line"),
			recs: []runs.Record{
				rec("r01-headofline-consumer", "headofline", vocab.ConsumerGroup, 1000, 400, func(r *runs.Record) { r.Ceiling.Bound = runs.BoundProducer }),
				rec("r02-headofline-share", "headofline", vocab.ShareGroup, 990, 120),
			}, verdict: VerdictShareGroup, headline: "head_of_line", says: []string{"completion p99 120 ms against the consumer group's 400 ms"}},
		{name: "destination bound", profile: func(p *Profile) {
			p.Destination = &ProfileDestination{WriteTime: 5 * time.Millisecond, Capacity: 500}
		}, plan: planOf("destination", "partition_cap"),
			recs: append([]runs.Record{
				rec("r01-destination-consumer", "destination", vocab.ConsumerGroup, 470, 300, func(r *runs.Record) { r.Ceiling.Destination = 500 }),
				rec("r02-destination-share", "destination", vocab.ShareGroup, 520, 200, func(r *runs.Record) { r.Ceiling.Destination = 500 }),
			}, capPair...), verdict: VerdictDestinationBound,
			headline: "the destination bounds both group types at 500 records/s", says: []string{"more consumers do not help"},
			settings: []string{"idempotency key"}},
		{name: "a failed run", plan: planOf("partition_cap"),
			recs: []runs.Record{capPair[0], rec("r06-partitioncap-share", "partitioncap", vocab.ShareGroup, 1000, 60, func(r *runs.Record) {
				r.Errors = []string{"consumers: broker unreachable"}
			})}, verdict: VerdictInconclusive, headline: "run r06-partitioncap-share failed: consumers: broker unreachable"},
		{name: "an unbalanced audit", plan: planOf("partition_cap"),
			recs: []runs.Record{capPair[0], rec("r06-partitioncap-share", "partitioncap", vocab.ShareGroup, 1000, 60, func(r *runs.Record) {
				r.Audit.Balanced = false
			})}, verdict: VerdictInconclusive, headline: "run r06-partitioncap-share: audit.balanced = false"},
		{name: "records lost", plan: planOf("partition_cap"),
			recs: []runs.Record{capPair[0], rec("r06-partitioncap-share", "partitioncap", vocab.ShareGroup, 1000, 60, func(r *runs.Record) {
				r.Audit.CompletedOnce, r.Audit.Lost = 24990, 10
			})}, verdict: VerdictInconclusive, headline: "audit.lost = 10"},
		{name: "no reason", plan: planOf("partition_cap", "head_of_line"),
			recs: []runs.Record{
				rec("r01-partitioncap-consumer", "partitioncap", vocab.ConsumerGroup, 1000, 100, func(r *runs.Record) { r.Ceiling.Bound = runs.BoundProducer }),
				rec("r02-partitioncap-share", "partitioncap", vocab.ShareGroup, 1000, 95),
				rec("r03-headofline-consumer", "headofline", vocab.ConsumerGroup, 1000, 100),
				rec("r04-headofline-share", "headofline", vocab.ShareGroup, 1000, 95),
			}, verdict: VerdictConsumerGroup, headline: "no reason measured: the consumer group with its own tuning is the lower-risk path",
			says:     []string{"not bound by its partitions", "is not at most 0.80× the consumer group's", "the best consumer-group run of the plan (the settings sweep has none"},
			settings: []string{"members", "max.poll.records"}},
		{name: "kfake", plan: planOf("settings_sweep", "partition_cap"), recs: append(sweep(), capPair...), notKafka: true,
			verdict: VerdictInconclusive, headline: "NOT KAFKA"},
		{name: "a reason the budget left out", plan: func() Plan {
			p := planOf("head_of_line")
			p.LeftOut = []string{"partition_cap: 3m20s, left 1m0s of the 4m0s budget"}
			return p
		}(), recs: []runs.Record{
			rec("r01-headofline-consumer", "headofline", vocab.ConsumerGroup, 1000, 100),
			rec("r02-headofline-share", "headofline", vocab.ShareGroup, 1000, 95),
		}, verdict: VerdictConsumerGroup, headline: "no reason measured",
			says: []string{"Not measured: the plan left it out (partition_cap: 3m20s, left 1m0s of the 4m0s budget)."}},
		{name: "retention shorter than the worst drain", profile: func(p *Profile) { p.Restrictions.RetentionBytes = 1 << 20 },
			plan: planOf("partition_cap"), recs: []runs.Record{capPair[0], rec("r06-partitioncap-share", "partitioncap", vocab.ShareGroup, 1000, 60, func(r *runs.Record) {
				r.Phases.DrainSec = 30
			})}, verdict: VerdictConsumerGroup, headline: "retention",
			says: []string{"The worst measured drain (30 s) is longer than the 2s the topic keeps"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := taskQueue()
			if c.profile != nil {
				c.profile(&p)
			}
			c.plan.Profile = p
			d := Decide(p, c.plan, c.recs, c.notKafka)
			if d.Verdict != c.verdict {
				t.Errorf("verdict %s, want %s (headline %q, problems %q)", d.Verdict, c.verdict, d.Headline, d.Problems)
			}
			if !strings.Contains(d.Headline, c.headline) {
				t.Errorf("headline %q lacks %q", d.Headline, c.headline)
			}
			if c.notKafka != d.NotKafka {
				t.Errorf("NotKafka %t, want %t", d.NotKafka, c.notKafka)
			}
			all := d.Markdown()
			for _, s := range c.says {
				if !strings.Contains(all, mdEscape(s)) {
					t.Errorf("the decision lacks %q:\n%s", s, all)
				}
			}
			for _, name := range c.settings {
				s, ok := setting(d, name)
				if !ok || s.Value == "not measured" || len(s.Evidence) == 0 {
					t.Errorf("setting %s: %+v (present %t), want a measured value with evidence", name, s, ok)
				}
			}
			if len(d.Reasons) != len(reasonKeys) || len(d.Restrictions) != 8 {
				t.Errorf("%d reasons, %d restrictions: want every reason and restriction listed", len(d.Reasons), len(d.Restrictions))
			}
		})
	}
}

// TestDecideSettingsFromTheSweep checks the members and max.poll.records
// are the best lossless run's of the verdict's group type, and that the
// evidence names that run.
func TestDecideSettingsFromTheSweep(t *testing.T) {
	recs := append(sweep(), rec("r05-partitioncap-consumer", "partitioncap", vocab.ConsumerGroup, 400, 900),
		rec("r06-partitioncap-share", "partitioncap", vocab.ShareGroup, 1000, 60))
	d := Decide(taskQueue(), planOf("settings_sweep", "partition_cap"), recs, false)
	s, _ := setting(d, "max.poll.records")
	if s.Value != "200" || s.Evidence[0].RunID != "r04-settingssweep-share" || s.Evidence[0].Path != "runs/r04-settingssweep-share/run.json" ||
		s.Evidence[0].Anchor != "run-r04-settingssweep-share" {
		t.Errorf("max.poll.records %+v, want 200 from r04-settingssweep-share", s)
	}
	// Lock duration: 2 × (5 + 40) ms is below Kafka's default 30 s.
	if l, _ := setting(d, scenarios.KeyRecordLockDuration); l.Value != "30000" {
		t.Errorf("lock duration %+v, want 30000", l)
	}
	// The consumer group gets its own sweep's best (395 records/s, mpr 200 too), a lossy run excluded.
	recs[1].Audit.CompletedOnce, recs[1].Audit.Lost = 24000, 1000
	p := taskQueue()
	p.Restrictions.OrderingPerKey = true
	d = Decide(p, planOf("settings_sweep"), recs, false)
	if s, _ := setting(d, "max.poll.records"); s.Value != "50" || s.Evidence[0].RunID != "r01-settingssweep-consumer" {
		t.Errorf("consumer max.poll.records %+v, want 50 from r01 (r02 lost records)", s)
	}
}

// TestDecideMissingArm: an experiment in the plan whose share run is
// missing is not measured, and says which run is missing.
func TestDecideMissingArm(t *testing.T) {
	d := Decide(taskQueue(), planOf("partition_cap"), []runs.Record{rec("r01-partitioncap-consumer", "partitioncap", vocab.ConsumerGroup, 400, 900)}, false)
	f := finding(d.Reasons, "partition_cap")
	if f.Measured || f.Applies || !strings.Contains(f.Says, "the share-group run of experiment partitioncap is missing") {
		t.Errorf("partition_cap %+v", f)
	}
	if d.Verdict != VerdictConsumerGroup {
		t.Errorf("verdict %s", d.Verdict)
	}
}

// TestDecideFailures: with a poison rate, the share arm that archived the
// expected poison records and completed the rest shows the reason.
func TestDecideFailures(t *testing.T) {
	p := taskQueue()
	p.PoisonRate, p.TransientRate = 0.01, 0.05
	arm := func(archived int64) []runs.Record {
		return []runs.Record{
			rec("r01-failures-consumer", "failures", vocab.ConsumerGroup, 1000, 100),
			rec("r02-failures-share", "failures", vocab.ShareGroup, 990, 100, func(r *runs.Record) {
				r.Audit.CompletedOnce, r.Audit.Archived = 25000-archived, archived
				r.Outcomes.Redelivered = 1500
			}),
		}
	}
	if f := finding(Decide(p, planOf("failures"), arm(250), false).Reasons, "failures"); !f.Applies || !strings.Contains(f.Says, "250 archived at the delivery limit 5") {
		t.Errorf("250 archived of 250 expected: %+v", f)
	}
	if f := finding(Decide(p, planOf("failures"), arm(600), false).Reasons, "failures"); f.Applies || !f.Measured {
		t.Errorf("600 archived of 250 expected: %+v", f)
	}
}

// TestDecideCost: a pair at equal completed throughput gets both arms'
// broker CPU per record; a pair apart says why it does not compare.
func TestDecideCost(t *testing.T) {
	cost := func(moved float64) func(*runs.Record) {
		return func(r *runs.Record) {
			r.BrokerCost = &runs.BrokerCost{CPUSeconds: 10, NetCPUSeconds: 10, Produced: 10000, Completed: 10000, RecordsMoved: 20000, MovedCPUSecondsPerMillion: moved}
		}
	}
	recs := []runs.Record{
		rec("r01-headofline-consumer", "headofline", vocab.ConsumerGroup, 1000, 100, cost(500)),
		rec("r02-headofline-share", "headofline", vocab.ShareGroup, 1000, 95, cost(700)),
	}
	d := Decide(taskQueue(), planOf("head_of_line"), recs, false)
	if len(d.Cost) != 2 || !d.Cost[0].Measured || len(d.Cost[0].Evidence) != 4 || !strings.Contains(d.Cost[0].Says, "500 CPU-s per million records moved for the consumer group and 700") {
		t.Errorf("cost %+v", d.Cost)
	}
	recs[1].Throughput.CompletedPerSec = 500
	d = Decide(taskQueue(), planOf("head_of_line"), recs, false)
	if len(d.Cost) != 1 || d.Cost[0].Measured || !strings.Contains(d.Cost[0].Says, "compare at a rate both complete") {
		t.Errorf("cost apart %+v", d.Cost)
	}
}

// TestFiguresDeclared: every figure the decision reads is declared in
// results/runs under that path.
func TestFiguresDeclared(t *testing.T) {
	for _, f := range []string{figCompleted, figP99, figHoldP99, figBufferedP99, figCeilWorkers, figActiveMembers, figCeilDest,
		figIdleGap, figRebalancePause, figRedelivered, figArchived, figProduced, figLost, figDuplicates, figDeadLettered,
		figPeakReplicas, figDrain, figReplicaSeconds, figPhaseDrain, figMovedCost, figConsumeCost, figHarnessCPU} {
		if fig, err := runs.LookupFigure(f); err != nil || fig.Path != f {
			t.Errorf("figure %s: %v (path %q)", f, err, fig.Path)
		}
	}
}

// TestStageOne checks each restriction's key and when it applies.
func TestStageOne(t *testing.T) {
	for _, c := range []struct {
		name    string
		mod     func(*Restrictions)
		applies string // the one key that applies; "" none
	}{
		{"nothing", func(*Restrictions) {}, ""},
		{"spring has share consumers", func(r *Restrictions) { r.Framework = "spring" }, ""},
		{"kafka streams", func(r *Restrictions) { r.Framework = "kafka_streams" }, "framework"},
		{"fetch from follower", func(r *Restrictions) { r.FetchFromFollower = true }, "fetch_from_follower"},
		{"static membership", func(r *Restrictions) { r.StaticMembership = true }, "static_membership"},
		{"client-side assignor", func(r *Restrictions) { r.ClientSideAssignor = true }, "client_side_assignor"},
		{"kafka 4.0", func(r *Restrictions) { r.KafkaVersion = "4.0.0" }, "platform"},
		{"kafka 4.1 preview", func(r *Restrictions) { r.KafkaVersion = "4.1.0" }, "platform"},
		{"confluent cloud on 4.2", func(r *Restrictions) { r.Platform = "confluent_cloud" }, ""},
	} {
		p := taskQueue()
		c.mod(&p.Restrictions)
		for _, f := range StageOne(p) {
			if f.Applies != (f.Key == c.applies) || f.Measured || f.Says == "" {
				t.Errorf("%s: %+v", c.name, f)
			}
		}
	}
}

// TestDecidePeakAutoscale: a share-only peak experiment applies when the
// share group drained the peak with more replicas than partitions; a pair
// compares the drains.
func TestDecidePeakAutoscale(t *testing.T) {
	scaled := func(peak int, drain *float64) func(*runs.Record) {
		return func(r *runs.Record) {
			r.Autoscale = &runs.Autoscale{PeakReplicas: peak, MaxReplicas: 16, ReplicaSeconds: 300, DrainSec: drain}
		}
	}
	d12, d30 := 12.0, 30.0
	for _, c := range []struct {
		name    string
		recs    []runs.Record
		applies bool
		says    string
	}{
		{"share beyond the partitions", []runs.Record{rec("r01-peak-share", "peak", vocab.ShareGroup, 1000, 60, scaled(9, &d12))}, true, "more replicas than the 4 partitions"},
		{"share within the partitions", []runs.Record{rec("r01-peak-share", "peak", vocab.ShareGroup, 1000, 60, scaled(3, &d12))}, false, "did not need more replicas"},
		{"share did not drain", []runs.Record{rec("r01-peak-share", "peak", vocab.ShareGroup, 1000, 60, scaled(9, nil))}, false, "did not drain within the run"},
		{"pair, share faster", []runs.Record{rec("r01-peak-consumer", "peak", vocab.ConsumerGroup, 400, 900, scaled(4, &d30)), rec("r02-peak-share", "peak", vocab.ShareGroup, 1000, 60, scaled(9, &d12))}, true, "works the backlog off faster"},
		{"pair, alike", []runs.Record{rec("r01-peak-consumer", "peak", vocab.ConsumerGroup, 400, 900, scaled(4, &d12)), rec("r02-peak-share", "peak", vocab.ShareGroup, 1000, 60, scaled(9, &d12))}, false, "does not drain the peak markedly faster"},
	} {
		f := finding(Decide(taskQueue(), Plan{Experiments: []Experiment{{Key: "peak_autoscale", Label: "peak"}}}, c.recs, false).Reasons, "peak_autoscale")
		if f.Applies != c.applies || !f.Measured || !strings.Contains(f.Says, c.says) || len(f.Evidence) == 0 {
			t.Errorf("%s: %+v", c.name, f)
		}
	}
}

// TestDecideVerifiedAtThePeak: the share settings count as verified only
// when the sweep's best run (their members and max.poll.records) completed
// at least 95 % of the peak rate; without a sweep they are not verified.
func TestDecideVerifiedAtThePeak(t *testing.T) {
	recs := append(sweep(), rec("r05-partitioncap-consumer", "partitioncap", vocab.ConsumerGroup, 400, 900),
		rec("r06-partitioncap-share", "partitioncap", vocab.ShareGroup, 1000, 60))
	for _, c := range []struct {
		name  string
		peak  float64
		plan  Plan
		value string
		run   string
	}{
		{"950 of a 2000 peak", 2000, planOf("settings_sweep", "partition_cap"), "falls short: 47.5 % of the peak", "r04-settingssweep-share"},
		{"950 of a 1000 peak", 1000, planOf("settings_sweep", "partition_cap"), "95 % of the peak", "r04-settingssweep-share"},
		{"950 of a 960 peak", 960, planOf("settings_sweep", "partition_cap"), "99 % of the peak", "r04-settingssweep-share"},
		{"no sweep", 1000, planOf("partition_cap"), "not verified", ""},
	} {
		p := taskQueue()
		p.SteadyRate, p.PeakRate = min(p.SteadyRate, c.peak), c.peak
		d := Decide(p, c.plan, recs, false)
		if d.Verdict != VerdictShareGroup {
			t.Fatalf("%s: verdict %s, want share_group (%s)", c.name, d.Verdict, d.Headline)
		}
		s, ok := setting(d, "verified at the peak")
		if !ok || s.Value != c.value {
			t.Errorf("%s: verification %+v, want %q", c.name, s, c.value)
			continue
		}
		if c.run != "" && (len(s.Evidence) == 0 || s.Evidence[0].RunID != c.run) {
			t.Errorf("%s: verification evidence %+v, want run %s", c.name, s.Evidence, c.run)
		}
	}
}
