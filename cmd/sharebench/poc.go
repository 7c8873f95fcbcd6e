package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/poc"
	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/results/runs"
)

// The files a proof of concept writes into its campaign folder.
const (
	decisionJSON = "decision.json"
	decisionMD   = "decision.md"
)

func newPocCmd() *cobra.Command {
	var f runFlags
	var budget time.Duration
	cmd := &cobra.Command{
		Use:   "poc PROFILE",
		Args:  cobra.ExactArgs(1),
		Short: "Run a proof of concept of a workload profile: plan within a budget, run, decide share group or consumer group",
		Long: "Load a workload profile, plan the experiments that fit the budget (the advisor's sizing; the rest are listed " +
			"with why), print the plan, run it as one campaign and write decision.json and decision.md into the campaign " +
			"folder, with the decision at the top of report.html. A proof of concept that ran exits 0 whatever it decided; " +
			"bad input exits 2, a failed campaign 1, an interrupt 130 (docs/how-to/run-a-poc.md).",
		Example: "  sharebench poc examples/poc/task-queue.yaml\n" +
			"  sharebench poc my-workload.yaml --budget 10m --dry-run\n" +
			"  sharebench poc my-workload.yaml --provider external --bootstrap kafka-1:9092",
		RunE: func(cmd *cobra.Command, args []string) error {
			f.jit, f.dist.Distribute = true, "local" // run's defaults for the flags poc does not take
			return runPoc(cmd, args[0], budget, f)
		},
	}
	f.register(cmd)
	cmd.Flags().DurationVar(&budget, "budget", 0, "the wall time the proof of concept may take, e.g. 10m (default: the profile's budget:)")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "load the profile, plan, print the plan and every run (as run --dry-run); start nothing")
	return cmd
}

// runPoc plans, prints the plan, runs the campaign and writes its decision.
func runPoc(cmd *cobra.Command, path string, budget time.Duration, f runFlags) error {
	if len(f.sets) > 0 {
		key, _, _ := strings.Cut(f.sets[0], "=") // the key only: a value may be a secret
		return usageError(fmt.Errorf("--set %s: a proof of concept's runs come from the profile; change the profile instead", key))
	}
	if budget < 0 {
		return usageError(fmt.Errorf("--budget %s: expected a duration > 0, like 15m", budget))
	}
	p, err := poc.LoadProfile(path)
	if err != nil {
		return usageError(err)
	}
	plan, err := poc.PlanCampaign(*p, budget)
	if err != nil {
		return usageError(err)
	}
	out := cmd.OutOrStdout()
	printPlan(out, plan)
	if err := preflight(f, plan.Scenario, cmd.Flags().Changed); err != nil {
		return err
	}
	if f.dryRun { // run's dry run: every run with its plan and memory, the budgets checked
		return usageError(dryRun(out, plan.Scenario))
	}
	start := time.Now()
	res, err := runCampaign(cmd, plan.Scenario, f)
	if res == nil || len(res.Runs) == 0 || cmd.Context().Err() != nil {
		return err // nothing to decide on, or interrupted
	}
	notKafka := false
	for _, r := range res.Runs {
		notKafka = notKafka || !r.Environment.IsKafka
	}
	d := poc.Decide(*p, plan, res.Runs, notKafka)
	if werr := writeDecision(res.Dir, d); werr != nil {
		return errors.Join(err, werr)
	}
	fmt.Fprintf(out, "\ndecision: %s\n  %s, %s and the top of report.html in %s (wall time %s of the %s budget)\n",
		d.Headline, decisionJSON, decisionMD, res.Dir, time.Since(start).Round(time.Second), plan.Budget)
	return err // a campaign that failed exits 1 even with a decision over the runs it has
}

// printPlan prints the experiments with their estimates and what was left
// out with why.
func printPlan(w io.Writer, plan poc.Plan) {
	fmt.Fprintf(w, "proof of concept %s (%s): %d experiment(s), %d run(s), about %s of the %s budget\n",
		plan.Profile.Name, plan.Profile.Source, len(plan.Experiments), len(plan.Scenario.Runs), plan.Estimate(), plan.Budget)
	for _, e := range plan.Experiments {
		fmt.Fprintf(w, "  %-15s %7s  %s\n", e.Key, e.Estimate, e.Why)
	}
	for _, l := range plan.LeftOut {
		fmt.Fprintf(w, "  left out: %s\n", l)
	}
}

// writeDecision writes decision.json and decision.md into a campaign folder
// and renders its report.html again with the decision at the top.
func writeDecision(dir string, d poc.Decision) error {
	if err := d.WriteJSON(filepath.Join(dir, decisionJSON)); err != nil {
		return err
	}
	if err := runs.WriteFileAtomic(filepath.Join(dir, decisionMD), []byte(d.Markdown())); err != nil {
		return err
	}
	return writeDecisionReport(dir, d)
}

// writeDecisionReport renders the folder's report.html with the decision
// section at its top.
func writeDecisionReport(dir string, d poc.Decision) error {
	camp, recs, err := runs.LoadCampaign(dir)
	if err != nil {
		return err
	}
	return report.HTMLWithDecision(dir, camp, recs, template.HTML(d.HTMLSection())).WriteFile(filepath.Join(dir, "report.html"))
}

// readDecision reads a campaign folder's decision.json; ok is false when
// the folder has none (it is not a proof of concept).
func readDecision(dir string) (d poc.Decision, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, decisionJSON))
	if errors.Is(err, os.ErrNotExist) {
		return d, false, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &d)
	}
	if err != nil {
		return d, false, fmt.Errorf("%s: %w", filepath.Join(dir, decisionJSON), err)
	}
	return d, true, nil
}
