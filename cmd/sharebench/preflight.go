package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sharebench/sharebench/campaign"
	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/scenarios"
)

// providers are the --provider values run accepts (infra.NewProvider).
var providers = []string{"auto", "process", "container", "kfake", "external"}

// kfakeCannot are the scheduled events kfake, an in-process fake with no
// broker process, cannot perform.
var kfakeCannot = []string{"broker_kill", "broker_restart", "broker_pause", "broker_disconnect",
	"broker_rolling_restart", "broker_rolling_upgrade"}

// rollingRefusal says why provider cannot run the rolling event action
// ("" when it can): the external provider does not control the brokers
// (nor does a cluster up cluster reached with --cluster), and only the
// process provider restarts a broker on another release's jars.
func rollingRefusal(provider, cluster, action string) string {
	switch {
	case action != scenarios.ActionBrokerRollingRestart && action != scenarios.ActionBrokerRollingUpgrade:
		return ""
	case cluster != "":
		return fmt.Sprintf("events: %s: --cluster %s is a cluster up cluster this run does not control; run without --cluster (the run starts its own brokers)", action, cluster)
	case provider == "external":
		return fmt.Sprintf("events: %s: the external provider does not control the brokers; use --provider process", action)
	case provider == "container" && action == scenarios.ActionBrokerRollingUpgrade:
		return fmt.Sprintf("events: %s: the container provider cannot restart a broker on another release's image (it builds one image); use --provider process", action)
	}
	return ""
}

// preflight is the checks run makes before starting anything, shared by
// --dry-run, the run and advise --verify (one check path): the provider's
// name, the metrics address, --cluster beside the flags its state replaces,
// the flags that only mean something with another provider (--bootstrap,
// --metrics-url, the connection flags), the external provider's
// --metrics-url values and connection settings (the file read and
// validated), the distribute flags that no sharded run would use or that a
// sharded run lacks (--image for k8s agents), the destination's dsn
// (campaign.CheckDestination), and the events the provider cannot do.
// changed reports whether the user gave a flag. Every failure is a usage
// error (exit status 2).
func preflight(f runFlags, sc *scenarios.Scenario, changed func(flag string) bool) error {
	var errs []string
	errs = append(errs, distributePreflight(f.dist, sc, changed)...)
	if !slices.Contains(providers, f.provider) {
		errs = append(errs, fmt.Sprintf("--provider %q: unknown; expected one of %s", f.provider, strings.Join(providers, ", ")))
	}
	if f.metrics != "" {
		if err := collectors.CheckMetricsAddr(f.metrics); err != nil {
			errs = append(errs, "--metrics-addr: "+err.Error())
		}
	}
	connGiven := connFlagsGiven(changed)
	switch {
	case f.cluster != "":
		for _, flag := range append([]string{"provider", "bootstrap", "metrics-url"}, connGiven...) {
			if changed(flag) {
				errs = append(errs, fmt.Sprintf("--cluster %s: the cluster's state gives the provider, addresses and connection settings; drop --%s", f.cluster, flag))
			}
		}
	case f.provider != "external":
		if len(f.bootstrap) > 0 {
			errs = append(errs, fmt.Sprintf("--bootstrap: only the external provider connects to given addresses; --provider %s starts its own cluster (add --provider external)", f.provider))
		}
		if len(f.metricURLs) > 0 {
			errs = append(errs, fmt.Sprintf("--metrics-url: only the external provider scrapes given endpoints; --provider %s scrapes the brokers it starts", f.provider))
		}
		if len(connGiven) > 0 {
			errs = append(errs, fmt.Sprintf("connection flag --%s applies to --provider external (or a secured cluster up) only; the %s provider's brokers are plaintext", connGiven[0], f.provider))
		}
	default: // external: what the run would build from the flags
		for _, u := range f.metricURLs {
			if _, _, err := collectors.ParseMetricsEndpoint(u); err != nil {
				errs = append(errs, "--metrics-url: "+err.Error())
			}
		}
		if _, err := f.conn.settings(changed); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if sc != nil {
		if err := campaign.CheckDestination(sc, f.destDSN); err != nil { // the dsn, its ${VAR}s, --destination-dsn
			errs = append(errs, err.Error())
		}
	}
	if f.provider == "kfake" && sc != nil {
		seen := map[string]bool{}
		for _, r := range sc.Runs {
			for _, e := range r.Events {
				if slices.Contains(kfakeCannot, e.Action) && !seen[e.Action] {
					seen[e.Action] = true
					errs = append(errs, fmt.Sprintf("events: %s: the kfake provider has no broker process to act on; use --provider process or container", e.Action))
				}
			}
		}
	}
	if sc != nil {
		seen := map[string]bool{}
		for _, r := range sc.Runs {
			for _, e := range r.Events {
				if msg := rollingRefusal(f.provider, f.cluster, e.Action); msg != "" && !seen[e.Action] && f.provider != "kfake" {
					seen[e.Action] = true
					errs = append(errs, msg)
				}
			}
		}
	}
	if len(errs) > 0 {
		return usageError(fmt.Errorf("%s", strings.Join(errs, "\n  ")))
	}
	return nil
}

// k8sOnlyFlags are the distribute flags only --distribute k8s reads.
var k8sOnlyFlags = []string{"image", "namespace", "kubeconfig", "kube-context"}

// distributePreflight refuses distribute flags that would change nothing:
// --distribute and the agent flags when no run of the scenario is sharded
// (every run in this process), the Kubernetes flags with local agents and
// --agent-binary with Kubernetes ones; and an unknown --distribute.
func distributePreflight(d distributeFlags, sc *scenarios.Scenario, changed func(string) bool) []string {
	sharded := false
	if sc != nil {
		for _, r := range sc.Runs {
			sharded = sharded || r.ShardCount() > 1
		}
	}
	var errs []string
	if _, ok := launchers[d.Distribute]; !ok {
		names := slices.Sorted(maps.Keys(launchers))
		errs = append(errs, fmt.Sprintf("--distribute %q: expected one of %s", d.Distribute, strings.Join(names, ", ")))
	}
	if !sharded && sc != nil {
		for _, name := range append([]string{"distribute", "agent-binary"}, k8sOnlyFlags...) {
			if changed(name) {
				errs = append(errs, fmt.Sprintf("--%s: no run of scenario %s is sharded (shards: 1 and no --shards), so every run is in this process "+
					"and --%s would be ignored; add --shards N (N ≥ 2) or drop it", name, sc.Name, name))
			}
		}
		return errs
	}
	for _, name := range k8sOnlyFlags {
		if changed(name) && d.Distribute != "k8s" {
			errs = append(errs, fmt.Sprintf("--%s: only --distribute k8s reads it; with --distribute %s it would be ignored", name, d.Distribute))
		}
	}
	if changed("agent-binary") && d.Distribute == "k8s" {
		errs = append(errs, "--agent-binary: only --distribute local starts a binary; k8s agents run the image (--image)")
	}
	if d.Distribute == "k8s" && !k8sBuilt {
		errs = append(errs, "--distribute k8s: "+k8sNotBuilt)
	}
	if d.Distribute == "k8s" && strings.TrimSpace(d.Image) == "" {
		errs = append(errs, k8sNeedsImage)
	}
	return errs
}
