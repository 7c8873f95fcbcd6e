package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/scenarios"
)

// providers are the --provider values run accepts (infra.NewProvider).
var providers = []string{"auto", "process", "container", "kfake", "external"}

// kfakeCannot are the scheduled events kfake, an in-process fake with no
// broker process, cannot perform.
var kfakeCannot = []string{"broker_kill", "broker_restart", "broker_pause", "broker_disconnect"}

// preflight is the checks run makes before starting anything, shared by
// --dry-run and the run (one check path): the provider's name, the
// metrics address, the flags that only mean something with another
// provider, and the events the provider cannot do. Every failure is a
// usage error (exit status 2).
func preflight(f runFlags, sc *scenarios.Scenario) error {
	var errs []string
	if !slices.Contains(providers, f.provider) {
		errs = append(errs, fmt.Sprintf("--provider %q: unknown; expected one of %s", f.provider, strings.Join(providers, ", ")))
	}
	if f.metrics != "" {
		if err := collectors.CheckMetricsAddr(f.metrics); err != nil {
			errs = append(errs, "--metrics-addr: "+err.Error())
		}
	}
	if f.provider != "external" && f.cluster == "" {
		if len(f.bootstrap) > 0 {
			errs = append(errs, fmt.Sprintf("--bootstrap: only the external provider connects to given addresses; --provider %s starts its own cluster (add --provider external)", f.provider))
		}
		if len(f.metricURLs) > 0 {
			errs = append(errs, fmt.Sprintf("--metrics-url: only the external provider scrapes given endpoints; --provider %s scrapes the brokers it starts", f.provider))
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
	if len(errs) > 0 {
		return usageError(fmt.Errorf("%s", strings.Join(errs, "\n  ")))
	}
	return nil
}
