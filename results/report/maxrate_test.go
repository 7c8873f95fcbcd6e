package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
)

// ceilingModel is a consumer fleet with a hard ceiling: it completes
// min(rate, ceiling) records/s, with p99 low below the ceiling and growing
// with the backlog above it.
func ceilingModel(ceiling float64, calls *[]float64) func(runs.MaxRateProbe) (runs.MaxRateStep, error) {
	return func(p runs.MaxRateProbe) (runs.MaxRateStep, error) {
		rate := p.Rate
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

// The rate–latency curve puts every max-rate run on shared axes: one point
// per offered rate in rising order (the last measurement at a rate: a
// confirmation replaces the probe before it), the knee at the found rate
// on the p99 curve, the formula's ceiling as a vertical marker in the
// run's colour. The searches are bisections of a model with an exact
// limit (not Kafka), so every expected point follows from the halving.
func TestRateLatencyCharts(t *testing.T) {
	search := func(limit float64) *runs.MaxRateResult {
		model := func(p runs.MaxRateProbe) (runs.MaxRateStep, error) {
			s := runs.MaxRateStep{CompletedPerSec: min(p.Rate, limit), P50Ms: 5, P99Ms: 20}
			if p.Kind == runs.ProbeConfirm {
				s.P99Ms = 25 // tells the confirmation from the probe it confirms
			}
			return s, nil
		}
		res, err := runs.SearchMaxRate([]float64{100, 200, 300}, runs.MaxRateCriteria{CompletedRatio: 0.99, P99BoundMs: 500, Precision: 0.05}, model)
		if err != nil {
			t.Fatal(err)
		}
		res.CeilingPerSec = limit
		return &res
	}
	recs := []runs.Record{
		{RunID: "r01-consumer", ConsumerType: "consumer", MaxRate: search(166)},
		{RunID: "r02-share", ConsumerType: "share", MaxRate: search(250)},
		{RunID: "r03-rate", ConsumerType: "share"},
	}
	charts := rateLatencyCharts(recs)
	if len(charts) != 2 {
		t.Fatalf("%d charts, want the latency and the completed ratio charts", len(charts))
	}
	lat := charts[0]
	byLabel := map[string]chartSeries{}
	for _, s := range lat.Series {
		byLabel[s.Label] = s
	}
	// r01: 100 ✓ 200 ✗ 150 ✓ 175 ✗ 163 ✓ 169 ✗, confirm 163.
	p99 := byLabel["r01-consumer p99"]
	if want := (nums{100, 150, 163, 169, 175, 200}); !slices.Equal(p99.X, want) {
		t.Errorf("r01's curve x %v, want %v", p99.X, want)
	}
	if p99.Y[2] != 25 {
		t.Errorf("r01's p99 at 163 is %v, want the confirmation's 25", p99.Y[2])
	}
	knee, ok := byLabel["r01-consumer knee: 163/s found"]
	if !ok || !knee.Points || !slices.Equal(knee.X, nums{163}) || !slices.Equal(knee.Y, nums{25}) {
		t.Errorf("r01's knee %+v (found %v), want a marker at (163, 25)", knee, ok)
	}
	if _, ok := byLabel["r02-share p50"]; !ok {
		t.Errorf("the share run is not on the shared chart: %v", lat.Series)
	}
	if len(lat.Bands) != 2 || lat.Bands[0].Start != 166 || lat.Bands[0].End != 166 || lat.Bands[1].Start != 250 || lat.Bands[0].Color == lat.Bands[1].Color {
		t.Errorf("ceiling markers %+v, want 166 and 250 in the runs' colours", lat.Bands)
	}
	if rateLatencyCharts(recs[2:]) != nil {
		t.Error("a campaign without a max-rate run has no rate–latency curve")
	}
}
