package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/internal/figuregen"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/results/runs/runstest"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// TestNewFigureReachesEveryReader is the registry's promise: a figure
// declared in the registry only, with no edit anywhere else, appears on
// the console and in summary.md, in runs.csv, in compare thresholds, in
// expectations, in history and in the generated vocabulary and docs.
// (Not parallel: it changes the registry for its duration.)
func TestNewFigureReachesEveryReader(t *testing.T) {
	remove, err := runs.RegisterFigure(runs.Figure{
		Path: "outcomes.retries_per_completion", Unit: "ratio", Label: "retries per completion",
		Column: "retries_per_completion", Threshold: "retries", Better: runs.LowerIsBetter, Console: true,
		Doc: "retried in place ÷ completed (a figure of this test only)",
		Value: func(r *runs.Record) (float64, bool) {
			if r.Outcomes.Completed == 0 {
				return 0, false
			}
			return float64(r.Outcomes.RetriedInPlace) / float64(r.Outcomes.Completed), true
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	run := func(id, ctype string, retried int64) runs.Record {
		r := runstest.Run(id, vocab.GroupType(ctype), 0, 1000, 100)
		r.Outcomes.Completed, r.Outcomes.RetriedInPlace = 1000, retried
		return r
	}
	base := []runs.Record{run("r01-consumer", "consumer", 250), run("r02-share", "share", 100)}
	cand := []runs.Record{run("r01-consumer", "consumer", 250), run("r02-share", "share", 200)}

	render := func(r Reporter) string {
		var b bytes.Buffer
		if err := r(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if out := render(Console(base)); !strings.Contains(out, "retries per completion") || !strings.Contains(out, "0.2") {
		t.Errorf("console lacks the figure:\n%s", out)
	}
	if out := render(Markdown(runs.Campaign{Name: "t"}, base)); !strings.Contains(out, "| retries per completion | 0.2 | 0.1 |") {
		t.Errorf("summary.md lacks the figure:\n%s", out)
	}
	csvOut := strings.Split(render(CSV(base)), "\n")
	if !strings.HasSuffix(csvOut[0], ",retries_per_completion") || !strings.HasSuffix(csvOut[1], ",0.25") {
		t.Errorf("runs.csv lacks the column:\n%s\n%s", csvOut[0], csvOut[1])
	}

	// Thresholds, by its threshold name, its path or its column.
	for _, name := range []string{"retries", "outcomes.retries_per_completion", "retries_per_completion"} {
		th := runs.Thresholds{}
		if err := th.Add(name + ":50%"); err != nil {
			t.Fatalf("threshold %s: %v", name, err)
		}
		c := runs.Compare(base, cand, th)
		if len(c.Regressions) != 1 || !strings.Contains(c.Regressions[0], "r02-share: retries +100.0%") {
			t.Errorf("threshold %s: regressions %q, want r02-share's retries doubling", name, c.Regressions)
		}
	}

	// Expectations: the scenario vocabulary is generated from the registry
	// (go generate ./results/runs writes scenarios/figures_gen.go), so the
	// generator's output carries it; the evaluation reads the registry.
	names, err := figuregen.ScenarioNames()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(names), `{Path: "outcomes.retries_per_completion", Unit: "ratio", Aliases: []string{"retries", "retries_per_completion"}}`) {
		t.Error("the generated scenario vocabulary lacks the figure")
	}
	path, err := scenarios.ResolveFigure("retries_per_completion", runs.FigureNames())
	if err != nil || path != "outcomes.retries_per_completion" {
		t.Fatalf("resolve: %s %v", path, err)
	}
	max := 0.15
	outs := runs.EvaluateExpectations(cand, []scenarios.Expectation{{Name: "few retries",
		Measure: &scenarios.MeasureClaim{RunSelector: scenarios.RunSelector{Runs: "share"}, Field: path, Bounds: scenarios.Bounds{Max: &max}}}})
	if len(outs) != 1 || outs[0].Met || outs[0].MeasuredText() != "r02-share 0.2 ✗" {
		t.Errorf("expectation: %+v (%s), want NOT MET with r02-share 0.2", outs, outs[0].MeasuredText())
	}

	// History, by its alias; lower is better, so the rise is a regression.
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	h, err := BuildHistory([]HistoryCampaign{
		{Dir: "a", Name: "a", Camp: runs.Campaign{Name: "smoke"}, Recs: base, Started: day(1)},
		{Dir: "b", Name: "b", Camp: runs.Campaign{Name: "smoke"}, Recs: cand, Started: day(2)},
	}, HistoryOptions{Figures: []string{"retries"}, ThresholdPercent: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Series) != 2 || h.Series[1].Figure != "outcomes.retries_per_completion" || h.Series[1].HigherBetter ||
		len(h.Regressions()) != 1 || !strings.HasPrefix(h.Regressions()[0], "smoke r02-share outcomes.retries_per_completion: 0.2 (+100.0%") {
		t.Errorf("history: %+v, regressions %q", h.Series, h.Regressions())
	}

	if !strings.Contains(string(figuregen.Table()), "| `outcomes.retries_per_completion` | ratio | retries per completion | `retries_per_completion` | `retries` | lower | yes |") {
		t.Error("docs/reference/figures.md would lack the figure")
	}
}
