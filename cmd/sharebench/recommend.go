package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// newRecommendCmd is `sharebench recommend DIR`: the best value of a swept
// knob under the user's constraints, from a campaign folder on disk.
func newRecommendCmd() *cobra.Command {
	var knob, maximize string
	var where []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "recommend DIR",
		Short: "Name the best value of a swept knob per consumer type under constraints, from a campaign folder",
		Long: "recommend reads a campaign folder and, for each consumer type (and each combination of the other\n" +
			"swept keys), names the value of --knob with the highest --maximize among the candidates whose\n" +
			"figures satisfy every --where clause (trials averaged), and which candidates each clause excluded.\n" +
			"Fields are run.json paths as in expect: (latency.completion_ms.p99, broker.acquisition_lock_timeouts_total,\n" +
			"outcomes.lock_expired_completions, ...), or their last part when unique.",
		Example: "  sharebench recommend sharebench-results/mpr-sweep-20261130T101500Z --knob max_poll_records \\\n" +
			"      --where 'latency.completion_ms.p99<=200ms' --where 'broker.acquisition_lock_timeouts_total==0'",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q, err := scenarios.ParseRecommend(knob, maximize, where)
			if err != nil {
				return usageError(fmt.Errorf("--%w", err))
			}
			_, recs, err := runs.LoadCampaign(args[0])
			if err != nil {
				return err
			}
			rec, err := runs.Recommend(recs, q)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(rec)
			}
			_ = report.Recommendations([]runs.Recommendation{rec})(out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&knob, "knob", "max_poll_records", "the swept scenario key to choose a value of")
	f.StringVar(&maximize, "maximize", "throughput.completed_per_sec", "the run.json figure to maximize")
	f.StringArrayVar(&where, "where", nil, "a constraint FIELD OP VALUE (OP: <=, <, >=, >, ==, !=; repeatable), e.g. 'latency.completion_ms.p99<=200ms'")
	f.BoolVar(&asJSON, "json", false, "print the recommendation as JSON")
	return cmd
}
