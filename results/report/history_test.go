package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// historyOf builds a history of one run key over synthetic campaigns, one a
// day, each run changed by its mutator.
func historyOf(t *testing.T, statuses []string, figures []string, muts ...func(*runs.Record)) History {
	t.Helper()
	var camps []HistoryCampaign
	for i, mut := range muts {
		r := runstest.Run("r01-share", "share", 0, 1000, 100)
		mut(&r)
		name := fmt.Sprintf("smoke-2026010%dT000000Z", i+1)
		camps = append(camps, HistoryCampaign{Dir: name, Name: name, Recs: []runs.Record{r},
			Camp:    runs.Campaign{Name: name, Status: statuses[i]},
			Started: time.Date(2026, 1, i+1, 0, 0, 0, 0, time.UTC), Report: "../" + name + "/report.html"})
	}
	h, err := BuildHistory(camps, HistoryOptions{Figures: figures, Window: 3, ThresholdPercent: 10})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A change from 0 is shown as such ("from 0", never a blank or a NaN
// percentage) and is a regression when it went the worse way: lost records
// 0 → 500 is one whatever the threshold; throughput 0 → 1000 is not; 0 → 0
// is a change of 0%.
func TestHistoryChangeFromZero(t *testing.T) {
	complete := []string{runs.StatusComplete, runs.StatusComplete, runs.StatusComplete, runs.StatusComplete}
	h := historyOf(t, complete, []string{"audit.lost", "throughput.completed_per_sec"},
		func(r *runs.Record) { r.Throughput.CompletedPerSec = 0 },
		func(r *runs.Record) { r.Throughput.CompletedPerSec = 0 },
		func(r *runs.Record) { r.Audit.Lost, r.Audit.CompletedOnce = 500, 24500 },
		func(r *runs.Record) {})
	if len(h.Series) != 2 {
		t.Fatalf("%d series", len(h.Series))
	}
	lost, tput := h.Series[0], h.Series[1]
	if lost.Figure != "audit.lost" || tput.Figure != "throughput.completed_per_sec" {
		t.Fatalf("series %s, %s", lost.Figure, tput.Figure)
	}
	if p := lost.Points[1]; p.ChangePercent != 0 || p.FromZero || p.Regression {
		t.Errorf("lost 0 → 0: %+v, want a change of 0%%", p)
	}
	if p := lost.Points[2]; !p.FromZero || !p.Regression || !math.IsNaN(p.ChangePercent) {
		t.Errorf("lost 0 → 500: %+v, want a regression from 0", p)
	}
	if p := lost.Points[3]; p.FromZero || p.Regression || p.ChangePercent != -100 {
		t.Errorf("lost 500 → 0: %+v, want -100%%, better for a lower-is-better figure", p)
	}
	if p := tput.Points[2]; !p.FromZero || p.Regression {
		t.Errorf("throughput 0 → 1000: %+v, want from 0, no regression", p)
	}
	lines := strings.Join(h.Regressions(), "\n")
	if want := "smoke r01-share audit.lost: 500 (from 0 in the previous campaign) in smoke-20260103T000000Z"; !strings.Contains(lines, want) || strings.Count(lines, "\n") != 0 {
		t.Errorf("regression lines %q, want only %q", lines, want)
	}
	var page, table bytes.Buffer
	if err := HistoryHTML(h)(&page); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`<td class="regression">500 (from 0)</td>`, "<td>1000 (from 0)</td>", "<td>0 (&#43;0.0%)</td>"} {
		if !strings.Contains(page.String(), w) {
			t.Errorf("history.html lacks %q", w)
		}
	}
	if err := HistoryCSV(h)(&table); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&table).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	if r := rows[3]; r[col["figure"]] != "audit.lost" || r[col["value"]] != "500" || r[col["change_percent"]] != "" ||
		r[col["from_zero"]] != "true" || r[col["regression"]] != "true" {
		t.Errorf("history.csv row of 0 → 500 lost: %v", r)
	}
}

// Campaigns drawn though incomplete (--include-incomplete) are marked on
// the page and in the CSV; what the command left out is listed on the page.
func TestHistoryMarksIncompleteAndLeftOut(t *testing.T) {
	h := historyOf(t, []string{runs.StatusComplete, runs.StatusInterrupted}, nil, func(*runs.Record) {}, func(*runs.Record) {})
	h.LeftOut = []string{"excluded old-run: status running (only complete campaigns are points; --include-incomplete draws them)",
		"corrupt run left out: smoke-x: run r02-share skipped: invalid run.json: <truncated>"}
	var page, table bytes.Buffer
	if err := HistoryHTML(h)(&page); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"1 campaign(s) did not complete and are drawn only because of\n--include-incomplete",
		"INCOMPLETE: interrupted</td>", "smoke-20260102T000000Z (INCOMPLETE: status interrupted)</a>",
		`<h2 id="left-out">Left out</h2>`, "<li>excluded old-run: status running", "run r02-share skipped: invalid run.json: &lt;truncated&gt;</li>"} {
		if !strings.Contains(page.String(), w) {
			t.Errorf("history.html lacks %q", w)
		}
	}
	if err := HistoryCSV(h)(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), ",interrupted\n") || !strings.Contains(table.String(), ",complete\n") {
		t.Errorf("history.csv lacks the status column:\n%s", table.String())
	}
	complete := historyOf(t, []string{runs.StatusComplete}, nil, func(*runs.Record) {})
	page.Reset()
	_ = HistoryHTML(complete)(&page)
	if strings.Contains(page.String(), "INCOMPLETE") || strings.Contains(page.String(), "Left out") {
		t.Error("a history of complete campaigns, nothing left out, marks something")
	}
}

// A campaign reached through a symbolic link is found as compare and
// report find it: the link given as a path, or met in a folder searched;
// each campaign once however many links lead to it; a link loop and a
// link to a folder without campaigns end the search.
func TestFindCampaignsFollowsLinks(t *testing.T) {
	parent := historyFixture(t)
	all, err := FindCampaigns([]string{parent})
	if err != nil || len(all) != 4 {
		t.Fatalf("the fixture: %v, %v", all, err)
	}
	links := t.TempDir()
	latest := filepath.Join(links, "latest")
	for link, to := range map[string]string{latest: all[2], filepath.Join(links, "again"): all[2],
		filepath.Join(links, "loop"): links, filepath.Join(links, "nowhere"): filepath.Join(links, "missing")} {
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
	}
	got, err := FindCampaigns([]string{latest})
	if err != nil || len(got) != 1 || filepath.Base(got[0]) != filepath.Base(all[2]) {
		t.Errorf("a link given as the path: %v, %v; want %s", got, err, all[2])
	}
	got, err = FindCampaigns([]string{links})
	if err != nil || len(got) != 1 {
		t.Errorf("a folder of links: %v, %v; want the one campaign once", got, err)
	}
	if got, err = FindCampaigns([]string{latest, all[2], parent}); err != nil || len(got) != 4 {
		t.Errorf("a link, its target and the parent: %v, %v; want 4 campaigns, each once", got, err)
	}
	// loop/loop/loop is the links folder again: read once, its own loop
	// entry not walked into.
	if got, err = FindCampaigns([]string{filepath.Join(links, "loop", "loop", "loop")}); err != nil || len(got) != 1 {
		t.Errorf("a path through the loop: %v, %v; want the one campaign", got, err)
	}
}
