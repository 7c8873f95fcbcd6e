package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
)

func execute(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

func TestBadInputNamesWhatToFix(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown key", []string{"run", "--provider", "kfake", "--scenario", write("typo.yaml", "name: t\nmax_poll_record: 5\n")},
			[]string{"typo.yaml", `"max_poll_record"`, "max_poll_records"}},
		{"negative rate", []string{"run", "--provider", "kfake", "--scenario", write("rate.yaml", "name: t\nrate: -5\n")},
			[]string{"rate.yaml", "rate", "-5"}},
		{"members above group.share.max.size", []string{"run", "--provider", "kfake", "--scenario",
			write("big.yaml", "name: t\nconsumer_type: share\nmembers: 300\n")},
			[]string{"big.yaml", "members", "group.share.max.size", "200"}},
		{"bad --set", []string{"run", "--provider", "kfake", "--scenario", "smoke", "--set", "acks=some"},
			[]string{"acks", "all", "leader", "none"}},
		{"unknown provider", []string{"run", "--provider", "cloud", "--scenario", "smoke"},
			[]string{`provider "cloud"`, "process", "kfake"}},
		{"missing scenario", []string{"run"}, []string{"--scenario", "partition-cap"}},
		{"external without bootstrap", []string{"run", "--provider", "external", "--scenario", "smoke"}, []string{"--bootstrap"}},
		{"no such file", []string{"run", "--scenario", filepath.Join(dir, "nope.yaml")}, []string{"nope.yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := execute(t, tc.args...)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestScenariosListAndShow(t *testing.T) {
	out, err := execute(t, "scenarios", "list")
	if err != nil || !strings.Contains(out, "partition-cap") || !strings.Contains(out, "2 run(s)") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	for _, name := range []string{"scale-past-partitions", "overhead-parity", "mpr-cliff", "poison-and-limit", "implicit-vs-explicit", "smoke"} {
		if !strings.Contains(out, name) {
			t.Errorf("list lacks %s:\n%s", name, out)
		}
	}
	if !strings.Contains(out, "3 expectation(s)  More consumers than partitions") {
		t.Errorf("list lacks partition-cap's expectations and description:\n%s", out)
	}
	out, err = execute(t, "scenarios", "show", "partition-cap")
	for _, w := range []string{
		"# builtin:partition-cap.yaml", "members: 12", "expect:",
		"runs (2):", "r02-share  share m12 w1 mpr20",
		"  - share group keeps up where partitions cap the consumer group: share / consumer throughput.completed_per_sec ≥ 2",
		"  - consumer group reaches its worker ceiling: consumer runs: ceiling.efficiency in [0.9, 1.05]",
		"  - no record lost: all runs: audit.lost ≤ 0",
	} {
		if err != nil || !strings.Contains(out, w) {
			t.Errorf("show lacks %q: %v\n%s", w, err, out)
		}
	}
	// per: client is shown, and so is why a client has no run to check.
	out, err = execute(t, "scenarios", "show", "client-parity-expiry")
	for _, w := range []string{
		"  - with renewal the locks are renewed: share where renew=auto runs: outcomes.renewals ≥ 1, per client\n",
		"      client librdkafka: skipped (client librdkafka refuses these runs: renew: client librdkafka has no RENEW acknowledgement",
	} {
		if err != nil || !strings.Contains(out, w) {
			t.Errorf("show lacks %q: %v\n%s", w, err, out)
		}
	}
	out, err = execute(t, "scenarios", "show", "--json", "partition-cap")
	if err != nil || !strings.Contains(out, `"members": 12`) || !strings.Contains(out, `"field": "ceiling.efficiency"`) {
		t.Fatalf("show --json: %v\n%s", err, out)
	}
}

// Expectations on the CLI path (kfake): printed after the verdict with
// MET/NOT MET and stored in campaign.json and summary.md.
func TestRunPrintsExpectations(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "exp.yaml")
	yaml := `name: exp
description: expectations end to end
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
  - name: impossible speed-up
    ratio: {measure: completed_per_sec, numerator: share, denominator: consumer, min: 100}
`
	if err := os.WriteFile(sc, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	// An expectation NOT MET fails the run verdict: exit status 3, naming it.
	out, err := execute(t, "run", "--provider", "kfake", "--scenario", sc, "--results", dir)
	if exitCode(err) != ExitVerdict || !strings.Contains(err.Error(), `expectation "impossible speed-up" NOT MET`) ||
		!strings.Contains(err.Error(), "--no-fail") {
		t.Fatalf("err %v (exit %d), want exit %d naming the expectation\n%s", err, exitCode(err), ExitVerdict, out)
	}
	// The headline counts the expectations and names the one not met with
	// its measured ratio; every claim in full is behind --detail.
	for _, w := range []string{"expectations: 1 of 2 met", "  NOT MET: impossible speed-up (measured r02-share/r01-consumer "} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "  MET      no record lost") {
		t.Errorf("the default output lists every claim (that is --detail's):\n%s", out)
	}
	folders, _ := filepath.Glob(filepath.Join(dir, "exp-*"))
	if len(folders) != 1 {
		t.Fatalf("campaign folder: %v", folders)
	}
	camp, err := runs.ReadCampaign(folders[0])
	if err != nil || len(camp.Expectations) != 2 || !camp.Expectations[0].Met || camp.Expectations[1].Met {
		t.Errorf("campaign.json expectations: %v %+v", err, camp.Expectations)
	}
	md, _ := os.ReadFile(filepath.Join(folders[0], "summary.md"))
	if !strings.Contains(string(md), "- **NOT MET** impossible speed-up") {
		t.Errorf("summary.md lacks the expectation:\n%s", md)
	}
}

// The whole CLI path on kfake: with --detail the table and the verdict,
// then the headline, and the results folder with run.json files (labelled
// not Kafka).
func TestRunSmokeOnKfake(t *testing.T) {
	dir := t.TempDir()
	out, err := execute(t, "run", "--provider", "kfake", "--scenario", "smoke", "--results", dir,
		"--set", "duration=2s", "--set", "warmup=1s", "--detail")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, w := range []string{"completed records/s", "ceiling records/s", "NOT KAFKA", "share/consumer",
		"smoke: 2 run(s) on kfake (not Kafka)", "throughput: share ", "report: " + dir} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if table, head := strings.Index(out, "completed records/s"), strings.Index(out, "throughput: share "); table > head {
		t.Errorf("--detail: the table (at %d) should come before the headline (at %d)", table, head)
	}
	recs, _ := filepath.Glob(filepath.Join(dir, "smoke-*", "runs", "*", "run.json"))
	if len(recs) != 2 {
		t.Fatalf("want 2 run.json files, got %v", recs)
	}
	camp, _ := filepath.Glob(filepath.Join(dir, "smoke-*", "campaign.json"))
	if len(camp) != 1 {
		t.Fatalf("campaign.json missing")
	}
}

func TestStrayArgumentsAreErrors(t *testing.T) {
	for _, args := range [][]string{{"bench", "extra-word"}, {"run", "--scenario", "smoke", "oops"}, {"version", "x"}, {"scenarios", "list", "x"}} {
		root := newRoot()
		root.SetArgs(args)
		root.SetOut(io.Discard)
		err := root.Execute()
		if err == nil || !strings.Contains(err.Error(), "x") && !strings.Contains(err.Error(), "oops") && !strings.Contains(err.Error(), "extra-word") {
			t.Errorf("%v: err = %v, want an error naming the stray argument", args, err)
		}
	}
}

func TestVersionPrintsBuildInfo(t *testing.T) {
	root := newRoot()
	var out strings.Builder
	root.SetOut(&out)
	root.SetArgs([]string{"version"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "sharebench ") || strings.Contains(got, "sharebench dev") || !strings.Contains(got, "go1.") {
		t.Errorf("version printed %q, want the module version and Go version", got)
	}
}
