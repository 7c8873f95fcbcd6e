package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/sharebench/sharebench/campaign/shard"
	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// Options say where a campaign runs, where it writes and what it reports to.
type Options struct {
	Provider string // infra provider name: auto, process, kfake, external
	// External describes the existing cluster when Provider is "external".
	External   *infra.ExternalProvider
	ResultsDir string    // parent of the campaign folder (default "sharebench-results")
	Log        io.Writer // progress lines (nil: discard)
	// Progress receives run i of N, the phase and live counters, e.g. for a
	// terminal display (nil: NoProgress; the Log lines are written anyway).
	Progress Progress
	// Metrics receives every run's counters, lag and phase while it runs:
	// the harness's own /metrics (nil: none).
	Metrics *collectors.HarnessMetrics
	// MemoryBudget bounds what the largest run may hold in memory
	// (RunFootprint); 0 means DefaultMemoryBudget().
	MemoryBudget uint64
	// Shards is how runs with shards > 1 start their agents.
	Shards ShardOptions
	// NoJITWarmup skips the JIT warm-up under load before the first run
	// (prime.go; recorded as priming.jit_warmup false). Only to measure
	// what the warm-up buys the first arm: a campaign's first run then
	// pays the fresh JVM's compilation in its broker CPU.
	NoJITWarmup bool
	// DestinationDSN overrides the destination: block's dsn
	// (--destination-dsn); "" keeps it. Never written anywhere: the
	// password is masked in every message.
	DestinationDSN string
	// ResumeAnyway lets Resume go on when the campaign as recorded and
	// the resume differ (scenario, sharebench build, environment); the
	// differences are recorded in campaign.json's resumed entry.
	ResumeAnyway bool
	// ResumeSource is the scenario file a resume checks against the
	// recorded source_sha256 instead of scenario.source ("": that one).
	ResumeSource string
}

// ShardOptions are how a sharded run's agents start
// (docs/how-to/run-sharded.md).
type ShardOptions struct {
	// Launcher starts the agents (shard.Local, the Kubernetes Indexed
	// Job); nil refuses sharded runs.
	Launcher shard.Launcher
	// ConnectionFile is the connection file the agents read (secured
	// clusters), as a path the agents see.
	ConnectionFile string
	// ScenarioFile is the scenario file as a path the agents see; they
	// report its hash and the coordinator refuses a different file.
	ScenarioFile string
	// HashFile is the scenario file as the coordinator reads it (the same
	// file, on this machine), for that check; "" skips it.
	HashFile     string
	scenarioHash string
}

// Result is a finished campaign.
type Result struct {
	// Dir is the campaign folder; "" when the campaign ended before its
	// first run and removed the folder.
	Dir string
	// Status is runs.StatusComplete, StatusInterrupted or StatusFailed, as
	// campaign.json records it.
	Status string
	Runs   []runs.Record
	// Expectations are the scenario's expect: claims, evaluated on Runs.
	Expectations []runs.ExpectationOutcome
	// Recommendations answer the scenario's recommend: query.
	Recommendations []runs.Recommendation
}

// Run runs every RunSpec of the scenario, provisioning one cluster per
// distinct cluster configuration, and writes sharebench-results/<name>-<UTC
// time>/ (folder.go): campaign.json with status running first, each run's
// folder as it finishes, and on every path (Ctrl-C and failures included)
// campaign.json with its final status and the reports. Every cluster it
// starts is stopped before it returns, on every path.
func Run(ctx context.Context, sc *scenarios.Scenario, opt Options) (*Result, error) {
	c, err := newCampaign(ctx, sc, opt)
	if err != nil {
		return nil, err
	}
	defer c.release()
	return c.run(ctx)
}

// run starts the destination and runs the clusters, then finishes.
func (c *campaign) run(ctx context.Context) (*Result, error) {
	var err error
	if i := c.firstPending(); i >= 0 {
		err = c.checkSpace(i) // diskfull.go: before anything starts
	}
	if err == nil {
		c.dest, err = startDestination(ctx, c.sc, c.opt.DestinationDSN, c.log) // destination.go: before the first cluster
	}
	if err == nil {
		err = c.runClusters(ctx)
	}
	c.dest.stop()
	return c.finish(ctx, err)
}

// campaign is one campaign in progress.
type campaign struct {
	sc     *scenarios.Scenario
	opt    Options
	log    io.Writer
	prov   infra.Provider
	folder *folder
	out    *Result
	dest   *destinationServer // the runs' destination database (destination.go)
	// done holds the records of the runs finished (or kept by a resume),
	// by index into sc.Runs; order is the execution order (executionOrder).
	done  map[int]runs.Record
	order []int
	// resume is the plan of a resumed campaign (resume.go); nil for a
	// campaign run in one go.
	resume *ResumePlan
	// release gives up the folder's lock (lockFolder).
	release func()
	// current is the run in progress ("" between runs): the run a write
	// that finds the disk full belongs to (diskfull.go).
	current string
}

// newCampaign checks what can be checked before anything starts (load
// modes, memory, provider) and creates the campaign folder.
func newCampaign(ctx context.Context, sc *scenarios.Scenario, opt Options) (*campaign, error) {
	c, err := prepare(ctx, sc, opt)
	if err != nil {
		return nil, err
	}
	parent := opt.ResultsDir
	if parent == "" {
		parent = DefaultResultsDir
	}
	f, err := createFolder(parent, sc)
	if err != nil {
		return nil, err
	}
	release, err := lockFolder(f.dir)
	if err != nil {
		_ = f.remove()
		return nil, err
	}
	c.folder, c.out, c.release = f, &Result{Dir: f.dir}, release
	return c, nil
}

// prepare checks what can be checked before anything starts (load modes,
// memory, clients, shards, provider): a campaign without its folder.
func prepare(ctx context.Context, sc *scenarios.Scenario, opt Options) (*campaign, error) {
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	if opt.Progress == nil {
		opt.Progress = NoProgress{}
	}
	budget := opt.MemoryBudget
	if budget == 0 {
		budget = DefaultMemoryBudget()
	}
	for i, r := range sc.Runs {
		if _, err := modeOf(r); err != nil {
			return nil, fmt.Errorf("run %s: %w", sc.RunName(i), err)
		}
	}
	if err := CheckBudget(sc, budget); err != nil {
		return nil, err
	}
	if err := CheckFiles(sc, FileLimit()); err != nil {
		return nil, err
	}
	if err := checkClients(ctx, sc, log); err != nil {
		return nil, err
	}
	for i, r := range sc.Runs {
		if r.ShardCount() > 1 && opt.Shards.Launcher == nil {
			return nil, fmt.Errorf("run %s: shards %d: no agent launcher (sharebench run --distribute local or k8s)", sc.RunName(i), r.ShardCount())
		}
	}
	if opt.Shards.HashFile != "" {
		h, err := ScenarioHash(opt.Shards.HashFile)
		if err != nil {
			return nil, fmt.Errorf("shards: scenario file: %w", err)
		}
		opt.Shards.scenarioHash = h
	}
	prov, err := provider(opt)
	if err != nil {
		return nil, err
	}
	return &campaign{sc: sc, opt: opt, log: redact.Writer(log), // errors quote URLs: never their credentials
		prov: prov, done: map[int]runs.Record{}, order: executionOrder(sc), release: func() {}}, nil
}

// runClusters starts one cluster per group of runs that share its
// configuration and runs the group on it.
func (c *campaign) runClusters(ctx context.Context) error {
	for gi, group := range groupByCluster(c.sc.Runs) {
		if c.allDone(group) {
			continue // a resume kept every run of this cluster
		}
		logs := filepath.Join(c.folder.dir, "logs", fmt.Sprintf("cluster-%d", gi+1))
		if c.resume != nil {
			logs = filepath.Join(c.folder.dir, "logs", fmt.Sprintf("resume-%d", len(c.folder.camp.Resumed)), fmt.Sprintf("cluster-%d", gi+1))
		}
		spec := clusterSpec(c.sc.Runs[group[0]], logs, c.log)
		preview := ""
		if l := runs.SharePreviewOf(spec.KafkaVersion); l != "" {
			preview = " (" + l + ")"
		}
		fmt.Fprintf(c.log, "starting %s cluster: %d node(s), Kafka %s%s\n", c.prov.Name(), spec.Nodes, spec.KafkaVersion, preview)
		cl, err := c.prov.Start(ctx, spec)
		if err != nil {
			return fmt.Errorf("%s provider: %w", c.prov.Name(), err)
		}
		err = c.onCluster(ctx, cl, group)
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		stopErr := cl.Stop(stopCtx)
		cancel()
		if err != nil {
			return err
		}
		if stopErr != nil {
			return fmt.Errorf("stop cluster: %w", stopErr)
		}
	}
	return nil
}

// onCluster records the cluster's environment, primes it and runs the
// group's runs on it, writing each run's folder as it finishes.
func (c *campaign) onCluster(ctx context.Context, cl infra.Cluster, group []int) error {
	env := environment(ctx, cl, c.sc)
	if err := c.checkResumedEnvironment(env, group); err != nil { // resume.go
		return err
	}
	shareOff, err := c.checkFeatures(ctx, cl, group, &env) // groupconfig.go
	if err != nil {
		return err
	}
	if err := c.folder.addEnvironment(env); err != nil { // before priming: a campaign that fails there still says where it ran
		return err
	}
	jit := c.sc.JITWarmup
	if c.opt.NoJITWarmup || !cl.IsKafka() {
		jit = 0
	}
	switch {
	case !cl.IsKafka():
		fmt.Fprintf(c.log, "priming the cluster: internal topics; no JIT warm-up (%s is not Kafka's JVM)\n", cl.Provider())
	case c.opt.NoJITWarmup:
		fmt.Fprintf(c.log, "priming the cluster: internal topics; JIT warm-up skipped (--jit-warmup=false): the first run pays the fresh JVM's compilation\n")
	case jit == 0:
		fmt.Fprintf(c.log, "priming the cluster: internal topics; JIT warm-up skipped (jit_warmup: 0): the first run pays the fresh JVM's compilation\n")
	}
	specs := make([]scenarios.RunSpec, 0, len(group))
	for _, i := range group {
		specs = append(specs, c.sc.Runs[i])
	}
	warm := warmupFor(specs, jit)
	warm.NoShare = shareOff
	if jit > 0 {
		// One line within 100 characters; the warm-up's settings are in campaign.json (priming).
		fmt.Fprintf(c.log, "priming the cluster: internal topics, then a JIT warm-up at %.0f records/s for %v to %v\n",
			warm.Producer.Rate, warm.MinTime, jit)
	}
	primed, err := primeCluster(ctx, cl.Bootstrap(), cl.Nodes(), cl.MetricsURLs(), warm, clusterConnOpts(cl)...)
	if err != nil {
		return err
	}
	if primed.JITWarmup {
		fmt.Fprintf(c.log, "JIT warm-up: %d records in %.1fs; %s\n", primed.RecordsProduced, primed.DurationSec, jitLine(primed.JIT))
	}
	primed.Settle = settleBrokers(ctx, cl, nil, settleAfterPriming, "", c.log) // settle.go: what the warm-up left behind is not calibrated as idle
	primed.ScrapeCost = calibrateScrapes(ctx, cl, c.log)                       // scrapecost.go
	env.Priming = primed
	if err := c.folder.setPriming(primed); err != nil {
		return err
	}
	rn := runner{cl: cl, log: c.log, metrics: c.opt.Metrics, env: env, shards: c.opt.Shards, produceOnly: newProduceOnlyCache(), settle: true, dest: c.dest}
	for _, i := range group {
		if _, kept := c.done[i]; kept {
			continue
		}
		if err := c.checkSpace(i); err != nil { // diskfull.go: a run refused is not announced
			return err
		}
		id := c.sc.RunName(i)
		n, total := slices.Index(c.order, i)+1, len(c.sc.Runs)
		if env.SharePreview != "" {
			fmt.Fprintf(c.log, "run %d/%d %s (%s)\n", n, total, id, env.SharePreview)
		} else {
			fmt.Fprintf(c.log, "run %d/%d %s\n", n, total, id)
		}
		c.current = id
		if err := c.folder.setRunning(id); err != nil {
			return fmt.Errorf("run %s: %w", id, err)
		}
		rn.progress = runProgress{p: c.opt.Progress, run: n, recs: total, id: id}
		m, err := rn.runOne(ctx, c.sc.Runs[i], id)
		c.opt.Progress.RunDone(n, total, id, err)
		if err != nil {
			return fmt.Errorf("run %s: %w", id, err)
		}
		c.done[i] = m.Record
		if err := c.folder.addRun(m, runIDs(c.doneRecords())); err != nil {
			delete(c.done, i)
			return fmt.Errorf("run %s: write: %w", id, err)
		}
		c.done[i] = m.Record // as written: its campaign and files
		c.out.Runs = c.doneRecords()
		c.current = ""
	}
	return nil
}

// allDone reports whether every run of the group is done.
func (c *campaign) allDone(group []int) bool {
	for _, i := range group {
		if _, ok := c.done[i]; !ok {
			return false
		}
	}
	return true
}

// doneRecords are the records of the runs done, in execution order.
func (c *campaign) doneRecords() []runs.Record {
	out := make([]runs.Record, 0, len(c.done))
	for _, i := range c.order {
		if r, ok := c.done[i]; ok {
			out = append(out, r)
		}
	}
	return out
}

func runIDs(recs []runs.Record) []string {
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.RunID
	}
	return ids
}

// finish records how the campaign ended (complete, interrupted, failed),
// with the expectations and recommendations of a complete campaign, and
// writes the reports; a campaign that ended before its first run removes
// its folder instead.
func (c *campaign) finish(ctx context.Context, runErr error) (*Result, error) {
	status := runs.StatusComplete
	switch {
	case runErr == nil:
	case ctx.Err() != nil || errors.Is(runErr, context.Canceled):
		status = runs.StatusInterrupted
	default:
		status = runs.StatusFailed
	}
	c.out.Status = status
	df := c.diskFull(runErr) // diskfull.go: one error that says what to do
	if df != nil {
		runErr = df
	}
	if status != runs.StatusComplete && len(c.out.Runs) == 0 && c.resume == nil { // a resumed folder was there before
		if err := c.folder.remove(); err != nil {
			return c.out, errors.Join(runErr, err)
		}
		fmt.Fprintf(c.log, "campaign %s before its first run: removed %s\n", status, c.out.Dir)
		c.out.Dir = ""
		if df != nil {
			df.Removed = true
		}
		return c.out, runErr
	}
	if status == runs.StatusComplete {
		c.evaluate()
	}
	if df != nil {
		return c.finishFull(status, df)
	}
	werr := c.folder.finish(status, runErr, c.out.Runs)
	if werr != nil {
		fmt.Fprintf(c.log, "%v\n", werr)
	}
	if df := c.diskFull(werr); df != nil && runErr == nil {
		// Every run is recorded; campaign.json or a report did not fit.
		df.CampaignStale = df.Write != nil && filepath.Base(df.Write.Path) == "campaign.json"
		df.Complete = !df.CampaignStale
		df.Run = ""
		return c.out, df
	}
	return c.out, errors.Join(runErr, werr)
}

// evaluate checks the scenario's expectations and answers its recommend:
// query on the runs.
func (c *campaign) evaluate() {
	camp := &c.folder.camp
	camp.Expectations = EvaluateExpectations(c.sc, c.out.Runs)
	c.out.Expectations = camp.Expectations
	if c.sc.Recommend != nil {
		rec, err := runs.Recommend(c.out.Runs, *c.sc.Recommend)
		if err != nil {
			fmt.Fprintf(c.log, "recommend: %v\n", err)
		} else {
			camp.Recommendations = []runs.Recommendation{rec}
		}
	}
	c.out.Recommendations = camp.Recommendations
}

// groupByCluster groups run indexes that can share one cluster (same nodes,
// version, heap and broker configuration), keeping first-seen order. A run
// with a rolling upgrade gets a cluster of its own: its brokers end on
// another release, which the next run must not inherit.
func groupByCluster(recs []scenarios.RunSpec) [][]int {
	var keys []string
	groups := map[string][]int{}
	for i, r := range recs {
		k := r.ClusterKey()
		if v := r.RollingUpgrade(); v != "" {
			k += fmt.Sprintf(" rolling-upgrade=%s run=%d", v, i)
		}
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
