package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	out, err = execute(t, "scenarios", "show", "partition-cap")
	if err != nil || !strings.Contains(out, `"members": 12`) || !strings.Contains(out, `"consumer_type": "share"`) {
		t.Fatalf("show: %v\n%s", err, out)
	}
}

// The whole CLI path on kfake: the table, the verdict and the results folder
// with run.json files (labelled not Kafka).
func TestRunSmokeOnKfake(t *testing.T) {
	dir := t.TempDir()
	out, err := execute(t, "run", "--provider", "kfake", "--scenario", "smoke", "--results", dir,
		"--set", "duration=2s", "--set", "warmup=1s")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, w := range []string{"completed records/s", "ceiling records/s", "NOT KAFKA", "share/consumer", "results: " + dir} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "smoke-*", "runs", "*", "run.json"))
	if len(runs) != 2 {
		t.Fatalf("want 2 run.json files, got %v", runs)
	}
	camp, _ := filepath.Glob(filepath.Join(dir, "smoke-*", "campaign.json"))
	if len(camp) != 1 {
		t.Fatalf("campaign.json missing")
	}
}
