package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// Two pairs at equal completed throughput, share dearer in one (net CPU
// 6 vs 4 s over 20,000 completed: +100 s/M) and cheaper in the other
// (3 vs 4 s: −50 s/M), the scrapes subtracted in one run.
func TestBrokerCostLines(t *testing.T) {
	rec := func(id string, gt vocab.GroupType, trial int, net float64, scrape bool) runs.Record {
		spec := scenarios.RunSpec{ConsumerType: gt, Partitions: 4, Trial: trial}
		r := runs.Record{RunID: id, ConsumerType: gt, Spec: &spec}
		r.Throughput.CompletedPerSec = 1000
		r.BrokerCost = &runs.BrokerCost{NetCPUSeconds: net, Completed: 20_000, ScrapeSubtracted: scrape, ScrapeCPUSeconds: 0.05, ScrapePercent: 1.5}
		if scrape {
			r.BrokerCost.ScrapePercent = 12
		}
		return r
	}
	recs := []runs.Record{rec("c0", vocab.ConsumerGroup, 0, 4, true), rec("s0", vocab.ShareGroup, 0, 6, false),
		rec("s1", vocab.ShareGroup, 1, 3, false), rec("c1", vocab.ConsumerGroup, 1, 4, false)}
	var b bytes.Buffer
	if err := BrokerCost(recs)(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"c0 vs s0: broker cost share − consumer at equal completed throughput (share/consumer 1.00x): +100 s/M records completed",
		"c1 vs s1: broker cost share − consumer at equal completed throughput (share/consumer 1.00x): -50 s/M records completed",
		"the share group cost the broker more per record in 1 of 2 pairs; median share − consumer +25 s/M records completed",
		"observer effect: in 1 of 4 run(s) the harness's broker scrapes cost over 2 % of the broker CPU (up to 12.0 %", "exclude it",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	// without a pair, only the observer line; under 2 % everywhere, the
	// range and that nothing was subtracted
	b.Reset()
	if err := BrokerCost(recs[1:3])(&b); err != nil || b.String() != "observer effect: the harness's broker scrapes cost 1.50–1.50 % of the broker CPU in 2 run(s) (calibrated on the idle brokers; under 2 %, so not subtracted)\n" {
		t.Errorf("no pair, no scrape over 2 %%: printed %q (%v)", b.String(), err)
	}
	b.Reset()
	recs[1].BrokerCost.ScrapeCPUSeconds, recs[2].BrokerCost.ScrapeCPUSeconds = 0, 0
	if err := BrokerCost(recs[1:3])(&b); err != nil || b.Len() != 0 {
		t.Errorf("no pair, no calibration: printed %q (%v)", b.String(), err)
	}
}
