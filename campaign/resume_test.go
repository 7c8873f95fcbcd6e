package campaign

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/results/runs/runstest"
	"github.com/sharebench/sharebench/scenarios"
)

// resumeFixture writes what a campaign of sc on kfake leaves when it stops
// after the runs in done (by index): campaign.json with status running, the
// cluster's environment as this build records it, and each done run's
// folder; listed are the runs campaign.json lists.
func resumeFixture(t *testing.T, sc *scenarios.Scenario, done, listed []int) string {
	t.Helper()
	f, err := createFolder(t.TempDir(), sc)
	if err != nil {
		t.Fatal(err)
	}
	h := harness()
	env := runs.Environment{Provider: "kfake", KafkaVersion: "kfake (not Kafka)", Nodes: 1, Harness: &h, Scenario: scenarioDigest(sc)}
	if err := f.addEnvironment(env); err != nil {
		t.Fatal(err)
	}
	for _, i := range done {
		writeRun(t, f.dir, sc, i, env)
	}
	for _, i := range listed {
		f.camp.Runs = append(f.camp.Runs, sc.RunName(i))
	}
	if err := f.save(); err != nil {
		t.Fatal(err)
	}
	return f.dir
}

// writeRun writes run i's folder with a consistent record of its spec.
func writeRun(t *testing.T, dir string, sc *scenarios.Scenario, i int, env runs.Environment) {
	t.Helper()
	spec := sc.Runs[i]
	r := runstest.Run(sc.RunName(i), spec.ConsumerType, spec.Trial, 50, 10)
	r.Spec, r.Environment = &spec, env
	r.Throughput.OfferedPerSec, r.Throughput.ProducedPerSec, r.Throughput.CompletedPerSec = 50, 50, 50
	r.Audit.Produced, r.Audit.CompletedOnce = 500, 500
	if err := runs.WriteRunDir(filepath.Join(dir, "runs", r.RunID), &r, runstest.Merged(10), runstest.Series(50)); err != nil {
		t.Fatal(err)
	}
}

// editCampaign rewrites campaign.json through edit.
func editCampaign(t *testing.T, dir string, edit func(*runs.Campaign)) {
	t.Helper()
	camp, err := runs.ReadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	edit(&camp)
	if err := runs.WriteJSON(filepath.Join(dir, "campaign.json"), camp); err != nil {
		t.Fatal(err)
	}
}

// A run is kept when its run.json is complete, consistent and of the
// scenario's spec, listed in campaign.json or not (a kill between the
// run's folder and campaign.json); every other run is rerun from its
// start (its folder moved aside) or run for the first time.
func TestPlanResumeClassifiesRuns(t *testing.T) {
	sc := tinyScenario(t, "[consumer, share]", "[1, 2, 3]") // 6 runs
	ids := make([]string, len(sc.Runs))
	for i := range sc.Runs {
		ids[i] = sc.RunName(i)
	}
	dir := resumeFixture(t, sc, []int{0, 1, 3, 4}, []int{0, 2})
	// r02: complete but not listed: kept. r03: listed, no folder.
	// r04: inconsistent audit. r05: another spec. r06: cut off, no folder.
	r04 := filepath.Join(dir, "runs", ids[3], "run.json")
	rec, err := runs.ReadRun(r04)
	if err != nil {
		t.Fatal(err)
	}
	rec.Audit.Lost = 7 // balanced stays true: the counts no longer add up
	if err := runs.WriteJSON(r04, rec); err != nil {
		t.Fatal(err)
	}
	r05 := filepath.Join(dir, "runs", ids[4], "run.json")
	if rec, err = runs.ReadRun(r05); err != nil {
		t.Fatal(err)
	}
	rec.Spec.Rate = 99
	if err := runs.WriteJSON(r05, rec); err != nil {
		t.Fatal(err)
	}
	editCampaign(t, dir, func(c *runs.Campaign) { c.Running = ids[5] })

	p, err := PlanResume(dir, ResumeCheck{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Differences) > 0 {
		t.Errorf("differences %v, want none", p.Differences)
	}
	if want := []string{ids[0], ids[1]}; !slices.Equal(p.Entry.Kept, want) || p.Kept() != 2 {
		t.Errorf("kept %v, want %v", p.Entry.Kept, want)
	}
	reasons := map[string]string{}
	for _, r := range p.Entry.Rerun {
		reasons[r.Run] = r.Reason
	}
	for id, want := range map[string]string{
		ids[2]: "listed in campaign.json, but its folder is missing",
		ids[3]: "integrity checks",
		ids[4]: "its spec is not the scenario's run",
		ids[5]: "cut off: the campaign stopped during this run",
	} {
		if !strings.Contains(reasons[id], want) {
			t.Errorf("%s: reason %q, want %q", id, reasons[id], want)
		}
	}
	if len(p.Entry.NotStarted) != 0 || len(p.Entry.Rerun) != 4 {
		t.Errorf("rerun %v, not started %v", p.Entry.Rerun, p.Entry.NotStarted)
	}
	if err := p.moveAside(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{ids[3], ids[4]} {
		if _, err := os.Stat(filepath.Join(dir, "partial-runs", id, "run.json")); err != nil {
			t.Errorf("%s not moved aside: %v", id, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "runs", id)); err == nil {
			t.Errorf("%s still in runs/", id)
		}
	}
	for _, r := range p.Entry.Rerun {
		if (r.Run == ids[3] || r.Run == ids[4]) != (r.MovedTo == filepath.Join("partial-runs", r.Run)) {
			t.Errorf("%s moved to %q", r.Run, r.MovedTo)
		}
	}
}

// What differs from the campaign as recorded is named with the file and
// the key: the scenario recorded against its digest, the scenario's text,
// the sharebench build, the provider.
func TestPlanResumeNamesDifferences(t *testing.T) {
	src := filepath.Join(t.TempDir(), "tiny.yaml")
	body := "name: tiny\nconsumer_type: [consumer, share]\npartitions: 1\nmembers: 1\nrate: 50\nprocessing: {model: none}\nwarmup: 0s\nduration: 1s\n"
	if err := os.WriteFile(src, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Load(src, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		edit     func(t *testing.T, dir string)
		provider string
		want     []string
		source   string // ResumeCheck.Source
	}{
		{"nothing", func(*testing.T, string) {}, "kfake", nil, ""},
		{"build", func(t *testing.T, dir string) {
			editCampaign(t, dir, func(c *runs.Campaign) { c.Environment[0].Harness.Version = "v0.9.0" })
		}, "", []string{"sharebench build", "environment[0].harness is v0.9.0"}, ""},
		{"recorded scenario edited", func(t *testing.T, dir string) {
			editCampaign(t, dir, func(c *runs.Campaign) { c.Scenario.Runs[1].Rate = 60 })
		}, "", []string{"campaign.json: scenario hashes to", "environment[0].scenario.resolved_sha256"}, ""},
		{"source changed", func(t *testing.T, _ string) {
			if err := os.WriteFile(src, []byte(body+"# edited\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "", []string{"scenario source " + src + " changed", "environment[0].scenario.source_sha256"}, ""},
		{"source missing", func(t *testing.T, _ string) {
			if err := os.Remove(src); err != nil {
				t.Fatal(err)
			}
		}, "", []string{"scenario source " + src, "scenario.source in", "cannot be read"}, ""},
		{"provider", func(*testing.T, string) {}, "process", []string{"--provider process", "environment[0].provider is kfake"}, ""},
		{"source moved, given with --scenario", func(t *testing.T, _ string) {
			if err := os.Rename(src, src+".moved"); err != nil {
				t.Fatal(err)
			}
		}, "", nil, src + ".moved"},
		{"source given with --scenario, edited", func(t *testing.T, _ string) {
			if err := os.WriteFile(src+".edited", []byte(body+"# edited\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "", []string{"scenario source " + src + ".edited changed"}, src + ".edited"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(src, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := resumeFixture(t, sc, []int{0}, []int{0})
			tc.edit(t, dir)
			p, err := PlanResume(dir, ResumeCheck{Provider: tc.provider, Source: tc.source})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(p.Differences, "\n")
			if len(tc.want) == 0 && got != "" {
				t.Errorf("differences %q, want none", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("differences %q lack %q", got, w)
				}
			}
		})
	}
}

// A folder that cannot be resumed is refused with the file and the key.
func TestPlanResumeBadInput(t *testing.T) {
	sc := tinyScenario(t, "consumer", "1")
	noScenario := resumeFixture(t, sc, nil, nil)
	editCampaign(t, noScenario, func(c *runs.Campaign) { c.Scenario = nil })
	noRuns := resumeFixture(t, sc, nil, nil)
	editCampaign(t, noRuns, func(c *runs.Campaign) { c.Scenario.Runs = nil })
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, want string }{
		{filepath.Join(t.TempDir(), "nope"), "no such folder"},
		{file, "not a folder"},
		{t.TempDir(), "no campaign.json: not a campaign folder"},
		{noScenario, "campaign.json: key scenario: missing"},
		{noRuns, "campaign.json: key scenario.runs: empty"},
	} {
		_, err := PlanResume(tc.dir, ResumeCheck{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.dir, err, tc.want)
		}
	}
}

// A folder whose campaign still runs (it holds the folder's lock) is not
// resumed.
func TestResumeRefusesAFolderInUse(t *testing.T) {
	sc := tinyScenario(t, "consumer", "1")
	dir := resumeFixture(t, sc, nil, nil)
	release, err := lockFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	_, err = Resume(context.Background(), dir, Options{Provider: "kfake"})
	if err == nil || !strings.Contains(err.Error(), "another sharebench process holds this campaign folder") {
		t.Fatalf("resume of a folder in use: %v", err)
	}
}

// ScenarioDifference names the first key that differs.
func TestScenarioDifference(t *testing.T) {
	a := tinyScenario(t, "[consumer, share]", "1")
	b := tinyScenario(t, "[consumer, share]", "1")
	b.Source = "elsewhere/tiny.yaml"
	if d := ScenarioDifference(a, b); d != "" {
		t.Errorf("same scenario from another path: %q", d)
	}
	b.Runs[1].Rate = 70
	if d := ScenarioDifference(a, b); !strings.Contains(d, "scenario.runs[1].rate: the campaign recorded 50, this has 70") {
		t.Errorf("difference %q", d)
	}
	c := tinyScenario(t, "consumer", "1")
	if d := ScenarioDifference(a, c); !strings.Contains(d, "scenario.dimensions: the campaign recorded") {
		t.Errorf("difference %q", d)
	}
}

// --resume-anyway goes on past a difference and records it; the run kept
// is not run again, the campaign ends complete with both runs in order
// (kfake, not Kafka).
func TestResumeAnywayRecordsTheDifference(t *testing.T) {
	sc := tinyScenario(t, "[consumer, share]", "1")
	dir := resumeFixture(t, sc, []int{0}, []int{0})
	editCampaign(t, dir, func(c *runs.Campaign) { c.Environment[0].Harness.Version = "v0.9.0" })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := Resume(ctx, dir, Options{Provider: "kfake"}); err == nil || !strings.Contains(err.Error(), "--resume-anyway") {
		t.Fatalf("resume with a difference: %v", err)
	}
	var log strings.Builder
	res, err := Resume(ctx, dir, Options{Provider: "kfake", ResumeAnyway: true, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if strings.Contains(log.String(), "run 1/2") || !strings.Contains(log.String(), "run 2/2 "+sc.RunName(1)) {
		t.Errorf("log:\n%s", log.String())
	}
	camp, err := runs.ReadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != runs.StatusComplete || camp.Status != runs.StatusComplete || !slices.Equal(camp.Runs, []string{sc.RunName(0), sc.RunName(1)}) {
		t.Errorf("status %s/%s, runs %v", res.Status, camp.Status, camp.Runs)
	}
	if len(camp.Resumed) != 1 || len(camp.Resumed[0].Differences) != 1 || !strings.Contains(camp.Resumed[0].Differences[0], "v0.9.0") {
		b, _ := json.Marshal(camp.Resumed)
		t.Errorf("resumed %s", b)
	}
	if len(camp.Environment) != 2 {
		t.Errorf("%d environments, want the first cluster's and the resume's", len(camp.Environment))
	}
}

// A cluster a resume starts is compared with a kept run of its group on
// provider, Kafka version and nodes, with the campaign's first cluster on
// the provider only.
func TestEnvDifferences(t *testing.T) {
	ref := runs.Environment{Provider: "process", KafkaVersion: "4.2.2", IsKafka: true, Nodes: 1}
	for _, tc := range []struct {
		name      string
		env       runs.Environment
		sameGroup bool
		want      []string
	}{
		{"same", ref, true, nil},
		{"another version, same group", runs.Environment{Provider: "process", KafkaVersion: "4.1.0", IsKafka: true, Nodes: 1}, true,
			[]string{"kafka_version: this cluster runs 4.1.0, REF.kafka_version is 4.2.2"}},
		{"another version, another group", runs.Environment{Provider: "process", KafkaVersion: "4.1.0", IsKafka: true, Nodes: 3}, false, nil},
		{"more nodes", runs.Environment{Provider: "process", KafkaVersion: "4.2.2", IsKafka: true, Nodes: 3}, true,
			[]string{"nodes: this cluster has 3, REF.nodes is 1"}},
		{"kfake", runs.Environment{Provider: "kfake", KafkaVersion: "kfake (not Kafka)", Nodes: 1}, false,
			[]string{"provider: this cluster is kfake, REF.provider is process", "is_kafka: this cluster false, REF.is_kafka true"}},
	} {
		got := envDifferences(tc.env, &ref, "REF", tc.sameGroup)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := envDifferences(ref, nil, "REF", true); got != nil {
		t.Errorf("no reference: %q", got)
	}
}
