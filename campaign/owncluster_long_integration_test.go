//go:build integration && long

package campaign

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/scenarios"
)

// needOwnCluster is the preamble of a test that starts clusters of its own
// through the process provider: skipped under -short, and where java or
// mvn is missing it is unavailable (a failure where real brokers are
// required, as under CI).
func needOwnCluster(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: real-broker tests skipped")
	}
	if reason := testkit.MissingTools("java", "mvn"); reason != "" {
		testkit.Unavailable(t, reason)
	}
}

// builtin loads a built-in scenario or fails the test.
func builtin(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// runOnOwnCluster runs sc through the process provider into a temporary
// results folder, bounded by timeout. A failed campaign fails the test with
// the campaign's log; the log is returned for assertions on what it says.
func runOnOwnCluster(t *testing.T, sc *scenarios.Scenario, timeout time.Duration) (*Result, string) {
	t.Helper()
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, err := Run(ctx, sc, Options{Provider: "process", ResultsDir: t.TempDir(), Log: &log})
	if err != nil {
		t.Log(log.String())
		t.Fatal(err)
	}
	return res, log.String()
}
