package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/campaign"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

type runFlags struct {
	scenario string
	provider string
	results  string
	sets     []string
	metrics  string // --metrics-addr
	// external provider
	bootstrap  []string
	metricURLs []string
	cluster    string // --cluster: a cluster started by `cluster up`
}

func (f *runFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.provider, "provider", "auto", "cluster provider: auto (container when a Docker engine answers and a broker image is usable, else process), process, container, kfake (kfake numbers are not Kafka's) or external (an existing cluster: --bootstrap)")
	cmd.Flags().StringSliceVar(&f.bootstrap, "bootstrap", nil, "external provider: bootstrap servers, HOST:PORT[,HOST:PORT...]")
	cmd.Flags().StringArrayVar(&f.metricURLs, "metrics-url", nil, "external provider: a broker's Prometheus endpoint (JMX exporter or open monitoring), repeatable")
	cmd.Flags().StringVar(&f.cluster, "cluster", "", "run on the cluster `sharebench cluster up --name NAME` started (the external provider with its addresses)")
	cmd.Flags().StringVar(&f.results, "results", campaign.DefaultResultsDir, "folder that receives the campaign folder")
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, "override a scenario key, e.g. --set max_poll_records=[10,100] (repeatable)")
	cmd.Flags().StringVar(&f.metrics, "metrics-addr", "", "serve the harness's Prometheus /metrics on this loopback address while the campaign runs, e.g. 127.0.0.1:9464 (default off)")
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Args:  cobra.NoArgs,
		Short: "Run a scenario file or a built-in scenario",
		Example: "  sharebench run --scenario my-workload.yaml\n" +
			"  sharebench run --scenario partition-cap --set members=[4,8,12]",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.scenario == "" {
				return fmt.Errorf("--scenario: give a scenario file or a built-in name (%s)", strings.Join(scenarios.BuiltinNames(), ", "))
			}
			return runScenario(cmd, f)
		},
	}
	cmd.Flags().StringVar(&f.scenario, "scenario", "", "scenario YAML file, or the name of a built-in scenario")
	f.register(cmd)
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
	return cmd
}

func loadScenario(name string, sets []string) (*scenarios.Scenario, error) {
	if _, err := os.Stat(name); err == nil || strings.ContainsAny(name, "/.") {
		return scenarios.Load(name, os.Environ(), sets)
	}
	return scenarios.BuiltinWith(name, os.Environ(), sets)
}

func runScenario(cmd *cobra.Command, f runFlags) error {
	sc, err := loadScenario(f.scenario, f.sets)
	if err != nil {
		return err
	}
	_, err = runCampaign(cmd, sc, f)
	return err
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
	progress, log, stopProgress := newProgress(cmd.OutOrStdout()) // a terminal is drawn on, not wrapped
	res, err := campaign.Run(cmd.Context(), sc, campaign.Options{
		Provider: f.provider, ResultsDir: f.results, Log: log, Progress: progress, Metrics: metrics, External: ext,
	})
	stopProgress()
	if res != nil && len(res.Runs) > 0 {
		if res.Status != runs.StatusComplete {
			fmt.Fprintf(out, "\nINCOMPLETE CAMPAIGN: status %s\n", res.Status)
		}
		fmt.Fprintln(out)
		_ = report.Console(res.Runs)(out)
		_ = report.Events(res.Runs)(out)
		printVerdict(out, res.Runs)
		_ = report.Expectations(res.Expectations)(out)
		_ = report.MaxRate(res.Runs)(out)
		_ = report.Recommendations(res.Recommendations)(out)
		fmt.Fprintf(out, "\nresults: %s\n", res.Dir)
	}
	return res, err
}

// printVerdict states, for each pair of consumer/share runs with otherwise
// identical settings, how the share group's throughput compares.
func printVerdict(w io.Writer, recs []runs.Record) {
	var cg, sg []runs.Record
	for _, r := range recs {
		if r.ConsumerType == "share" {
			sg = append(sg, r)
		} else {
			cg = append(cg, r)
		}
	}
	for i := range min(len(cg), len(sg)) {
		c, s := cg[i], sg[i]
		fmt.Fprintf(w, "\n%s vs %s: consumer group %.0f records/s (ceiling %.0f, %s-bound), share group %.0f records/s (ceiling %.0f, %s-bound)",
			c.RunID, s.RunID, c.Throughput.CompletedPerSec, c.Ceiling.RecordsPerSec, c.Ceiling.Bound,
			s.Throughput.CompletedPerSec, s.Ceiling.RecordsPerSec, s.Ceiling.Bound)
		if c.Throughput.CompletedPerSec > 0 {
			fmt.Fprintf(w, ": share/consumer = %.2fx", s.Throughput.CompletedPerSec/c.Throughput.CompletedPerSec)
		}
		fmt.Fprintln(w)
	}
}

// external returns the external provider the flags describe (--provider
// external, or --cluster NAME, which also sets f.provider), or nil.
func (f *runFlags) external(cmd *cobra.Command) (*infra.ExternalProvider, error) {
	if f.cluster != "" {
		for _, flag := range []string{"provider", "bootstrap", "metrics-url"} {
			if cmd.Flags().Changed(flag) {
				return nil, fmt.Errorf("--cluster %s: the cluster's state gives the provider and addresses; drop --%s", f.cluster, flag)
			}
		}
		_, st, alive, err := openCluster(cmd.ErrOrStderr(), f.cluster)
		if err != nil {
			return nil, err
		}
		if !alive {
			return nil, fmt.Errorf("--cluster %s: supervisor pid %d is not running: the cluster is gone (start it again with `sharebench cluster up --name %s`)", f.cluster, st.SupervisorPID, f.cluster)
		}
		f.provider = "external"
		return &infra.ExternalProvider{Bootstrap: st.Bootstrap, MetricsURLs: st.MetricsURLs, KafkaVersion: st.KafkaVersion}, nil
	}
	if f.provider != "external" {
		return nil, nil
	}
	return &infra.ExternalProvider{Bootstrap: f.bootstrap, MetricsURLs: f.metricURLs}, nil
}
