package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/campaign"
	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/scenarios"
)

// resumeCampaign is `run --resume FOLDER`: it plans the resume, refuses on
// bad input or a difference from the campaign as recorded (exit status 2;
// --resume-anyway goes on), says so and exits 0 when the campaign is
// complete, prints the plan (--dry-run stops there), then runs what is
// left and exits like a campaign run in one go.
func resumeCampaign(cmd *cobra.Command, f runFlags) error {
	changed := cmd.Flags().Changed
	if len(f.sets) > 0 && f.scenario == "" {
		return usageError(fmt.Errorf("--set with --resume: the campaign's scenario, overrides included, is recorded in %s; give no --set (or the same --scenario and --set, which are checked against it)",
			filepath.Join(f.resume, "campaign.json")))
	}
	if changed("results") {
		return usageError(fmt.Errorf("--results with --resume: the campaign folder is %s; give no --results", f.resume))
	}
	if f.dist.Shards != 0 {
		return usageError(fmt.Errorf("--shards with --resume: the shards are part of the scenario recorded in %s", filepath.Join(f.resume, "campaign.json")))
	}
	plan, err := campaign.PlanResume(f.resume, campaign.ResumeCheck{})
	if err != nil {
		return usageError(err)
	}
	out := cmd.OutOrStdout()
	if plan.Complete() {
		fmt.Fprintf(out, "%s: the campaign is complete (%d run(s)): nothing to resume; `sharebench report %s` renders it again\n",
			f.resume, len(plan.Campaign.Runs), f.resume)
		return nil
	}
	if f.scenario != "" {
		given, err := loadScenario(f.scenario, f.sets)
		if err != nil {
			return usageError(err)
		}
		if d := campaign.ScenarioDifference(plan.Scenario, given); d != "" {
			return usageError(fmt.Errorf("--scenario %s with --resume %s: not the scenario %s recorded: %s (drop --scenario: a resume runs the recorded one)",
				f.scenario, f.resume, filepath.Join(f.resume, "campaign.json"), d))
		}
	}
	if err := f.resumeProvider(changed, plan); err != nil {
		return usageError(err)
	}
	if f.scenario != "" && isScenarioFile(f.scenario) {
		f.resumeSource = f.scenario // the recorded scenario, from here: its text is checked
	}
	if plan, err = campaign.PlanResume(f.resume, campaign.ResumeCheck{Provider: f.provider, Source: f.resumeSource}); err != nil {
		return usageError(err)
	}
	if f.scenario == "" { // agents of a sharded run load the same text
		f.scenario = strings.TrimPrefix(plan.Scenario.Source, scenarios.BuiltinPrefix)
	}
	if err := preflight(f, plan.Scenario, changed); err != nil {
		return err
	}
	if len(plan.Differences) > 0 && !f.resumeAnyway {
		return usageError(&campaign.ResumeRefusedError{Dir: f.resume, Differences: plan.Differences})
	}
	if f.dryRun {
		fmt.Fprintln(out, plan.Summary())
		for _, d := range plan.Differences {
			fmt.Fprintf(out, "  --resume-anyway: %s\n", d)
		}
		fmt.Fprintln(out, "dry run: nothing started")
		return nil
	}
	res, err := runCampaign(cmd, plan.Scenario, f)
	var refused *campaign.ResumeRefusedError
	if errors.As(err, &refused) {
		return usageError(err)
	}
	if err != nil || res == nil {
		return err
	}
	return verdictExit(out, res, f.noFail)
}

// resumeProvider picks the provider of a resume: the one the campaign
// recorded unless --provider or --cluster names one (then checked against
// the record); an external cluster's addresses must be given again.
func (f *runFlags) resumeProvider(changed func(string) bool, plan *campaign.ResumePlan) error {
	if len(plan.Campaign.Environment) == 0 || changed("provider") || f.cluster != "" {
		return nil
	}
	rec := plan.Campaign.Environment[0].Provider
	if rec == "external" && len(f.bootstrap) == 0 {
		return fmt.Errorf("--resume %s: the campaign ran on an existing cluster (%s environment[0].provider external): give --provider external --bootstrap HOST:PORT or --cluster NAME again",
			f.resume, filepath.Join(f.resume, "campaign.json"))
	}
	f.provider = rec
	return nil
}

// verdictExit turns a finished campaign's verdict into the exit status:
// ExitVerdict on a problem unless noFail.
func verdictExit(out interface{ Write([]byte) (int, error) }, res *campaign.Result, noFail bool) error {
	problems := verdictProblems(res)
	if len(problems) == 0 {
		return nil
	}
	if noFail {
		w := newWrapWriter(out, report.HeadlineWidth) // the console's width
		fmt.Fprintf(w, "\nrun verdict FAILED (--no-fail: exit status 0):\n  %s\n", strings.Join(problems, "\n  "))
		w.Flush()
		return nil
	}
	return &exitError{code: ExitVerdict, err: fmt.Errorf("run verdict failed (exit status %d; --no-fail exits 0): %d problem(s):\n  %s",
		ExitVerdict, len(problems), strings.Join(problems, "\n  "))}
}
