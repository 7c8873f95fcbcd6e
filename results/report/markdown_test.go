package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/results/runs/runstest"
	"github.com/sharebench/sharebench/scenarios"
)

func TestWriteMarkdown(t *testing.T) {
	c := runstest.Run("r01-consumer", "consumer", 0, 380, 40000)
	s := runstest.Run("r02-share", "share", 0, 1000, 280)
	s.Validity = runs.Validity{Flags: []runs.Flag{{Code: "host_cpu", Message: "the host CPU was 100% busy: brokers and harness competed for cores"}}}
	fake := runstest.Run("r03-share", "share", 1, 1000, 280)
	fake.Environment = runs.Environment{Provider: "kfake", KafkaVersion: "kfake", IsKafka: false}
	camp := runs.Campaign{Name: "fixture", Scenario: &scenarios.Scenario{Description: "Does the share group scale past the partition count?"}}
	tests := []struct {
		name   string
		recs   []runs.Record
		want   []string
		absent []string
	}{
		{"pair", []runs.Record{c, s}, []string{
			"Does the share group scale past the partition count?",
			"- r01-consumer vs r02-share: consumer group 380 records/s (ceiling 400, producer-bound), share group 1000 records/s (ceiling 1000, producer-bound): share/consumer = 2.63x",
			"| run | r01-consumer | r02-share |",
			"| completed records/s | 380.0 | 1000.0 |",
			"| r02-share | 20000 | 70.0 | 140.0 | 280.0 | 420.0 | 448.0 | 476.0 |",
			"- r01-consumer: 25000 produced = 25000 completed once + 0 duplicates + 0 archived + 0 in flight + 0 lost + 0 undelivered: balanced",
			"- r02-share: **host_cpu**: the host CPU was 100% busy",
			"- valid, no flags: r01-consumer",
			"Left out, no run has a value: end-to-end s (formula)",
			"- fixture: 2 run(s) on Kafka 4.2.2, 1 broker(s) (process)\n- throughput: share 2.63× the consumer group (1000 vs 380 records/s)\n  - bound: ",
		}, []string{"NOT KAFKA"}},
		{"not kafka", []runs.Record{fake}, []string{"**NOT KAFKA**: r03-share ran on kfake"}, []string{"## Verdict"}},
		{"unbalanced", []runs.Record{unbalanced(s)}, []string{"**DOES NOT BALANCE** (3 unacknowledged, 0 foreign)", "| audit balanced | NO |"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Markdown(camp, tc.recs)(&buf); err != nil {
				t.Fatal(err)
			}
			md := buf.String()
			for _, w := range tc.want {
				if !strings.Contains(md, w) {
					t.Errorf("summary lacks %q:\n%s", w, md)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(md, a) {
					t.Errorf("summary has %q:\n%s", a, md)
				}
			}
			// The headline (about a dozen lines) leads; the whole stays a
			// pull-request comment.
			if n := strings.Count(md, "\n"); n > 72 {
				t.Errorf("summary is %d lines, want a pull-request comment (≤ 72)", n)
			}
		})
	}
}

func unbalanced(r runs.Record) runs.Record {
	r.Audit.Balanced, r.Audit.Unacknowledged = false, 3
	return r
}

// WriteReports re-renders from a folder on disk: what `sharebench report`
// does.
func TestWriteReportsFromDisk(t *testing.T) {
	dir := runstest.WriteCampaign(t, runstest.Run("r01-consumer", "consumer", 0, 380, 40000), runstest.Run("r02-share", "share", 0, 1000, 280))
	camp, recs, err := runs.LoadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	written, err := WriteFiles(dir, camp, recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) == 0 || written[0] != filepath.Join(dir, "summary.md") {
		t.Fatalf("written %v", written)
	}
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil || !strings.Contains(string(md), "share/consumer = 2.63x") || !strings.Contains(string(md), "Does it scale?") {
		t.Errorf("summary.md: %v\n%s", err, md)
	}
}

// A side-by-side row no run has a value for is left out; a row one run has
// stays, with "-" for the others.
func TestRowsForDropsEmptyRows(t *testing.T) {
	a := runstest.Run("r01-consumer", "consumer", 0, 380, 100)
	b := runstest.Run("r02-share", "share", 0, 1000, 50)
	has := func(rows []tableRow, label string) bool {
		for _, r := range rows {
			if r.label == label {
				return true
			}
		}
		return false
	}
	if rows := rowsFor([]runs.Record{a, b}); has(rows, "end-to-end s (formula)") || !has(rows, "run") {
		t.Errorf("rows without bursts keep end-to-end or lose run: %d rows", len(rows))
	}
	b.Burst = &runs.Burst{EndToEndSec: 27, PredictedSec: 26, Bound: "locks"}
	if rows := rowsFor([]runs.Record{a, b}); !has(rows, "end-to-end s (formula)") {
		t.Error("a burst on one run must keep the end-to-end row")
	}
}

// summary.md is rendered as a pull-request comment: HTML from the
// scenario's name and description reaches it as text.
func TestMarkdownEscapesHTMLFromTheScenario(t *testing.T) {
	camp := runs.Campaign{Name: `x<script>alert(1)</script>`,
		Scenario: &scenarios.Scenario{Description: `<img src=x onerror=alert(2)> & more`}}
	var b strings.Builder
	if err := writeMarkdown(&b, camp, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, raw := range []string{"<script>", "<img"} {
		if strings.Contains(out, raw) {
			t.Errorf("summary.md holds raw %q:\n%s", raw, out)
		}
	}
	if !strings.Contains(out, "&lt;script&gt;") || !strings.Contains(out, "&lt;img src=x onerror=alert(2)&gt; &amp; more") {
		t.Errorf("escaped text missing:\n%s", out)
	}
}
