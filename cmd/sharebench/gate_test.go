package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const smallScenario = `name: small
consumer_type: [consumer, share]
partitions: 2
members: 2
rate: 200
processing: {model: none}
warmup: 1s
duration: 2s
drain_timeout: 30s
expect:
  - name: no record lost
    measure: {runs: all, field: audit.lost, max: 0}
`

// scenarios show takes a file: validated and shown, nothing run.
func TestScenariosShowFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "my.yaml")
	os.WriteFile(good, []byte(smallScenario), 0o644)
	out, err := execute(t, "scenarios", "show", good)
	for _, w := range []string{"# " + good, "name: small", "runs (2):", "r02-share", "  - no record lost: all runs: audit.lost ≤ 0"} {
		if err != nil || !strings.Contains(out, w) {
			t.Errorf("show FILE lacks %q: %v\n%s", w, err, out)
		}
	}
	out, err = execute(t, "scenarios", "show", "--json", good)
	if err != nil || !strings.Contains(out, `"members": 2`) {
		t.Errorf("show --json FILE: %v\n%s", err, out)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: t\nmax_poll_record: 5\n"), 0o644)
	if _, err := execute(t, "scenarios", "show", bad); exitCode(err) != ExitUsage || !strings.Contains(err.Error(), "bad.yaml") ||
		!strings.Contains(err.Error(), "max_poll_records") {
		t.Errorf("show bad FILE: %v (exit %d)", err, exitCode(err))
	}
	if _, err := execute(t, "scenarios", "show", "no-such-builtin"); err == nil || !strings.Contains(err.Error(), "for a file, give its path") {
		t.Errorf("show unknown: %v", err)
	}
}

// run --dry-run validates, expands and sizes, and starts nothing (no
// results folder appears).
func TestRunDryRun(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "small.yaml")
	os.WriteFile(sc, []byte(smallScenario), 0o644)
	results := filepath.Join(dir, "results")
	out, err := execute(t, "run", "--dry-run", "--provider", "process", "--scenario", sc, "--results", results,
		"--set", "members=[2,4]")
	for _, w := range []string{"scenario small", "4 run(s)", "dry run: nothing started", "r04-share", "1s warm-up + 2s window = 3s, drain up to 30s",
		"memory about", "planned: about 12s of load", "memory: every run fits the budget"} {
		if err != nil || !strings.Contains(out, w) {
			t.Errorf("dry run lacks %q: %v\n%s", w, err, out)
		}
	}
	if _, err := os.Stat(results); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dry run created %s: %v", results, err)
	}
	if _, err := execute(t, "run", "--dry-run", "--scenario", sc, "--set", "members=0"); exitCode(err) != ExitUsage || !strings.Contains(err.Error(), "members") {
		t.Errorf("dry run of a bad --set: %v (exit %d), want exit 2 naming members", err, exitCode(err))
	}
	if out, err := execute(t, "bench", "--dry-run"); err != nil || !strings.Contains(out, "scenario partition-cap") {
		t.Errorf("bench --dry-run: %v\n%s", err, out)
	}
}

// No flag of any command shows a bogus type in --help: pflag takes the
// first backquoted text of a usage string as the value's name, so it must
// be a placeholder like NAME, not a command.
func TestFlagUsageHasNoBogusType(t *testing.T) {
	placeholder := regexp.MustCompile(`^[A-Z][A-Z_]*$`)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(f)
			if strings.Contains(f.Usage, "`") && !placeholder.MatchString(name) {
				t.Errorf("%s --%s shows type %q", c.CommandPath(), f.Name, name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
	out, _ := execute(t, "run", "--help")
	if strings.Contains(out, "--cluster sharebench") || !strings.Contains(out, "--cluster NAME") {
		t.Errorf("run --help shows --cluster wrongly:\n%s", out)
	}
}

// The run verdict: --no-fail keeps exit status 0 and still prints why.
// The same run writes a CPU profile (--cpu-profile): a gzipped pprof file.
func TestRunNoFail(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "exp.yaml")
	os.WriteFile(sc, []byte(smallScenario+`  - name: impossible speed-up
    ratio: {measure: completed_per_sec, numerator: share, denominator: consumer, min: 100}
`), 0o644)
	prof := filepath.Join(dir, "cpu.pprof")
	out, err := execute(t, "run", "--no-fail", "--provider", "kfake", "--scenario", sc, "--results", dir, "--cpu-profile", prof)
	if err != nil || !strings.Contains(out, "run verdict FAILED (--no-fail: exit status 0)") ||
		!strings.Contains(out, `expectation "impossible speed-up" NOT MET`) {
		t.Errorf("--no-fail: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(prof); err != nil || len(b) < 100 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("--cpu-profile: %d bytes, err %v; want a gzipped pprof profile", len(b), err)
	}
	if _, err := execute(t, "run", "--provider", "kfake", "--scenario", sc, "--results", dir,
		"--cpu-profile", filepath.Join(dir, "no", "such", "dir", "cpu.pprof")); exitCode(err) != ExitUsage || !strings.Contains(err.Error(), "--cpu-profile") {
		t.Errorf("--cpu-profile into a missing folder: %v, want a usage error naming the flag", err)
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("boom"), 1},
		{&regressionError{}, 1},
		{usageError(errors.New("bad")), 2},
		{&exitError{code: ExitVerdict, err: errors.New("lost")}, 3},
		{errors.Join(errors.New("run r01"), contextCanceled()), 130},
		{errors.New(`unknown command "frobnicate" for "sharebench"`), 2},
	}
	for _, tc := range tests {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
	if _, err := execute(t, "run", "--scenario", "smoke", "--provider", "kfake", "--bogus"); exitCode(err) != ExitUsage {
		t.Errorf("unknown flag: %v exit %d", err, exitCode(err))
	}
	if _, err := execute(t, "run", "--provider", "kfake", "--scenario", "no-such-scenario"); exitCode(err) != ExitUsage {
		t.Errorf("unknown scenario: %v exit %d", err, exitCode(err))
	}
}

func contextCanceled() error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx.Err()
}
