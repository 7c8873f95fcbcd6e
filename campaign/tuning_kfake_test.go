package campaign

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// The max-rate and recommend wiring of a campaign on kfake (not Kafka: the
// numbers mean nothing, the structure does): every max-rate run records its
// steps in run.json, and campaign.json answers the recommend: query.
func TestMaxRateAndRecommendCampaignOnKfake(t *testing.T) {
	sc, err := scenarios.LoadBytes("kfake.yaml", []byte(`name: kfake-tuning
consumer_type: consumer
partitions: 2
members: 2
max_poll_records: [5, 50]
processing: {model: constant, time: 1ms}
load_mode: max_rate
max_rate: {start: 100, step: 100, max: 200, p99_bound: 5s, completed_ratio: 0.5}
warmup: 1s
duration: 2s
drain_timeout: 20s
recommend: {knob: max_poll_records, where: ["audit.lost == 0"]}
`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, sc, Options{Provider: "kfake", ResultsDir: t.TempDir(), Log: testLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	camp, recs, err := runs.LoadCampaign(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		m := r.MaxRate
		if m == nil || len(m.Steps) == 0 || m.Steps[0].OfferedPerSec != 100 {
			t.Fatalf("%s: max_rate %+v", r.RunID, m)
		}
		if m.FoundRate > 0 && r.Throughput.OfferedPerSec != m.FoundRate {
			t.Errorf("%s: record of step %.0f, want the found rate %.0f", r.RunID, r.Throughput.OfferedPerSec, m.FoundRate)
		}
	}
	if len(camp.Recommendations) != 1 || len(camp.Recommendations[0].Groups) != 1 ||
		len(camp.Recommendations[0].Groups[0].Candidates) != 2 {
		t.Fatalf("campaign.json recommendations %+v", camp.Recommendations)
	}
	// summary.md carries the max-rate section of every run (its found-rate
	// line) and the recommendation (filepath.Glob, used here before, fails
	// only on a malformed pattern: it passed with no summary.md at all).
	md, err := os.ReadFile(filepath.Join(res.Dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		for _, want := range []string{"## Max-rate search: " + r.RunID, r.MaxRate.Line(r.RunID)} {
			if !strings.Contains(string(md), want) {
				t.Errorf("summary.md lacks %q", want)
			}
		}
	}
	if want := "## Recommendation: " + runs.QueryText(camp.Recommendations[0].Query); !strings.Contains(string(md), want) {
		t.Errorf("summary.md lacks %q:\n%s", want, md)
	}
}
