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
	ds := runs.CostDifferences(recs)
	if len(ds) == 0 {
		return nil
	}
	var out []string
	for _, d := range ds {
		out = append(out, d.Line())
	}
	if s := runs.SummarizeCostDifferences(ds).Line(); s != "" {
		out = append(out, s)
	}
	subtracted, most := 0, 0.0
	for _, r := range recs {
		if c := r.BrokerCost; c != nil && c.ScrapeSubtracted {
			subtracted++
			most = max(most, c.ScrapePercent)
		}
	}
	if subtracted > 0 {
		out = append(out, fmt.Sprintf("observer effect: in %d run(s) the harness's broker scrapes cost over 2 %% of the broker CPU (up to %.0f %%, "+
			"calibrated on the idle brokers); the per-record figures exclude it (broker_cost.scrape_cpu_seconds)", subtracted, most))
	}
	return out
}
