package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/infra"
)

// Long-lived clusters for tuning sessions. `cluster up` re-executes itself
// as `cluster serve`, detached in a session of its own (setsid, output to
// serve.log): that supervisor holds the infra.Cluster, so brokers that die
// with their parent (Pdeathsig) live as long as it does, and it stops them
// on SIGTERM/SIGINT. It writes the state file once the cluster serves;
// `up` waits for that (or for the supervisor's death) and returns. Later
// runs use the cluster as an external one (`run --cluster NAME`).

// clusterState is CacheDir/clusters/NAME.json.
type clusterState struct {
	Name          string            `json:"name"`
	Provider      string            `json:"provider"`
	KafkaVersion  string            `json:"kafka_version"`
	Nodes         int               `json:"nodes"`
	Bootstrap     []string          `json:"bootstrap"`
	MetricsURLs   []string          `json:"metrics_urls"`
	BrokerConfig  map[string]string `json:"broker_config"`
	SupervisorPID int               `json:"supervisor_pid"`
	LogDir        string            `json:"log_dir"`
	ServeLog      string            `json:"serve_log"`
	StartedAt     string            `json:"started_at"`
}

// clusterUpTimeout bounds `up`: the provider's start timeout plus margin.
const clusterUpTimeout = infra.DefaultStartTimeout + time.Minute

// clusterDownWait bounds the supervisor's stop (its brokers' controlled
// shutdown, then kill) before `down` kills it.
const clusterDownWait = 90 * time.Second

var clusterNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

type clusterFlags struct {
	name, provider, version string
	nodes                   int
	sets                    []string
}

func newClusterCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Start, inspect and stop a long-lived cluster that later runs reuse (run --cluster NAME)",
	}
	var f clusterFlags
	up := &cobra.Command{
		Use:   "up",
		Short: "Start a cluster in the background and print its bootstrap and metrics addresses",
		Example: "  sharebench cluster up --nodes 3 --set broker_config.group.share.partition.max.record.locks=4000\n" +
			"  sharebench run --cluster default --scenario smoke\n" +
			"  sharebench cluster down",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return clusterUp(cmd, f) },
	}
	up.Flags().StringVar(&f.provider, "provider", "auto", "cluster provider: auto, process or container")
	up.Flags().IntVar(&f.nodes, "nodes", 1, "KRaft nodes: 1 or 3")
	up.Flags().StringVar(&f.version, "kafka-version", infra.DefaultKafkaVersion, "Apache Kafka release")
	up.Flags().StringArrayVar(&f.sets, "set", nil, "broker setting, broker_config.KEY=VALUE (repeatable)")
	serve := &cobra.Command{
		Use:    "serve",
		Short:  "Hold a cluster until SIGTERM (started by cluster up)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE:   func(cmd *cobra.Command, _ []string) error { return clusterServe(cmd, f) },
	}
	serve.Flags().AddFlagSet(up.Flags())
	status := &cobra.Command{
		Use:   "status",
		Short: "Print a cluster's addresses and whether its brokers answer",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return clusterStatus(cmd, f.name) },
	}
	down := &cobra.Command{
		Use:   "down",
		Short: "Stop a cluster and remove its state and logs",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return clusterDown(cmd, f.name) },
	}
	for _, c := range []*cobra.Command{up, serve, status, down} {
		c.Flags().StringVar(&f.name, "name", "default", "cluster name")
	}
	cmd.AddCommand(up, serve, status, down)
	return cmd
}

// clusterPaths returns the state file and the cluster's directory (logs).
func clusterPaths(name string) (stateFile, dir string, err error) {
	if !clusterNamePattern.MatchString(name) {
		return "", "", fmt.Errorf("--name %q: want letters, digits, '.', '_' or '-' (at most 64)", name)
	}
	cache, err := infra.CacheDir()
	if err != nil {
		return "", "", err
	}
	root := filepath.Join(cache, "clusters")
	return filepath.Join(root, name+".json"), filepath.Join(root, name), nil
}

// clusterSpec validates the up/serve flags into a spec.
func (f clusterFlags) spec(logDir string) (infra.ClusterSpec, error) {
	if f.nodes != 1 && f.nodes != 3 {
		return infra.ClusterSpec{}, fmt.Errorf("--nodes %d: want 1 or 3", f.nodes)
	}
	cfg := map[string]string{}
	for _, s := range f.sets {
		kv, ok := strings.CutPrefix(s, "broker_config.")
		k, v, eq := strings.Cut(kv, "=")
		if !ok || !eq || k == "" {
			return infra.ClusterSpec{}, fmt.Errorf("--set %q: cluster up takes broker settings only, as broker_config.KEY=VALUE", s)
		}
		cfg[k] = v
	}
	if _, err := infra.EffectiveBrokerConfig(f.nodes, cfg); err != nil {
		return infra.ClusterSpec{}, err
	}
	return infra.ClusterSpec{Nodes: f.nodes, KafkaVersion: f.version, BrokerConfig: cfg, LogDir: logDir}, nil
}

func clusterUp(cmd *cobra.Command, f clusterFlags) error {
	out := cmd.OutOrStdout()
	stateFile, dir, err := clusterPaths(f.name)
	if err != nil {
		return err
	}
	if _, err := f.spec(""); err != nil {
		return err
	}
	if f.provider == "kfake" || f.provider == "external" {
		// Runs on a named cluster are recorded as Kafka (external): only a
		// real broker qualifies, and an external one is up already.
		return fmt.Errorf("--provider %s: cluster up starts Kafka brokers: use auto, process or container", f.provider)
	}
	if _, err := infra.NewProvider(f.provider); err != nil {
		return err
	}
	if st, err := readClusterState(f.name); err == nil {
		if supervisorAlive(st) {
			return fmt.Errorf("cluster %q is already up (bootstrap %s, supervisor pid %d): use it, or stop it with `sharebench cluster down --name %s`",
				f.name, strings.Join(st.Bootstrap, ","), st.SupervisorPID, f.name)
		}
		fmt.Fprintf(out, "cluster %q: removing stale state (supervisor pid %d is gone)\n", f.name, st.SupervisorPID)
		removeCluster(stateFile, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cluster %q: %w", f.name, err)
	}
	logPath := filepath.Join(dir, "serve.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("cluster %q: serve log: %w", f.name, err)
	}
	defer logFile.Close()
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cluster %q: find own executable: %w", f.name, err)
	}
	args := []string{"cluster", "serve", "--name", f.name, "--provider", f.provider,
		"--nodes", strconv.Itoa(f.nodes), "--kafka-version", f.version}
	for _, s := range f.sets {
		args = append(args, "--set", s)
	}
	sup := exec.Command(self, args...)
	sup.Stdout, sup.Stderr = logFile, logFile
	// A session of its own: no terminal signal reaches it, and it outlives us.
	sup.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := sup.Start(); err != nil {
		return fmt.Errorf("cluster %q: start supervisor: %w", f.name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- sup.Wait() }()
	fmt.Fprintf(out, "cluster %q: starting %d node(s) with provider %s (supervisor pid %d, log %s)\n",
		f.name, f.nodes, f.provider, sup.Process.Pid, logPath)

	ctx, cancel := context.WithTimeout(cmd.Context(), clusterUpTimeout)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			os.Remove(stateFile) // the log stays for the user to read
			return fmt.Errorf("cluster %q: the supervisor exited (%v) before the cluster was ready; %s ends:\n%s",
				f.name, err, logPath, tailOf(logPath, 3<<10))
		case <-ctx.Done():
			// Interrupted or too slow: the supervisor stops what it started.
			_ = sup.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(clusterDownWait):
				_ = sup.Process.Kill()
			}
			removeCluster(stateFile, dir)
			return fmt.Errorf("cluster %q: not ready: %w", f.name, context.Cause(ctx))
		case <-tick.C:
			st, err := readClusterState(f.name)
			if err != nil || st.SupervisorPID != sup.Process.Pid {
				continue
			}
			printClusterState(out, st)
			fmt.Fprintf(out, "use it: sharebench run --cluster %s --scenario SCENARIO; stop it: sharebench cluster down --name %s\n", f.name, f.name)
			return nil
		}
	}
}

// clusterServe is the supervisor: start, publish the state, hold until
// signalled, stop.
func clusterServe(cmd *cobra.Command, f clusterFlags) error {
	stateFile, dir, err := clusterPaths(f.name)
	if err != nil {
		return err
	}
	spec, err := f.spec(filepath.Join(dir, "logs"))
	if err != nil {
		return err
	}
	spec.Log = cmd.OutOrStdout()
	p, err := infra.NewProvider(f.provider)
	if err != nil {
		return err
	}
	ctx := cmd.Context() // ends on SIGTERM or SIGINT (main)
	c, err := p.Start(ctx, spec)
	if err != nil {
		return err
	}
	defer func() {
		os.Remove(stateFile)
		fmt.Fprintln(cmd.OutOrStdout(), "stopping the cluster")
		if err := c.Stop(context.Background()); err != nil {
			fmt.Fprintln(cmd.OutOrStdout(), "stop:", err)
		}
		fmt.Fprintln(cmd.OutOrStdout(), "stopped")
	}()
	st := clusterState{
		Name: f.name, Provider: c.Provider(), KafkaVersion: c.KafkaVersion(), Nodes: c.Nodes(),
		Bootstrap: c.Bootstrap(), MetricsURLs: c.MetricsURLs(), BrokerConfig: c.BrokerConfig(),
		SupervisorPID: os.Getpid(), LogDir: c.LogDir(), ServeLog: filepath.Join(dir, "serve.log"),
		StartedAt: time.Now().UTC().Format(time.RFC3339),
	}
	if err := writeClusterState(stateFile, st); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "cluster %q ready; holding it until SIGTERM\n", f.name)
	<-ctx.Done()
	return nil
}

func clusterStatus(cmd *cobra.Command, name string) error {
	out := cmd.OutOrStdout()
	st, err := readClusterState(name)
	if err != nil {
		return err
	}
	printClusterState(out, st)
	if !supervisorAlive(st) {
		return fmt.Errorf("cluster %q: supervisor pid %d is not running: the cluster is gone (remove the stale state with `sharebench cluster down --name %s`)", name, st.SupervisorPID, name)
	}
	answering, err := brokersAnswering(cmd.Context(), st.Bootstrap)
	if err != nil {
		return fmt.Errorf("cluster %q: brokers do not answer: %w", name, err)
	}
	fmt.Fprintf(out, "brokers answering: %d of %d\n", answering, st.Nodes)
	if answering < st.Nodes {
		return fmt.Errorf("cluster %q: %d of %d brokers answer", name, answering, st.Nodes)
	}
	return nil
}

func clusterDown(cmd *cobra.Command, name string) error {
	out := cmd.OutOrStdout()
	stateFile, dir, err := clusterPaths(name)
	if err != nil {
		return err
	}
	st, err := readClusterState(name)
	if err != nil {
		return err
	}
	if !supervisorAlive(st) {
		removeCluster(stateFile, dir)
		fmt.Fprintf(out, "cluster %q: supervisor pid %d was not running (the cluster was already gone); removed its stale state\n", name, st.SupervisorPID)
		return nil
	}
	fmt.Fprintf(out, "cluster %q: stopping (supervisor pid %d)\n", name, st.SupervisorPID)
	if err := syscall.Kill(st.SupervisorPID, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("cluster %q: signal supervisor pid %d: %w", name, st.SupervisorPID, err)
	}
	began := time.Now()
	for supervisorAlive(st) && time.Since(began) < clusterDownWait {
		time.Sleep(200 * time.Millisecond)
	}
	if supervisorAlive(st) {
		// Its brokers die with it (parent-death signal).
		_ = syscall.Kill(st.SupervisorPID, syscall.SIGKILL)
		fmt.Fprintf(out, "cluster %q: supervisor still running after %v; killed it\n", name, clusterDownWait)
	}
	removeCluster(stateFile, dir)
	fmt.Fprintf(out, "cluster %q: stopped in %v; removed %s and %s\n", name, time.Since(began).Round(100*time.Millisecond), stateFile, dir)
	return nil
}

func readClusterState(name string) (clusterState, error) {
	stateFile, _, err := clusterPaths(name)
	if err != nil {
		return clusterState{}, err
	}
	b, err := os.ReadFile(stateFile)
	if errors.Is(err, os.ErrNotExist) {
		return clusterState{}, fmt.Errorf("no cluster named %q (no state file %s); start one with `sharebench cluster up --name %s`", name, stateFile, name)
	}
	if err != nil {
		return clusterState{}, fmt.Errorf("cluster %q: %w", name, err)
	}
	var st clusterState
	if err := json.Unmarshal(b, &st); err != nil {
		return clusterState{}, fmt.Errorf("cluster %q: state file %s: %w", name, stateFile, err)
	}
	if len(st.Bootstrap) == 0 || st.SupervisorPID <= 0 {
		return clusterState{}, fmt.Errorf("cluster %q: state file %s: bootstrap and supervisor_pid must be set", name, stateFile)
	}
	return st, nil
}

// writeClusterState writes the state atomically: readers never see half.
func writeClusterState(path string, st clusterState) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("cluster %q: state file: %w", st.Name, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("cluster %q: state file: %w", st.Name, err)
	}
	return nil
}

func removeCluster(stateFile, dir string) {
	os.Remove(stateFile)
	os.RemoveAll(dir)
}

// supervisorAlive reports whether the state's supervisor still runs and is
// one (a recycled pid belongs to some other program).
func supervisorAlive(st clusterState) bool {
	if !processAlive(st.SupervisorPID) {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", st.SupervisorPID))
	if err != nil {
		return true // no /proc: trust the signal check
	}
	args := strings.Split(string(cmdline), "\x00")
	return strings.Contains(strings.Join(args, " "), "cluster serve --name "+st.Name+" ")
}

// processAlive reports whether pid runs: it exists and, where /proc tells,
// is not a zombie (an orphaned supervisor waits as one until its new parent
// reaps it).
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || (b[i+2] != 'Z' && b[i+2] != 'X')
}

// brokersAnswering asks the cluster for its broker list.
func brokersAnswering(ctx context.Context, bootstrap []string) (int, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...), kgo.DialTimeout(3*time.Second))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	md, err := req.RequestWith(ctx, cl)
	if err != nil {
		return 0, err
	}
	return len(md.Brokers), nil
}

func printClusterState(w io.Writer, st clusterState) {
	fmt.Fprintf(w, "cluster %q: %s, Kafka %s, %d node(s), up since %s\n", st.Name, st.Provider, st.KafkaVersion, st.Nodes, st.StartedAt)
	fmt.Fprintf(w, "bootstrap: %s\n", strings.Join(st.Bootstrap, ","))
	for i, u := range st.MetricsURLs {
		fmt.Fprintf(w, "metrics broker %d: %s\n", i+1, u)
	}
	fmt.Fprintf(w, "supervisor pid %d, broker logs %s, supervisor log %s\n", st.SupervisorPID, st.LogDir, st.ServeLog)
}

// tailOf returns about the last n bytes of a file.
func tailOf(path string, n int64) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	if int64(len(b)) > n {
		b = b[int64(len(b))-n:]
	}
	return strings.TrimSpace(string(b))
}
