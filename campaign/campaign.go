package campaign

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// Options say where a campaign runs and where it writes.
type Options struct {
	Provider string // infra provider name: auto, process, kfake, external
	// External describes the existing cluster when Provider is "external".
	External   *infra.ExternalProvider
	ResultsDir string    // parent of the campaign folder (default "sharebench-results")
	Log        io.Writer // progress lines (nil: discard)
	// Progress receives run i of N, the phase and live counters, e.g. for a
	// terminal display (nil: NoProgress; the Log lines are written anyway).
	Progress Progress
	// MemoryBudget bounds what the largest run may hold in memory
	// (RunFootprint); 0 means DefaultMemoryBudget().
	MemoryBudget uint64
}

// Result is a finished campaign.
type Result struct {
	Dir  string
	Runs []runs.Record
	// Expectations are the scenario's expect: claims, evaluated on Runs.
	Expectations []runs.ExpectationOutcome
	// Recommendations answer the scenario's recommend: query.
	Recommendations []runs.Recommendation
}

// Run runs every RunSpec of the scenario, provisioning one cluster per
// distinct cluster configuration, and writes sharebench-results/<name>-<UTC time>/.
// Every cluster it starts is stopped before it returns, on every path.
func Run(ctx context.Context, sc *scenarios.Scenario, opt Options) (*Result, error) {
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	log = redact.Writer(log) // errors quote URLs: never their credentials
	progress := opt.Progress
	if progress == nil {
		progress = NoProgress{}
	}
	budget := opt.MemoryBudget
	if budget == 0 {
		budget = DefaultMemoryBudget()
	}
	if err := CheckBudget(sc, budget); err != nil {
		return nil, err
	}
	if err := checkClients(sc); err != nil {
		return nil, err
	}
	prov, err := provider(opt)
	if err != nil {
		return nil, err
	}
	started := time.Now().UTC()
	parent := opt.ResultsDir
	if parent == "" {
		parent = DefaultResultsDir
	}
	dir := filepath.Join(parent, fmt.Sprintf("%s-%s", sc.Name, started.Format("20060102T150405Z")))
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		return nil, fmt.Errorf("results folder: %w", err)
	}
	camp := runs.Campaign{SchemaVersion: runs.SchemaVersion, Name: sc.Name,
		StartedAt: started.Format(time.RFC3339), Scenario: sc}
	out := &Result{Dir: dir}
	var envs []runs.Environment
	for gi, group := range groupByCluster(sc.Runs) {
		spec := clusterSpec(sc.Runs[group[0]], filepath.Join(dir, "logs", fmt.Sprintf("cluster-%d", gi+1)), log)
		fmt.Fprintf(log, "starting %s cluster: %d node(s), Kafka %s\n", prov.Name(), spec.Nodes, spec.KafkaVersion)
		cl, err := prov.Start(ctx, spec)
		if err != nil {
			return out, fmt.Errorf("%s provider: %w", prov.Name(), err)
		}
		envs = append(envs, environment(cl))
		err = primeCluster(ctx, cl.Bootstrap(), cl.Nodes())
		if err == nil {
			err = runGroup(ctx, cl, sc, group, dir, out, &camp, log, progress)
		}
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		stopErr := cl.Stop(stopCtx)
		cancel()
		if err != nil {
			return out, err
		}
		if stopErr != nil {
			return out, fmt.Errorf("stop cluster: %w", stopErr)
		}
	}
	camp.Environment = envs
	camp.FinishedAt = time.Now().UTC().Format(time.RFC3339)
	camp.Expectations = EvaluateExpectations(sc, out.Runs)
	out.Expectations = camp.Expectations
	if sc.Recommend != nil {
		rec, err := runs.Recommend(out.Runs, *sc.Recommend)
		if err != nil {
			fmt.Fprintf(log, "recommend: %v\n", err)
		} else {
			camp.Recommendations = []runs.Recommendation{rec}
		}
	}
	out.Recommendations = camp.Recommendations
	if err := runs.WriteJSON(filepath.Join(dir, "campaign.json"), camp); err != nil {
		return out, err
	}
	_, err = report.WriteFiles(dir, camp, out.Runs)
	return out, err
}

func runGroup(ctx context.Context, cl infra.Cluster, sc *scenarios.Scenario, group []int, dir string,
	out *Result, camp *runs.Campaign, log io.Writer, progress Progress) error {
	for _, i := range group {
		id := sc.RunName(i)
		n := len(out.Runs) + 1
		fmt.Fprintf(log, "run %d/%d %s\n", n, len(sc.Runs), id)
		m, err := RunOne(withProgress(ctx, runProgress{p: progress, run: n, recs: len(sc.Runs), id: id}), cl, sc.Runs[i], id, log)
		progress.RunDone(n, len(sc.Runs), id, err)
		if err != nil {
			return fmt.Errorf("run %s: %w", id, err)
		}
		m.Record.Campaign = filepath.Base(dir)
		if err := runs.WriteRunDir(filepath.Join(dir, "runs", id), &m.Record, m.Merged, m.Series); err != nil {
			return fmt.Errorf("run %s: write: %w", id, err)
		}
		out.Runs = append(out.Runs, m.Record)
		camp.Runs = append(camp.Runs, id)
	}
	return nil
}

// groupByCluster groups run indexes that can share one cluster (same nodes,
// version, heap and broker configuration), keeping first-seen order.
func groupByCluster(recs []scenarios.RunSpec) [][]int {
	var keys []string
	groups := map[string][]int{}
	for i, r := range recs {
		k := clusterKey(r)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	out := make([][]int, len(keys))
	for i, k := range keys {
		out[i] = groups[k]
	}
	return out
}

func clusterKey(r scenarios.RunSpec) string {
	keys := make([]string, 0, len(r.BrokerConfig))
	for k := range r.BrokerConfig {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%d|%s|%s", r.Nodes, r.KafkaVersion, r.BrokerHeap)
	for _, k := range keys {
		fmt.Fprintf(&b, "|%s=%s", k, r.BrokerConfig[k])
	}
	return b.String()
}

func clusterSpec(r scenarios.RunSpec, logDir string, log io.Writer) infra.ClusterSpec {
	return infra.ClusterSpec{Nodes: r.Nodes, KafkaVersion: r.KafkaVersion, Heap: r.BrokerHeap,
		BrokerConfig: r.BrokerConfig, LogDir: logDir, Log: log}
}

// provider picks the cluster provider a campaign runs on.
func provider(opt Options) (infra.Provider, error) {
	if opt.Provider == "external" {
		if opt.External == nil {
			return nil, fmt.Errorf("provider \"external\": --bootstrap: give the cluster's bootstrap servers")
		}
		return opt.External, nil
	}
	return infra.NewProvider(opt.Provider)
}

// DefaultResultsDir is the parent of campaign folders when none is given: a
// folder that is not a Go package, ignored by git.
const DefaultResultsDir = "sharebench-results"
