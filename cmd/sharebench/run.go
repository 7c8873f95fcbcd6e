package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/campaign"
	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

type runFlags struct {
	scenario string
	provider string
	results  string
	sets     []string
	metrics  string // --metrics-addr
	destDSN  string // --destination-dsn
	// external provider
	bootstrap  []string
	metricURLs []string
	cluster    string // --cluster: a cluster started by `cluster up`
	conn       connFlags
	// run and bench only
	noFail bool            // --no-fail: exit 0 when the run verdict failed
	dryRun bool            // --dry-run: validate, expand, size, print; start nothing
	dist   distributeFlags // --shards, --distribute (agent.go)
	jit    bool            // --jit-warmup: warm the brokers' JIT under load before the first run
	// cpuProfile is --cpu-profile: a pprof CPU profile of this process
	// over the whole campaign (where the harness's own CPU per record goes).
	cpuProfile string
	// heapProfile is --heap-profile DIR: heap profiles of this process
	// every 5 minutes and at the end (heapprofile.go), for a soak's growth.
	heapProfile string
	// resume is --resume FOLDER: continue that campaign (resume.go);
	// resumeAnyway is --resume-anyway.
	resume       string
	resumeAnyway bool
	resumeSource string // the --scenario file beside --resume
	// detail is --detail: after the headline, the full side-by-side table,
	// the events, the verdict and broker-cost sentences, every expectation
	// and the max-rate steps (summary.md and report.html always have them).
	detail bool
}

// registerVerdict adds the flags of run and bench that advise --verify
// does not take.
func (f *runFlags) registerVerdict(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.noFail, "no-fail", false, "exit 0 even when a run lost a record, an audit did not balance or an expectation is NOT MET (exploration); the reasons are still printed")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "load, validate and expand the scenario, size every run and print the matrix; start nothing")
	f.dist.register(cmd.Flags())
	cmd.Flags().StringVar(&f.cpuProfile, "cpu-profile", "", "write a pprof CPU profile of this process over the campaign to `FILE` (go tool pprof FILE): the harness's own work, not the brokers' or the agents'")
	cmd.Flags().StringVar(&f.heapProfile, "heap-profile", "", "write pprof heap profiles of this process into `DIR` at the start, every 5 minutes and at the end (heap-00-0s.pprof, heap-01-5m0s.pprof, …, heap-end.pprof; go tool pprof -base A B shows what grew between two): for a soak's growth (docs/how-to/run-long-campaigns.md#soak)")
	cmd.Flags().BoolVar(&f.jit, "jit-warmup", true, "warm the brokers' JIT in the runs' request pattern before the first run, for at most the scenario's jit_warmup (recorded as priming.jit_warmup); =false only to measure what the warm-up buys the first arm")
}

func (f *runFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.detail, "detail", false, "after the headline, print the full side-by-side table, events, broker cost, every expectation and max-rate step (always in summary.md and report.html)")
	cmd.Flags().StringVar(&f.provider, "provider", "auto", "cluster provider: auto (container when a Docker engine answers and a broker image is usable, else process), process, container, kfake (kfake numbers are not Kafka's) or external (an existing cluster: --bootstrap)")
	cmd.Flags().StringSliceVar(&f.bootstrap, "bootstrap", nil, "external provider: bootstrap servers, HOST:PORT[,HOST:PORT...]")
	cmd.Flags().StringArrayVar(&f.metricURLs, "metrics-url", nil, "external provider: a broker's Prometheus endpoint, [NAMING=]URL with NAMING auto (default: detected), sharebench, strimzi, msk or node; repeatable")
	f.conn.register(cmd.Flags())
	cmd.Flags().StringVar(&f.cluster, "cluster", "", "run on the cluster `NAME` that 'sharebench cluster up --name NAME' started (the external provider with its addresses)")
	cmd.Flags().StringVar(&f.results, "results", campaign.DefaultResultsDir, "folder that receives the campaign folder")
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, "override a scenario key, e.g. --set max_poll_records=[10,100] (repeatable)")
	cmd.Flags().StringVar(&f.destDSN, "destination-dsn", "", "the destination: block's database, overriding its dsn: postgres://USER:PASSWORD@HOST:5432/DB; prefer '${ENV_VAR}' (single quotes) for the password: a command line is visible to other users (default: the block's dsn, else an embedded PostgreSQL)")
	cmd.Flags().StringVar(&f.metrics, "metrics-addr", "", "serve the harness's Prometheus /metrics on this loopback address while the campaign runs, e.g. 127.0.0.1:9464 (default off)")
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Args:  cobra.NoArgs,
		Short: "Run a scenario file or a built-in scenario, or resume a campaign that stopped short",
		Long: "run runs every run of a scenario and writes a campaign folder (docs/how-to/read-the-results.md).\n\n" +
			"--resume FOLDER continues a campaign that was interrupted, failed or whose harness died (even by SIGKILL):\n" +
			"it runs the scenario recorded in FOLDER/campaign.json, keeps every run whose run.json is complete and\n" +
			"consistent, reruns a run that was cut off from its start (its partial folder is moved to\n" +
			"FOLDER/partial-runs/), runs the ones never started in the campaign's order, and ends with the\n" +
			"campaign.json, summary.md and report.html the campaign would have had, the resume recorded in\n" +
			"campaign.json's resumed list. It refuses (exit status 2), naming the difference, when the scenario\n" +
			"text, the sharebench build or the environment (provider, Kafka version, nodes) differs from the\n" +
			"record; --resume-anyway goes on and records the differences. The provider defaults to the recorded\n" +
			"one. A complete campaign has nothing to resume: it says so and exits 0. See docs/how-to/run-long-campaigns.md#resuming-a-campaign.\n\n" +
			"A results folder whose file system is full (or whose disk quota is spent) stops the campaign with exit status 4,\n" +
			"naming the file and the bytes; each run starts only when its output estimate is free there (run --dry-run prints\n" +
			"it). The runs recorded stay intact: free space, then run --resume FOLDER. See docs/how-to/run-long-campaigns.md#a-full-disk.",
		Example: "  sharebench run --scenario my-workload.yaml\n" +
			"  sharebench run --scenario partition-cap --set members=[4,8,12]\n" +
			"  sharebench run --resume sharebench-results/partition-cap-20261206T101500Z\n" +
			"  sharebench run --resume sharebench-results/partition-cap-20261206T101500Z --dry-run",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.resume != "" {
				return resumeCampaign(cmd, f)
			}
			if f.resumeAnyway {
				return usageError(fmt.Errorf("--resume-anyway: applies to --resume FOLDER only"))
			}
			if f.scenario == "" {
				return usageError(fmt.Errorf("--scenario: give a scenario file or a built-in name (%s)", strings.Join(scenarios.BuiltinNames(), ", ")))
			}
			return runScenario(cmd, f)
		},
	}
	cmd.Flags().StringVar(&f.scenario, "scenario", "", "scenario YAML file, or the name of a built-in scenario")
	cmd.Flags().StringVar(&f.resume, "resume", "", "continue the campaign in `FOLDER` (interrupted, failed, or its harness killed): keep its complete runs, rerun the one cut off, run the rest; with --scenario, that scenario must be the recorded one")
	cmd.Flags().BoolVar(&f.resumeAnyway, "resume-anyway", false, "with --resume: go on when the scenario text, sharebench build or environment differs from the campaign's record, and record the differences in campaign.json")
	f.register(cmd)
	f.registerVerdict(cmd)
	return cmd
}

func newBenchCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "bench",
		Args:  cobra.NoArgs,
		Short: "Run the built-in consumer-group vs share-group comparison (partition-cap)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.scenario = "partition-cap"
			return runScenario(cmd, f)
		},
	}
	f.register(cmd)
	f.registerVerdict(cmd)
	return cmd
}

// isScenarioFile reports whether a --scenario value names a file: it
// exists, or looks like a path.
func isScenarioFile(name string) bool {
	_, err := os.Stat(name)
	return err == nil || strings.ContainsAny(name, "/.")
}

func loadScenario(name string, sets []string) (*scenarios.Scenario, error) {
	if isScenarioFile(name) {
		return scenarios.Load(name, os.Environ(), sets)
	}
	return scenarios.BuiltinWith(name, os.Environ(), sets)
}

// runScenario runs (or with --dry-run, plans) a scenario. A finished
// campaign whose runs lost records, did not balance or missed an
// expectation exits with ExitVerdict unless --no-fail.
func runScenario(cmd *cobra.Command, f runFlags) error {
	if f.dist.Shards < 0 || f.dist.Shards > 64 {
		return usageError(fmt.Errorf("--shards %d: expected 1 to 64 agents (0: the scenario's shards:)", f.dist.Shards))
	}
	sc, err := loadScenario(f.scenario, f.shardsSet())
	if err != nil {
		return usageError(err)
	}
	if err := preflight(f, sc, cmd.Flags().Changed); err != nil {
		return err
	}
	if f.dryRun {
		return usageError(dryRun(cmd.OutOrStdout(), sc))
	}
	if f.cpuProfile != "" {
		stop, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			return usageError(err)
		}
		defer stop()
	}
	if f.heapProfile != "" {
		stop, err := startHeapProfiles(f.heapProfile, heapProfileEvery)
		if err != nil {
			return usageError(err)
		}
		defer stop()
	}
	res, err := runCampaign(cmd, sc, f)
	if err != nil || res == nil {
		return err
	}
	return verdictExit(cmd.OutOrStdout(), res, f.noFail)
}

// startCPUProfile starts a CPU profile into path (created, or truncated)
// and returns what stops it and closes the file.
func startCPUProfile(path string) (func(), error) {
	out, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpu-profile: %w", err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		_ = out.Close()
		return nil, fmt.Errorf("--cpu-profile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = out.Close()
	}, nil
}

// verdictProblems are the reasons a finished campaign fails its verdict:
// a run that lost records or whose audit does not balance, an expectation
// NOT MET. Validity flags other than these only warn.
func verdictProblems(res *campaign.Result) []string {
	return runs.VerdictProblems(res.Runs, res.Expectations)
}

// dryRun prints what run would do: every run with its settings, its
// planned time and memory, the totals; it checks the memory budget.
func dryRun(w io.Writer, sc *scenarios.Scenario) error {
	fmt.Fprintf(w, "scenario %s (%s): %d run(s), %d expectation(s); dry run: nothing started\n",
		sc.Name, sc.Source, len(sc.Runs), len(sc.Expectations))
	var total time.Duration
	for i, r := range sc.Runs {
		fp, err := campaign.RunFootprint(r)
		if err != nil {
			return fmt.Errorf("%s: run %s: %w", sc.Source, sc.RunName(i), err)
		}
		mode, _ := r.Mode() // RunFootprint refused an unknown load_mode
		plan := mode.Plan(r)
		total += plan.Load
		summary := r.Summary()
		if vocab.SharePreview(r.KafkaVersion) {
			summary += " (" + vocab.SharePreviewLabel + ")"
		}
		fmt.Fprintf(w, "  %-28s %s\n  %-28s %s, memory about %s\n", sc.RunName(i), summary, "", plan.Text, campaign.FormatBytes(fp.Total))
	}
	fmt.Fprintf(w, "planned: about %s of load in all (a backlog run counts its fill and drain bounds), plus cluster start-up, group joins and drains\n", total)
	budget := campaign.DefaultMemoryBudget()
	if err := campaign.CheckBudget(sc, budget); err != nil {
		return err
	}
	if err := campaign.CheckFiles(sc, campaign.FileLimit()); err != nil {
		return err
	}
	fmt.Fprintf(w, "memory: every run fits the budget of %s\n", campaign.FormatBytes(budget))
	var disk, largest uint64
	for _, r := range sc.Runs {
		d := campaign.RunDiskEstimate(r)
		disk, largest = disk+d, max(largest, d)
	}
	fmt.Fprintf(w, "disk: the runs' output estimate is about %s in all, %s for the largest run; a run starts only when its estimate is free on the results folder's file system (docs/how-to/run-long-campaigns.md#a-full-disk)\n",
		campaign.FormatBytes(disk), campaign.FormatBytes(largest))
	return nil
}

// runCampaign runs a loaded scenario with the provider flags and prints the
// results.
func runCampaign(cmd *cobra.Command, sc *scenarios.Scenario, f runFlags) (*campaign.Result, error) {
	ext, err := f.external(cmd)
	if err != nil {
		return nil, err
	}
	out := redact.Writer(cmd.OutOrStdout()) // records quote errors, errors quote URLs
	fmt.Fprintf(out, "scenario %s: %d run(s)\n", sc.Name, len(sc.Runs))
	metrics, stopMetrics, err := serveMetrics(f.metrics, out)
	if err != nil {
		return nil, err
	}
	defer stopMetrics()
	sharded := false
	for _, r := range sc.Runs {
		sharded = sharded || r.ShardCount() > 1
	}
	shards, err := f.shardOptions(sharded)
	if err != nil {
		return nil, usageError(err)
	}
	progress, log, stopProgress := newProgress(cmd.OutOrStdout()) // a terminal is drawn on, not wrapped
	opt := campaign.Options{
		Provider: f.provider, ResultsDir: f.results, Log: log, Progress: progress, Metrics: metrics, External: ext,
		Shards: shards, NoJITWarmup: !f.jit, DestinationDSN: f.destDSN, ResumeAnyway: f.resumeAnyway,
		ResumeSource: f.resumeSource,
	}
	var res *campaign.Result
	if f.resume != "" {
		res, err = campaign.Resume(cmd.Context(), f.resume, opt)
	} else {
		res, err = campaign.Run(cmd.Context(), sc, opt)
	}
	stopProgress()
	if res != nil && len(res.Runs) > 0 {
		printResults(out, sc.Name, res, f.detail)
	}
	return res, err
}

// printResults prints what a campaign found: the headline (report.Headline:
// a dozen lines of at most 100 characters, each a claim with its number)
// and the recommendations, every line wrapped at the headline's width;
// with detail first the full side-by-side table and the other sections
// summary.md has.
func printResults(out io.Writer, scenario string, res *campaign.Result, detail bool) {
	w := newWrapWriter(out, report.HeadlineWidth)
	defer w.Flush()
	if res.Status != runs.StatusComplete {
		fmt.Fprintf(w, "\nINCOMPLETE CAMPAIGN: status %s\n", res.Status)
	}
	fmt.Fprintln(w)
	if detail {
		_ = report.Console(res.Runs)(out) // a table: never wrapped
		_ = report.Events(res.Runs)(w)
		for _, p := range runs.Pairs(res.Runs) {
			fmt.Fprintf(w, "\n%s\n", p.Verdict())
		}
		fmt.Fprintln(w)
		_ = report.BrokerCost(res.Runs)(w)
		_ = report.Expectations(res.Expectations)(w)
		_ = report.MaxRate(res.Runs)(out)
		fmt.Fprintln(w)
	}
	more := "--detail: the full table"
	if detail {
		more = "and summary.md"
	}
	_ = report.Headline(report.HeadlineInput{Scenario: scenario, Runs: res.Runs, Expectations: res.Expectations,
		Dir: res.Dir, Detail: more})(w)
	_ = report.Recommendations(res.Recommendations)(w)
}

// external returns the external provider the flags describe (--provider
// external, or --cluster NAME, which also sets f.provider), or nil. The
// flag combinations were checked by preflight.
func (f *runFlags) external(cmd *cobra.Command) (*infra.ExternalProvider, error) {
	if f.cluster != "" {
		_, st, alive, err := openCluster(cmd.ErrOrStderr(), f.cluster)
		if err != nil {
			return nil, err
		}
		if !alive {
			return nil, fmt.Errorf("--cluster %s: supervisor pid %d is not running: the cluster is gone (start it again with `sharebench cluster up --name %s`)", f.cluster, st.SupervisorPID, f.cluster)
		}
		f.provider = "external"
		return &infra.ExternalProvider{Bootstrap: st.Bootstrap, MetricsURLs: st.MetricsURLs, KafkaVersion: st.KafkaVersion,
			Conn: st.Connection.Settings()}, nil
	}
	if f.provider != "external" {
		return nil, nil
	}
	conn, err := f.conn.connection(cmd)
	if err != nil {
		return nil, err
	}
	bootstrap := f.bootstrap
	if len(bootstrap) == 0 {
		bootstrap = conn.Bootstrap
	}
	if len(bootstrap) == 0 { // refused before the campaign makes a folder
		return nil, usageError(fmt.Errorf("provider \"external\": --bootstrap: give the cluster's bootstrap servers (or bootstrap: in the --connection file)"))
	}
	for _, u := range f.metricURLs {
		if _, _, err := collectors.ParseMetricsEndpoint(u); err != nil {
			return nil, fmt.Errorf("--metrics-url: %w", err)
		}
	}
	return &infra.ExternalProvider{Bootstrap: bootstrap, MetricsURLs: f.metricURLs, Conn: conn}, nil
}
