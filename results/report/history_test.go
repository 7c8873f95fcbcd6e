package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/results/runs/runstest"
)

// historyFixture writes four synthetic campaigns of scenario "smoke" under
// one parent folder (fixture numbers, not Kafka's): the share run's
// throughput drops 20% in the third and its p99 rises 36%; campaign.json
// records a revision in its environment.
func historyFixture(t *testing.T) string {
	t.Helper()
	parent := t.TempDir()
	tputs := []float64{1000, 1010, 800, 990}
	p99s := []float64{100, 95, 130, 100}
	for i := range tputs {
		dir := runstest.WriteCampaign(t, runstest.Run("r01-consumer", "consumer", 0, 379, 400), runstest.Run("r02-share", "share", 0, tputs[i], p99s[i]))
		started := []string{"2026-01-01T10:00:00Z", "2026-01-02T10:00:00Z", "2026-01-03T10:00:00Z", "2026-01-04T10:00:00Z"}[i]
		var doc map[string]any
		b, err := os.ReadFile(filepath.Join(dir, "campaign.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		doc["started_at"] = started
		doc["environment"] = []any{map[string]any{"provider": "process", "sharebench": map[string]any{"revision": "abcdef0123456789" + string(rune('a'+i))}}}
		doc["scenario"].(map[string]any)["name"] = "smoke"
		if err := runs.WriteJSON(filepath.Join(dir, "campaign.json"), doc); err != nil {
			t.Fatal(err)
		}
		// campaign folders are named <scenario>-<UTC>; written out of order
		dst := filepath.Join(parent, "smoke-"+strings.NewReplacer("-", "", ":", "").Replace(started))
		if err := os.Rename(dir, dst); err != nil {
			t.Fatal(err)
		}
	}
	return parent
}

func loadHistory(t *testing.T, out string, paths ...string) History {
	t.Helper()
	dirs, err := FindCampaigns(paths)
	if err != nil {
		t.Fatal(err)
	}
	var camps []HistoryCampaign
	for i := len(dirs) - 1; i >= 0; i-- { // reversed: BuildHistory sorts by start
		c, err := LoadHistoryCampaign(dirs[i], out)
		if err != nil {
			t.Fatal(err)
		}
		camps = append(camps, c)
	}
	h, err := BuildHistory(camps, HistoryOptions{Window: 3, ThresholdPercent: 10})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHistoryMarksRegressionsAndNoise(t *testing.T) {
	parent := historyFixture(t)
	out := filepath.Join(parent, "history")
	h := loadHistory(t, out, parent)
	if len(h.Campaigns) != 4 || h.Campaigns[0].Revision != "abcdef0123456789a" || h.Campaigns[0].Started.Day() != 1 {
		t.Fatalf("campaigns: %d, first %+v", len(h.Campaigns), h.Campaigns[0].Started)
	}
	// 2 runs × 2 figures: no run recorded broker CPU, so it is left out
	if len(h.Series) != 4 {
		t.Fatalf("%d series, want 4", len(h.Series))
	}
	var tput, p99 *HistorySeries
	for i, s := range h.Series {
		if s.Scenario != "smoke" {
			t.Errorf("scenario %q", s.Scenario)
		}
		if s.RunKey == "r02-share" && s.Figure == "throughput.completed_per_sec" {
			tput = &h.Series[i]
		}
		if s.RunKey == "r02-share" && s.Figure == "latency.completion_ms.p99" {
			p99 = &h.Series[i]
		}
	}
	if tput == nil || p99 == nil || !tput.HigherBetter || p99.HigherBetter {
		t.Fatalf("series %+v", h.Series)
	}
	var regs []bool
	for _, p := range tput.Points {
		regs = append(regs, p.Regression)
	}
	if want := []bool{false, false, true, false}; !equalBools(regs, want) {
		t.Errorf("throughput regressions %v, want %v", regs, want)
	}
	if p := tput.Points[3]; p.NoiseLo != 800 || p.NoiseHi != 1010 {
		t.Errorf("noise band of the last point %v–%v, want 800–1010 (last 3)", p.NoiseLo, p.NoiseHi)
	}
	if !p99.Points[2].Regression || p99.Points[3].Regression || p99.Points[1].Regression {
		t.Errorf("p99 regressions %+v", p99.Points)
	}
	lines := strings.Join(h.Regressions(), "\n")
	if !strings.Contains(lines, "smoke r02-share throughput.completed_per_sec: 800 (-20.8% vs the previous campaign)") {
		t.Errorf("regression lines:\n%s", lines)
	}

	var b bytes.Buffer
	if err := HistoryCSV(h)(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+4*4 || rows[0][0] != "scenario" {
		t.Fatalf("%d csv rows", len(rows))
	}
	if r := rows[1]; r[3] != "smoke-20260101T100000Z" || r[5] != "abcdef0123456789a" || r[12] != "../smoke-20260101T100000Z/report.html" {
		t.Errorf("first row %v", r)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestHistoryUnknownFigure(t *testing.T) {
	parent := historyFixture(t)
	dirs, _ := FindCampaigns([]string{parent})
	c, err := LoadHistoryCampaign(dirs[0], parent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := BuildHistory([]HistoryCampaign{c}, HistoryOptions{Figures: []string{"latency.nope"}}); err == nil {
		t.Error("an unknown figure must be an error")
	}
}

// history.html opens in headless chromium: every chart drawn, hover
// values, no JavaScript error; its links reach the campaigns' report.html.
func TestHistoryHTMLInChromium(t *testing.T) {
	parent := historyFixture(t)
	out := filepath.Join(parent, "history")
	h := loadHistory(t, out, parent)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(out, "history.html")
	if err := HistoryHTML(h).WriteFile(page); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(page)
	html := string(b)
	charts := pageCharts(t, html)
	if len(charts) != 4 || len(charts[0].Links) != 4 || charts[0].Kind != kindHistory {
		t.Fatalf("%d charts: %+v", len(charts), charts)
	}
	for _, w := range []string{`href="../smoke-20260103T100000Z/report.html"`, "Regressions", "abcdef0123456789c",
		`class="regression">800 (-20.8%)`} {
		if !strings.Contains(html, w) {
			t.Errorf("history.html lacks %q", w)
		}
	}
	t.Logf("history.html: %d bytes", len(b))
	browser := needChromium(t)
	figs := checkInBrowser(t, browser, page)
	if len(figs) != 4 {
		t.Errorf("%d charts drawn", len(figs))
	}
}
