package campaign

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// tinyScenario is a campaign of runs short enough for kfake unit tests.
// consumerType and members are YAML values (a list makes a matrix).
func tinyScenario(t *testing.T, consumerType, members string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.LoadBytes("tiny.yaml", []byte(`name: tiny
consumer_type: `+consumerType+`
partitions: 1
members: `+members+`
rate: 50
processing: {model: none}
warmup: 0s
duration: 1s
drain_timeout: 30s
`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// Two campaigns of one scenario started in the same second get two
// folders (the second with -2) and keep all their runs.
func TestConcurrentCampaignsKeepTheirFolders(t *testing.T) {
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now = func() time.Time { return fixed }
	defer func() { now = time.Now }()
	sc := tinyScenario(t, "[consumer, share]", "1")
	parent := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	results := make([]*Result, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			results[i], errs[i] = Run(ctx, sc, Options{Provider: "kfake", ResultsDir: parent})
		})
	}
	wg.Wait()
	dirs := map[string]bool{}
	for i, res := range results {
		if errs[i] != nil {
			t.Fatalf("campaign %d: %v", i, errs[i])
		}
		dirs[res.Dir] = true
		camp, recs, err := runs.LoadCampaign(res.Dir)
		if err != nil || len(recs) != 2 || camp.Status != runs.StatusComplete || len(camp.Skipped) > 0 {
			t.Errorf("%s: %d runs, status %q, skipped %v, err %v", res.Dir, len(recs), camp.Status, camp.Skipped, err)
		}
	}
	base := filepath.Join(parent, "tiny-20260102T030405Z")
	if !dirs[base] || !dirs[base+"-2"] {
		t.Errorf("folders %v, want %s and %s-2", dirs, base, base)
	}
}

// Ctrl-C after the first run: campaign.json says interrupted with the run
// that finished, and every rendering carries the banner.
func TestInterruptedCampaignIsMarked(t *testing.T) {
	sc := tinyScenario(t, "consumer", "[1, 2]")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, sc, Options{Provider: "kfake", ResultsDir: t.TempDir(),
		Progress: cancelAfterFirst{cancel: cancel}})
	if !errors.Is(err, context.Canceled) || res == nil || res.Status != runs.StatusInterrupted || res.Dir == "" {
		t.Fatalf("res %+v err %v", res, err)
	}
	camp, recs, err := runs.LoadCampaign(res.Dir)
	if err != nil || len(recs) != 1 || camp.Status != runs.StatusInterrupted || camp.FinishedAt == "" || camp.Error == "" {
		t.Fatalf("status %q error %q runs %d err %v", camp.Status, camp.Error, len(recs), err)
	}
	for _, name := range []string{"summary.md", "report.html"} {
		b, err := os.ReadFile(filepath.Join(res.Dir, name))
		if err != nil || !bytes.Contains(b, []byte("INCOMPLETE CAMPAIGN: status interrupted")) {
			t.Errorf("%s: no banner (%v)", name, err)
		}
	}
	assertNoTempFiles(t, res.Dir)
}

// cancelAfterFirst cancels the campaign when its first run is done.
type cancelAfterFirst struct{ cancel context.CancelFunc }

func (cancelAfterFirst) Phase(PhaseInfo) {}
func (c cancelAfterFirst) RunDone(run, _ int, _ string, _ error) {
	if run == 1 {
		c.cancel()
	}
}

// A cluster that never starts: the campaign fails before its first run and
// leaves no folder behind.
func TestFailedStartLeavesNoFolder(t *testing.T) {
	sc := tinyScenario(t, "consumer", "1")
	parent := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	res, err := Run(ctx, sc, Options{Provider: "external", ResultsDir: parent,
		External: &infra.ExternalProvider{Bootstrap: []string{"127.0.0.1:1"}}})
	if err == nil || res == nil || res.Dir != "" || res.Status == runs.StatusComplete {
		t.Fatalf("res %+v err %v", res, err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("left %v in the results folder", entries)
	}

	// A results folder the campaign made itself goes too; one that existed stays.
	made := filepath.Join(parent, "made-by-the-campaign")
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Second)
	defer cancel2()
	if _, err := Run(ctx2, sc, Options{Provider: "external", ResultsDir: made,
		External: &infra.ExternalProvider{Bootstrap: []string{"127.0.0.1:1"}}}); err == nil {
		t.Fatal("a cluster that never starts was accepted")
	}
	if _, err := os.Stat(made); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the results folder the campaign made is left behind (stat: %v)", err)
	}
	if _, err := os.Stat(parent); err != nil {
		t.Errorf("the results folder that existed before is gone: %v", err)
	}
}

// A secret in a metrics URL reaches neither the campaign's files nor its
// log: the external provider on kfake, scraping a URL with userinfo.
func TestSecretsReachNoFile(t *testing.T) {
	ctx, cl := startKfake(t)
	sc := tinyScenario(t, "consumer", "1")
	var log bytes.Buffer
	res, err := Run(ctx, sc, Options{Provider: "external", ResultsDir: t.TempDir(), Log: &log,
		External: &infra.ExternalProvider{Bootstrap: cl.Bootstrap(),
			MetricsURLs: []string{"http://user:s3cr3t@127.0.0.1:1/metrics?token=t0ken"}}})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if strings.Contains(log.String(), "s3cr3t") || strings.Contains(log.String(), "t0ken") {
		t.Errorf("log holds the secret:\n%s", log.String())
	}
	n, masked := 0, 0
	_ = filepath.WalkDir(res.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		b, _ := os.ReadFile(path)
		if bytes.Contains(b, []byte("s3cr3t")) || bytes.Contains(b, []byte("t0ken")) {
			t.Errorf("%s holds the secret", path)
		}
		if bytes.Contains(b, []byte("user:REDACTED@127.0.0.1:1")) {
			masked++
		}
		return nil
	})
	if n < 5 || masked == 0 {
		t.Errorf("%d files under %s, %d with the masked URL: the test plants nothing", n, res.Dir, masked)
	}
}

// The environment of a kfake cluster: labelled not Kafka, with the build,
// the host, the broker's finalized features and the scenario's digests.
func TestEnvironmentOnKfake(t *testing.T) {
	ctx, cl := startKfake(t)
	sc, err := scenarios.Builtin("smoke")
	if err != nil {
		t.Fatal(err)
	}
	env := environment(ctx, cl, sc)
	if env.IsKafka || env.Provider != "kfake" {
		t.Errorf("kfake labelled %q is_kafka %v", env.Provider, env.IsKafka)
	}
	if env.Harness == nil || env.Harness.Go == "" || env.Harness.Version == "" {
		t.Errorf("harness %+v", env.Harness)
	}
	if b := env.Broker; b == nil || b.Error != "" || len(b.Features) == 0 || b.VersionGuess == "" {
		t.Errorf("broker %+v", env.Broker)
	}
	if h := env.Host; h.CPUs < 1 || h.MemoryBytes == 0 || h.CPUModel == "" {
		t.Errorf("host %+v", h)
	}
	src, _ := scenarios.BuiltinSource("smoke")
	sum := sha256.Sum256(src)
	d := env.Scenario
	if d == nil || d.Source != "builtin:smoke" || d.SourceSHA256 != hex.EncodeToString(sum[:]) || len(d.ResolvedSHA256) != 64 {
		t.Errorf("scenario digest %+v", d)
	}
	b, _ := json.Marshal(env)
	t.Logf("%s", b)
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", path)
		}
		return err
	})
}
