package report

import (
	"fmt"
	"io"

	"github.com/sharebench/sharebench/results/runs"
)

// BrokerCost prints, for each consumer/share pair with a broker cost on
// both sides, the share − consumer broker CPU per record
// (runs.CostDifference), then the summary over the pairs at equal
// completed throughput, and the observer-effect calibration's share when
// it was subtracted. Nothing without such a pair.
func BrokerCost(recs []runs.Record) Reporter {
	return func(w io.Writer) error {
		if err := redactAll(&recs); err != nil {
			return err
		}
		for _, line := range brokerCostLines(recs) {
			fmt.Fprintf(w, "%s\n", line)
		}
		return nil
	}
}

// brokerCostLines are BrokerCost's lines (the console and summary.md).
func brokerCostLines(recs []runs.Record) []string {
	var out []string
	if ds := runs.CostDifferences(recs); len(ds) > 0 {
		for _, d := range ds {
			out = append(out, d.Line())
		}
		if s := runs.SummarizeCostDifferences(ds).Line(); s != "" {
			out = append(out, s)
		}
	}
	if line := observerLine(recs); line != "" {
		out = append(out, line)
	}
	return out
}

// observerLine says what the harness's broker scrapes cost the brokers in
// the runs that calibrated them: the range of broker_cost.scrape_percent,
// and whether the per-record figures exclude it (over 2 %).
func observerLine(recs []runs.Record) string {
	o := scrapeCosts(recs)
	switch {
	case o.runs == 0:
		return ""
	case o.subtracted > 0:
		return fmt.Sprintf("observer effect: in %d of %d run(s) the harness's broker scrapes cost over 2 %% of the broker CPU (up to %.1f %%, "+
			"calibrated on the idle brokers); the per-record figures exclude it (broker_cost.scrape_cpu_seconds)", o.subtracted, o.runs, o.most)
	default:
		return fmt.Sprintf("observer effect: the harness's broker scrapes cost %.2f–%.2f %% of the broker CPU in %d run(s) "+
			"(calibrated on the idle brokers; under 2 %%, so not subtracted)", o.least, o.most, o.runs)
	}
}

// scrapeCost is broker_cost.scrape_percent over the runs that calibrated
// their scrapes: how many, the least and the most, and in how many it was
// subtracted (over 2 %).
type scrapeCost struct {
	runs, subtracted int
	least, most      float64
}

func scrapeCosts(recs []runs.Record) scrapeCost {
	var o scrapeCost
	for _, r := range recs {
		c := r.BrokerCost
		if c == nil || c.ScrapeCPUSeconds <= 0 {
			continue
		}
		if o.runs == 0 || c.ScrapePercent < o.least {
			o.least = c.ScrapePercent
		}
		o.most = max(o.most, c.ScrapePercent)
		o.runs++
		if c.ScrapeSubtracted {
			o.subtracted++
		}
	}
	return o
}
