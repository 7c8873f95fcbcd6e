package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/infra"
)

// Long-lived clusters for tuning sessions: `cluster up` re-executes itself
// as the hidden `cluster serve`, the supervisor that holds the cluster
// (infra.NamedCluster: Launch, Serve, StopSupervisor); later runs use it as
// an external one (`run --cluster NAME`). This file has the flags and the
// printing.

type clusterFlags struct {
	name, provider, version string
	nodes                   int
	sets                    []string
	security                string // --security: sasl_ssl or mtls (process provider)
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
	up.Flags().StringVar(&f.security, "security", "", "secure the client listener: sasl_ssl (SCRAM-SHA-512, a generated user and password) or mtls (a generated client certificate); process provider only")
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

// clusterSpec validates the up/serve flags into a spec.
func (f clusterFlags) spec() (infra.ClusterSpec, error) {
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
	spec := infra.ClusterSpec{Nodes: f.nodes, KafkaVersion: f.version, BrokerConfig: cfg}
	if f.security != "" {
		if f.provider != "process" {
			return spec, fmt.Errorf("--security %s: only --provider process starts secured brokers", f.security)
		}
		spec.Security = &infra.ClusterSecurity{Mode: f.security}
	}
	return spec, nil
}

func clusterUp(cmd *cobra.Command, f clusterFlags) error {
	out := cmd.OutOrStdout()
	n, err := infra.OpenNamedCluster(f.name)
	if err != nil {
		return err
	}
	if _, err := f.spec(); err != nil {
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
	stale, err := n.ClearStale()
	if err != nil {
		return err
	}
	if stale != nil {
		fmt.Fprintf(out, "cluster %q: removed stale state (supervisor pid %d is gone)\n", f.name, stale.SupervisorPID)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cluster %q: find own executable: %w", f.name, err)
	}
	args := []string{"--provider", f.provider, "--nodes", strconv.Itoa(f.nodes), "--kafka-version", f.version}
	for _, s := range f.sets {
		args = append(args, "--set", s)
	}
	if f.security != "" {
		args = append(args, "--security", f.security)
	}
	sup, err := n.Launch(self, args)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "cluster %q: starting %d node(s) with provider %s (supervisor pid %d, log %s)\n",
		f.name, f.nodes, f.provider, sup.Pid(), n.ServeLog())
	st, err := sup.WaitReady(cmd.Context())
	if err != nil {
		return err
	}
	printClusterState(out, st)
	fmt.Fprintf(out, "use it: sharebench run --cluster %s --scenario SCENARIO; stop it: sharebench cluster down --name %s\n", f.name, f.name)
	return nil
}

// clusterServe is the supervisor (infra.NamedCluster.Serve); its output is
// serve.log.
func clusterServe(cmd *cobra.Command, f clusterFlags) error {
	n, err := infra.OpenNamedCluster(f.name)
	if err != nil {
		return err
	}
	spec, err := f.spec()
	if err != nil {
		return err
	}
	spec.Log = cmd.OutOrStdout()
	p, err := infra.NewProvider(f.provider)
	if err != nil {
		return err
	}
	return n.Serve(cmd.Context(), p, spec) // the context ends on SIGTERM or SIGINT (main)
}

// openCluster returns a named cluster and its state, and whether its
// supervisor may run; a doubt about that is printed.
func openCluster(w io.Writer, name string) (infra.NamedCluster, infra.ClusterState, bool, error) {
	n, err := infra.OpenNamedCluster(name)
	if err != nil {
		return n, infra.ClusterState{}, false, err
	}
	st, err := n.ReadState()
	if err != nil {
		return n, st, false, err
	}
	alive, doubt := n.SupervisorAlive(st)
	if doubt != nil {
		fmt.Fprintf(w, "cluster %q: %v; taking supervisor pid %d as running\n", name, doubt, st.SupervisorPID)
	}
	return n, st, alive, nil
}

func clusterStatus(cmd *cobra.Command, name string) error {
	out := cmd.OutOrStdout()
	_, st, alive, err := openCluster(out, name)
	if err != nil {
		return err
	}
	printClusterState(out, st)
	if !alive {
		return fmt.Errorf("cluster %q: supervisor pid %d is not running: the cluster is gone (remove the stale state with `sharebench cluster down --name %s`)", name, st.SupervisorPID, name)
	}
	ids, err := infra.CheckConnection(cmd.Context(), st.Bootstrap, st.Connection.Settings(), 15*time.Second)
	if err != nil {
		return fmt.Errorf("cluster %q: brokers do not answer: %w", name, err)
	}
	fmt.Fprintf(out, "brokers answering: %d of %d\n", len(ids), st.Nodes)
	if len(ids) < st.Nodes {
		return fmt.Errorf("cluster %q: %d of %d brokers answer", name, len(ids), st.Nodes)
	}
	return nil
}

func clusterDown(cmd *cobra.Command, name string) error {
	out := cmd.OutOrStdout()
	n, st, alive, err := openCluster(out, name)
	if err != nil {
		return err
	}
	if !alive {
		n.Remove()
		fmt.Fprintf(out, "cluster %q: supervisor pid %d was not running (the cluster was already gone); removed its stale state\n", name, st.SupervisorPID)
		return nil
	}
	fmt.Fprintf(out, "cluster %q: stopping (supervisor pid %d)\n", name, st.SupervisorPID)
	began := time.Now()
	killed, err := n.StopSupervisor(cmd.Context(), st)
	if err != nil {
		return err
	}
	if killed {
		fmt.Fprintf(out, "cluster %q: supervisor still running after %v; killed it\n", name, infra.SupervisorStopWait)
	}
	fmt.Fprintf(out, "cluster %q: stopped in %v; removed %s and %s\n", name, time.Since(began).Round(100*time.Millisecond), n.StateFile, n.Dir)
	return nil
}

func printClusterState(w io.Writer, st infra.ClusterState) {
	fmt.Fprintf(w, "cluster %q: %s, Kafka %s, %d node(s), up since %s\n", st.Name, st.Provider, st.KafkaVersion, st.Nodes, st.StartedAt)
	fmt.Fprintf(w, "bootstrap: %s\n", strings.Join(st.Bootstrap, ","))
	if st.Connection != nil {
		fmt.Fprintf(w, "connection: %s\n", st.Connection.Describe)
	}
	for i, u := range st.MetricsURLs {
		fmt.Fprintf(w, "metrics broker %d: %s\n", i+1, u)
	}
	fmt.Fprintf(w, "supervisor pid %d, broker logs %s, supervisor log %s\n", st.SupervisorPID, st.LogDir, st.ServeLog)
}
