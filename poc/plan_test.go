package poc

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// planTaskQueue is a profile above its partition cap: lognormal processing
// (mean ≈ 14.9 ms, 67 records/s a worker), 4 partitions (a consumer group
// completes ≈ 268 records/s), a peak of 400.
func planTaskQueue() Profile {
	return Profile{Name: "tq", Source: "tq.yaml", SteadyRate: 150, PeakRate: 400, PeakFor: 10 * time.Second,
		Processing: scenarios.Processing{Model: "lognormal", Median: 10 * time.Millisecond, P99: 80 * time.Millisecond},
		Workers:    1, Partitions: 4, RecordBytes: 512, TransientRate: 0.01, DeliveryLimit: 5, Budget: 15 * time.Minute,
		Restrictions: Restrictions{Framework: "plain", Platform: "apache", KafkaVersion: "4.2.2"}}
}

func keys(p Plan) []string {
	var out []string
	for _, e := range p.Experiments {
		out = append(out, e.Key)
	}
	return out
}

func TestPlanFullBudgetRunsEveryReasonInPriorityOrder(t *testing.T) {
	p, err := PlanCampaign(planTaskQueue(), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{KeyPartitionCap, KeyHeadOfLine, KeySettingsSweep, KeyFailures, KeyScaleEvent, KeyPeakAutoscale}
	if !slices.Equal(keys(p), want) {
		t.Errorf("experiments %v, want %v (left out %v)", keys(p), want, p.LeftOut)
	}
	if p.Estimate() > p.Budget {
		t.Errorf("estimate %s past the budget %s", p.Estimate(), p.Budget)
	}
	// Every run shares one cluster, so campaign.Run keeps the plan's order.
	for i, r := range p.Scenario.Runs {
		if r.ClusterKey() != p.Scenario.Runs[0].ClusterKey() {
			t.Fatalf("run %d needs cluster %q, run 1 %q", i+1, r.ClusterKey(), p.Scenario.Runs[0].ClusterKey())
		}
	}
	if !strings.HasPrefix(p.Scenario.RunName(0), "r01-cap-consumer") || !strings.HasPrefix(p.Scenario.RunName(1), "r02-cap-share") {
		t.Errorf("names %s %s", p.Scenario.RunName(0), p.Scenario.RunName(1))
	}
	if p.Scenario.Recommend == nil || p.Scenario.Recommend.Knob != "max_poll_records" {
		t.Errorf("recommend %+v", p.Scenario.Recommend)
	}
}

// Each experiment's estimate is its runs' warm-up, window, drain bound and
// RunOverhead, read back off the joined scenario; the plan's estimate adds
// the campaign's set-up.
func TestPlanEstimatesAddUp(t *testing.T) {
	p, err := PlanCampaign(planTaskQueue(), 0)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]time.Duration{}
	for _, r := range p.Scenario.Runs {
		per[r.Label] += r.Warmup + r.Duration + r.DrainTimeout + RunOverhead
	}
	total := CampaignOverhead
	for _, e := range p.Experiments {
		if per[e.Label] != e.Estimate || e.Estimate <= 0 {
			t.Errorf("%s: estimate %s, its runs add up to %s", e.Key, e.Estimate, per[e.Label])
		}
		total += e.Estimate
	}
	if p.Estimate() != total || len(per) != len(p.Experiments) {
		t.Errorf("plan estimate %s, want %s (%d labels, %d experiments)", p.Estimate(), total, len(per), len(p.Experiments))
	}
}

func TestPlanSmallBudgetLeavesOutWithWhy(t *testing.T) {
	budget := 4 * time.Minute
	p, err := PlanCampaign(planTaskQueue(), budget)
	if err != nil {
		t.Fatal(err)
	}
	if p.Estimate() > budget || len(p.Experiments) == 0 || p.Experiments[0].Key != KeyPartitionCap {
		t.Errorf("estimate %s of %s, experiments %v", p.Estimate(), budget, keys(p))
	}
	var why string
	for _, l := range p.LeftOut {
		if strings.HasPrefix(l, KeyPeakAutoscale+": ") {
			why = l
		}
	}
	if !strings.Contains(why, " of the 4m0s budget") || !strings.Contains(why, ", left ") {
		t.Errorf("left out %q, want the peak_autoscale estimate and what was left; all: %v", why, p.LeftOut)
	}
	if _, err := PlanCampaign(planTaskQueue(), 30*time.Second); err == nil || !strings.Contains(err.Error(), "no experiment fits") {
		t.Errorf("30s budget: %v", err)
	}
}

func TestPlanRestrictionPlansConsumerOnly(t *testing.T) {
	pr := planTaskQueue()
	pr.Restrictions.OrderingPerKey = true
	p, err := PlanCampaign(pr, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keys(p), []string{KeySettingsSweep}) {
		t.Errorf("experiments %v", keys(p))
	}
	for _, r := range p.Scenario.Runs {
		if r.ConsumerType != vocab.ConsumerGroup {
			t.Errorf("%s run under a restriction", r.ConsumerType)
		}
	}
	if len(p.LeftOut) == 0 || !strings.Contains(p.LeftOut[0], "ordering_per_key") || len(p.Scenario.Runs) < 3 {
		t.Errorf("left out %v, %d runs", p.LeftOut, len(p.Scenario.Runs))
	}
}

func TestPlanReasonsTheProfileLacks(t *testing.T) {
	pr := planTaskQueue()
	pr.TransientRate, pr.PeakRate = 0, pr.SteadyRate
	pr.Destination = &ProfileDestination{WriteTime: 5 * time.Millisecond, Capacity: 100}
	p, err := PlanCampaign(pr, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p.LeftOut, "\n")
	for _, want := range []string{"failures: the profile has no failures", "peak_autoscale: the profile has no peak", "destination: a modelled write"} {
		if !strings.Contains(got, want) {
			t.Errorf("left out lacks %q:\n%s", want, got)
		}
	}
	pr.Destination = &ProfileDestination{Embedded: true}
	if p, err = PlanCampaign(pr, 0); err != nil || !slices.Contains(keys(p), KeyDestination) {
		t.Fatalf("embedded: %v %v", keys(p), err)
	}
	for _, r := range p.Scenario.Runs {
		if (r.Label == "dest") != (r.Destination != nil) {
			t.Errorf("run %s: destination %v", r.Label, r.Destination)
		}
	}
	// The database's connections reach the destination pair's runs.
	pr.Destination = &ProfileDestination{Embedded: true, Connections: 3}
	if p, err = PlanCampaign(pr, 0); err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Scenario.Runs {
		if r.Destination != nil && r.Destination.Connections != 3 {
			t.Errorf("run %s: destination connections %d, want 3", r.Label, r.Destination.Connections)
		}
	}
}

// Each example profile loads and plans within its budget.
func TestExampleProfilesPlanWithinBudget(t *testing.T) {
	files, _ := filepath.Glob("../examples/poc/*.yaml")
	if len(files) != 3 {
		t.Fatalf("examples: %v", files)
	}
	for _, f := range files {
		pr, err := LoadProfile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := PlanCampaign(*pr, 0)
		if err != nil {
			t.Fatal(err)
		}
		if p.Estimate() > pr.Budget || pr.Budget > 6*time.Minute {
			t.Errorf("%s: estimate %s, budget %s", f, p.Estimate(), pr.Budget)
		}
		t.Logf("%s: %v, estimate %s of %s; left out %v", f, keys(p), p.Estimate(), pr.Budget, p.LeftOut)
	}
}

// A peak the consumer group's members complete on the partitions plans no
// partition_cap pair, and says why.
func TestPlanPartitionCapOnlyAboveTheCap(t *testing.T) {
	pr := planTaskQueue()
	pr.Partitions = 16
	p, err := PlanCampaign(pr, 0)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(keys(p), KeyPartitionCap) || len(p.LeftOut) == 0 || !strings.Contains(p.LeftOut[0], "partition_cap: the advisor's 8 member(s) complete the peak 400 records/s on 16 partitions") {
		t.Errorf("experiments %v, left out %v", keys(p), p.LeftOut)
	}
}
