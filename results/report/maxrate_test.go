package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
)

// ceilingModel is a consumer fleet with a hard ceiling: it completes
// min(rate, ceiling) records/s, with p99 low below the ceiling and growing
// with the backlog above it.
func ceilingModel(ceiling float64, calls *[]float64) func(int, float64, bool) (runs.MaxRateStep, error) {
	return func(_ int, rate float64, _ bool) (runs.MaxRateStep, error) {
		*calls = append(*calls, rate)
		s := runs.MaxRateStep{CompletedPerSec: min(rate, ceiling), P99Ms: 40}
		if rate >= ceiling {
			s.P99Ms = 40 + 1000*(rate-ceiling+1)
		}
		return s, nil
	}
}

func TestMaxRateReports(t *testing.T) {
	var calls []float64
	res, _ := runs.SearchMaxRate([]float64{100, 150, 200}, runs.MaxRateCriteria{CompletedRatio: 0.995, P99BoundMs: 500}, ceilingModel(160, &calls))
	r := runs.Record{RunID: "r01-share", ConsumerType: "share", MaxRate: &res}
	var md, html, con bytes.Buffer
	if err := Markdown(runs.Campaign{Name: "mr"}, []runs.Record{r})(&md); err != nil {
		t.Fatal(err)
	}
	if err := HTML("", runs.Campaign{Name: "mr"}, []runs.Record{r})(&html); err != nil {
		t.Fatal(err)
	}
	if err := MaxRate([]runs.Record{r})(&con); err != nil {
		t.Fatal(err)
	}
	want := "r01-share: max sustainable rate 150 records/s"
	for name, out := range map[string]string{"summary.md": md.String(), "report.html": html.String(), "console": con.String()} {
		if !strings.Contains(out, want) || !strings.Contains(out, "FAIL") {
			t.Errorf("%s lacks %q or the failing step:\n%s", name, want, out)
		}
	}
	if !strings.Contains(html.String(), "completed vs offered, r01-share") || !strings.Contains(html.String(), "p99 bound") {
		t.Errorf("report.html lacks the max-rate charts")
	}
}
