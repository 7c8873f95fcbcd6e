package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "embed"

	"github.com/sharebench/sharebench/results/runs"
)

// DefaultHistoryFigures are the figures `sharebench history` follows when
// none is named: completed records/s, completion p99 and the brokers' CPU
// (left out where no run recorded it).
var DefaultHistoryFigures = []string{"throughput.completed_per_sec", "latency.completion_ms.p99", "resources.broker_percent"}

// optionalFigures are default figures drawn only where some run has a
// non-zero value (kfake runs and old files have no broker CPU).
var optionalFigures = map[string]bool{"resources.broker_percent": true}

// HistoryOptions choose what `sharebench history` draws.
type HistoryOptions struct {
	// Figures are figure names (docs/reference/figures.md): run.json paths
	// (latency.completion_ms.p99) or aliases (completion_p99); BuildHistory
	// turns them into paths.
	Figures []string
	// Window is the number of points, the current one included, whose
	// min–max is the noise band.
	Window int
	// ThresholdPercent: a point is a regression when it is worse than the
	// previous point of its series by more than this many percent.
	ThresholdPercent float64
}

// HistoryCampaign is one campaign folder read for the history.
type HistoryCampaign struct {
	Dir      string
	Name     string // the folder's name: <campaign>-<UTC>
	Camp     runs.Campaign
	Recs     []runs.Record
	Started  time.Time
	Revision string // VCS revision recorded in campaign.json, "" if none
	Report   string // link to its report.html from the history's folder
}

// Incomplete is the campaign's status when it is not complete ("" when it
// is): such a campaign is drawn only with --include-incomplete, and marked.
func (c HistoryCampaign) Incomplete() string {
	if st := c.Camp.EffectiveStatus(); st != runs.StatusComplete {
		return st
	}
	return ""
}

// Label is the campaign's name, with "(INCOMPLETE: status …)" for a
// campaign that did not complete.
func (c HistoryCampaign) Label() string {
	if st := c.Incomplete(); st != "" {
		return c.Name + " (INCOMPLETE: status " + st + ")"
	}
	return c.Name
}

// History is the figures of every scenario and run key over the campaigns.
type History struct {
	Options   HistoryOptions
	Campaigns []HistoryCampaign // by start time
	Series    []HistorySeries   // by scenario, run key, figure
	// LeftOut says what the history did not draw, one line each: a
	// campaign excluded for its status or unreadable, a corrupt run.
	// history.html lists them (the caller fills it in).
	LeftOut []string
}

// HistorySeries is one figure of one run key of one scenario over time.
type HistorySeries struct {
	Scenario, RunKey, Figure string
	HigherBetter             bool
	Points                   []HistoryPoint
}

// HistoryPoint is the figure in one campaign.
type HistoryPoint struct {
	Campaign         int // index into History.Campaigns
	Value            float64
	NoiseLo, NoiseHi float64 // min and max of the last Window points, this one included
	ChangePercent    float64 // vs the previous point; NaN for the first and for a change from zero (FromZero)
	// FromZero marks a point whose previous point was 0 while it is not:
	// a change no percentage can express. A change from 0 in the worse
	// direction (lost records 0 → 500) is a regression whatever the
	// threshold.
	FromZero   bool
	Regression bool
	NotKafka   bool
}

// FindCampaigns returns the campaign folders (those with a campaign.json)
// at or under each path, in path order, each once. Symbolic links are
// followed as compare and report follow them (runs.LoadCampaign stats the
// folder it is given): a path that is a link to a folder is read where it
// points, and a link met under a path is a campaign when it leads to one;
// a link to any other folder is not walked into, so a link loop ends.
func FindCampaigns(paths []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	// add reports whether path is a campaign folder, listing it once
	// however many links lead to it.
	add := func(path string) bool {
		if _, err := os.Stat(filepath.Join(path, "campaign.json")); err != nil {
			return false
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			real = path
		}
		if abs, _ := filepath.Abs(real); !seen[abs] {
			seen[abs] = true
			out = append(out, path)
		}
		return true
	}
	for _, p := range paths {
		root := p
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				root = real
			}
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.Type()&fs.ModeSymlink != 0:
				add(path)
				return nil
			case !d.IsDir():
				return nil
			case add(path), d.Name() == "runs":
				return filepath.SkipDir
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no campaign folder (with a campaign.json) at or under %s", strings.Join(paths, ", "))
	}
	return out, nil
}

// LoadHistoryCampaign reads a campaign folder; outDir is where history.html
// goes, so that its link to the campaign's report.html is relative.
func LoadHistoryCampaign(dir, outDir string) (HistoryCampaign, error) {
	camp, recs, err := runs.LoadCampaign(dir)
	if err != nil {
		return HistoryCampaign{}, err
	}
	if err := redactAll(&camp, &recs); err != nil { // before history.html and history.csv format them
		return HistoryCampaign{}, err
	}
	hc := HistoryCampaign{Dir: dir, Name: filepath.Base(filepath.Clean(dir)), Camp: camp, Recs: recs, Revision: campaignRevision(dir)}
	hc.Started = campaignStart(dir, camp)
	report := filepath.Join(dir, "report.html")
	if abs, err := filepath.Abs(report); err == nil {
		report = abs
	}
	if absOut, err := filepath.Abs(outDir); err == nil {
		if rel, err := filepath.Rel(absOut, report); err == nil {
			report = rel
		}
	}
	hc.Report = (&url.URL{Path: filepath.ToSlash(report)}).String()
	return hc, nil
}

// campaignStart is campaign.json's started_at, else the UTC stamp ending
// the folder name (name-20260101T000000Z), else campaign.json's mtime.
func campaignStart(dir string, camp runs.Campaign) time.Time {
	if t, err := time.Parse(time.RFC3339, camp.StartedAt); err == nil {
		return t.UTC()
	}
	base := filepath.Base(dir)
	if i := strings.LastIndex(base, "-"); i >= 0 {
		if t, err := time.Parse("20060102T150405Z", base[i+1:]); err == nil {
			return t
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "campaign.json")); err == nil {
		return st.ModTime().UTC()
	}
	return time.Time{}
}

// campaignRevision is the VCS revision campaign.json records, read
// loosely: the first "revision" or "vcs_revision" string at its top level,
// in a top-level object, or in an object of its environment list (or one
// level below). "" when none is recorded.
func campaignRevision(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "campaign.json"))
	if err != nil {
		return ""
	}
	var doc map[string]any
	if json.Unmarshal(b, &doc) != nil {
		return ""
	}
	var find func(v any, depth int) string
	find = func(v any, depth int) string {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range []string{"revision", "vcs_revision"} {
				if s, ok := x[k].(string); ok && s != "" {
					return s
				}
			}
			if depth > 0 {
				keys := make([]string, 0, len(x))
				for k := range x {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					if s := find(x[k], depth-1); s != "" {
						return s
					}
				}
			}
		case []any:
			for _, e := range x {
				if s := find(e, depth); s != "" {
					return s
				}
			}
		}
		return ""
	}
	if s := find(doc, 0); s != "" {
		return s
	}
	for _, k := range []string{"sharebench", "version", "environment"} {
		if s := find(doc[k], 2); s != "" {
			return s
		}
	}
	return ""
}

// scenarioName is the scenario's name, else the campaign name without its
// UTC stamp.
func scenarioName(c runs.Campaign) string {
	if c.Scenario != nil && c.Scenario.Name != "" {
		return c.Scenario.Name
	}
	if i := strings.LastIndex(c.Name, "-"); i > 0 {
		if _, err := time.Parse("20060102T150405Z", c.Name[i+1:]); err == nil {
			return c.Name[:i]
		}
	}
	return c.Name
}

// BuildHistory follows each figure of each scenario's run keys (run ids)
// over the campaigns, oldest first.
func BuildHistory(camps []HistoryCampaign, opts HistoryOptions) (History, error) {
	if len(opts.Figures) == 0 {
		opts.Figures = DefaultHistoryFigures
	}
	if opts.Window < 1 {
		opts.Window = 5
	}
	// Any name of a figure works (completion_p99, completion_p99_ms); the
	// series carry its run.json path, the direction comes from the registry.
	figs := make([]runs.Figure, len(opts.Figures))
	paths := make([]string, len(opts.Figures))
	for i, name := range opts.Figures {
		f, err := runs.LookupFigure(name)
		if err != nil {
			return History{Options: opts}, fmt.Errorf("figure %s: %w", name, err)
		}
		figs[i], paths[i] = f, f.Path
	}
	opts.Figures = paths
	sort.SliceStable(camps, func(i, j int) bool { return camps[i].Started.Before(camps[j].Started) })
	h := History{Options: opts, Campaigns: camps}
	type key struct{ scenario, run, figure string }
	byKey := map[key]*HistorySeries{}
	var order []key
	known := map[string]bool{}
	for ci, c := range camps {
		for _, r := range c.Recs {
			for _, fig := range figs {
				v, ok := fig.Value(&r)
				if !ok {
					continue
				}
				f := fig.Path
				known[f] = true
				k := key{scenarioName(c.Camp), r.RunID, f}
				s := byKey[k]
				if s == nil {
					s = &HistorySeries{Scenario: k.scenario, RunKey: k.run, Figure: f, HigherBetter: fig.Better == runs.HigherIsBetter}
					byKey[k] = s
					order = append(order, k)
				}
				s.Points = append(s.Points, HistoryPoint{Campaign: ci, Value: v, NotKafka: !r.Environment.IsKafka})
			}
		}
	}
	for _, f := range opts.Figures {
		if !known[f] && !optionalFigures[f] {
			return h, fmt.Errorf("figure %s: no run.json of these campaigns has a number there", f)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.scenario != b.scenario {
			return a.scenario < b.scenario
		}
		if a.run != b.run {
			return a.run < b.run
		}
		return figureIndex(opts.Figures, a.figure) < figureIndex(opts.Figures, b.figure)
	})
	for _, k := range order {
		s := byKey[k]
		if optionalFigures[s.Figure] && allZero(s.Points) {
			continue
		}
		markNoise(s, opts)
		h.Series = append(h.Series, *s)
	}
	return h, nil
}

func figureIndex(figs []string, f string) int {
	for i, x := range figs {
		if x == f {
			return i
		}
	}
	return len(figs)
}

func allZero(pts []HistoryPoint) bool {
	for _, p := range pts {
		if p.Value != 0 {
			return false
		}
	}
	return true
}

// markNoise sets each point's noise band (min–max of the last Window
// points, itself included) and marks a regression where the point is worse
// than the previous one by more than ThresholdPercent. After a 0 the change
// is no percentage: 0 → 0 is a change of 0%, any other value is marked
// FromZero and is a regression when it is in the worse direction (any
// worsening from 0 is beyond every threshold).
func markNoise(s *HistorySeries, opts HistoryOptions) {
	for i := range s.Points {
		p := &s.Points[i]
		lo, hi := p.Value, p.Value
		for j := max(0, i-opts.Window+1); j <= i; j++ {
			lo, hi = math.Min(lo, s.Points[j].Value), math.Max(hi, s.Points[j].Value)
		}
		p.NoiseLo, p.NoiseHi = lo, hi
		p.ChangePercent = math.NaN()
		if i == 0 {
			continue
		}
		prev := s.Points[i-1].Value
		worse := p.Value - prev
		if s.HigherBetter {
			worse = -worse
		}
		if prev == 0 {
			if p.Value == 0 {
				p.ChangePercent = 0
				continue
			}
			p.FromZero = true
			p.Regression = worse > 0
			continue
		}
		p.ChangePercent = 100 * (p.Value - prev) / math.Abs(prev)
		if s.HigherBetter {
			p.Regression = -p.ChangePercent > opts.ThresholdPercent
		} else {
			p.Regression = p.ChangePercent > opts.ThresholdPercent
		}
	}
}

// Regressions lists the points marked as regressions, one line each.
func (h History) Regressions() []string {
	var out []string
	for _, s := range h.Series {
		for _, p := range s.Points {
			if !p.Regression {
				continue
			}
			c := h.Campaigns[p.Campaign]
			change := fmt.Sprintf("%+.1f%% vs the previous campaign", p.ChangePercent)
			if p.FromZero {
				change = "from 0 in the previous campaign"
			}
			out = append(out, fmt.Sprintf("%s %s %s: %.4g (%s) in %s", s.Scenario, s.RunKey, s.Figure, p.Value, change, c.Label()))
		}
	}
	return out
}

// HistoryCSV is history.csv: one row per point.
func HistoryCSV(h History) Reporter {
	return func(w io.Writer) error {
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"scenario", "run_key", "figure", "campaign", "started_at", "revision", "value",
			"noise_lo", "noise_hi", "change_percent", "regression", "not_kafka", "report", "from_zero", "status"})
		g := func(v float64) string {
			if math.IsNaN(v) {
				return ""
			}
			return strconv.FormatFloat(v, 'g', 10, 64)
		}
		for _, s := range h.Series {
			for _, p := range s.Points {
				c := h.Campaigns[p.Campaign]
				_ = cw.Write([]string{s.Scenario, s.RunKey, s.Figure, c.Name, c.Started.Format(time.RFC3339), c.Revision,
					g(p.Value), g(p.NoiseLo), g(p.NoiseHi), g(p.ChangePercent), strconv.FormatBool(p.Regression),
					strconv.FormatBool(p.NotKafka), c.Report, strconv.FormatBool(p.FromZero), c.Camp.EffectiveStatus()})
			}
		}
		cw.Flush()
		return cw.Error()
	}
}

//go:embed history.html.tmpl
var historyTemplateText string

var historyTemplate = template.Must(template.Must(template.New("history").Parse(historyTemplateText)).Parse(chartsTemplateText))

type historyPage struct {
	Title       string
	Options     HistoryOptions
	Regressions []string
	Campaigns   []HistoryCampaign
	LeftOut     []string
	Incomplete  int // campaigns drawn though not complete (--include-incomplete)
	Scenarios   []historyScenario
	Page        chartPage
}

type historyScenario struct {
	Name string
	Runs []historyRun
}

// historyRun is a run key's charts (one per figure) and its table: a row
// per campaign, a column per figure.
type historyRun struct {
	Key     string
	Charts  []chart
	Figures []string
	Rows    []historyRow
}

type historyRow struct {
	Campaign HistoryCampaign
	Cells    []historyCell
}

type historyCell struct {
	Text       string
	Regression bool
}

// HistoryHTML is history.html: per scenario and run key, a chart per
// figure over the campaigns with its noise band and regressions, and the
// same figures as a table linking each campaign's report.html.
func HistoryHTML(h History) Reporter {
	return func(w io.Writer) error {
		page := historyPage{Title: "sharebench history", Options: h.Options, Regressions: h.Regressions(), Campaigns: h.Campaigns, LeftOut: h.LeftOut}
		for _, c := range h.Campaigns {
			if c.Incomplete() != "" {
				page.Incomplete++
			}
		}
		var charts []*chart
		for _, s := range h.Series {
			if n := len(page.Scenarios); n == 0 || page.Scenarios[n-1].Name != s.Scenario {
				page.Scenarios = append(page.Scenarios, historyScenario{Name: s.Scenario})
			}
			sc := &page.Scenarios[len(page.Scenarios)-1]
			if n := len(sc.Runs); n == 0 || sc.Runs[n-1].Key != s.RunKey {
				sc.Runs = append(sc.Runs, historyRun{Key: s.RunKey})
			}
			hr := &sc.Runs[len(sc.Runs)-1]
			hr.Charts = append(hr.Charts, historyChart(h, s))
			addHistoryColumn(hr, h, s)
		}
		for i := range page.Scenarios {
			for j := range page.Scenarios[i].Runs {
				for k := range page.Scenarios[i].Runs[j].Charts {
					charts = append(charts, &page.Scenarios[i].Runs[j].Charts[k])
				}
			}
		}
		page.Page = newChartPage(charts)
		return historyTemplate.Execute(w, page)
	}
}

func historyChart(h History, s HistorySeries) chart {
	better := "lower is better"
	if s.HigherBetter {
		better = "higher is better"
	}
	c := chart{Title: fmt.Sprintf("%s (%s)", s.Figure, better), Kind: kindHistory, XLabel: "campaign start (UTC)", YLabel: s.Figure}
	var val, lo, hi, reg nums
	for _, p := range s.Points {
		camp := h.Campaigns[p.Campaign]
		c.X = append(c.X, float64(camp.Started.Unix()))
		c.Links = append(c.Links, camp.Report)
		note := camp.Label()
		if camp.Revision != "" {
			note += " @ " + shortRevision(camp.Revision)
		}
		if p.NotKafka {
			note += " (NOT KAFKA)"
		}
		if p.FromZero {
			note += " (from 0)"
		}
		c.Notes = append(c.Notes, note)
		val, lo, hi = append(val, p.Value), append(lo, p.NoiseLo), append(hi, p.NoiseHi)
		r := math.NaN()
		if p.Regression {
			r = p.Value
		}
		reg = append(reg, r)
	}
	c.Series = []chartSeries{
		{Label: s.Figure, Color: "#1f77b4", Y: val},
		{Label: fmt.Sprintf("noise max (last %d)", h.Options.Window), Color: "#7f7f7f", Dash: true, NoiseHi: true, Y: hi},
		{Label: fmt.Sprintf("noise min (last %d)", h.Options.Window), Color: "#7f7f7f", Dash: true, NoiseLo: true, Y: lo},
		{Label: fmt.Sprintf("regression > %g%%", h.Options.ThresholdPercent), Color: "#d62728", Points: true, Y: reg},
	}
	return c
}

// addHistoryColumn adds a figure's column to a run key's table.
func addHistoryColumn(hr *historyRun, h History, s HistorySeries) {
	col := len(hr.Figures)
	hr.Figures = append(hr.Figures, s.Figure)
	for _, p := range s.Points {
		row := -1
		for i, r := range hr.Rows {
			if r.Campaign.Dir == h.Campaigns[p.Campaign].Dir {
				row = i
			}
		}
		if row < 0 {
			hr.Rows = append(hr.Rows, historyRow{Campaign: h.Campaigns[p.Campaign]})
			row = len(hr.Rows) - 1
		}
		for len(hr.Rows[row].Cells) <= col {
			hr.Rows[row].Cells = append(hr.Rows[row].Cells, historyCell{Text: "–"})
		}
		text := strconv.FormatFloat(p.Value, 'g', 6, 64)
		if p.FromZero {
			text += " (from 0)"
		} else if !math.IsNaN(p.ChangePercent) {
			text += fmt.Sprintf(" (%+.1f%%)", p.ChangePercent)
		}
		if p.NotKafka {
			text += " NOT KAFKA"
		}
		hr.Rows[row].Cells[col] = historyCell{Text: text, Regression: p.Regression}
	}
	sort.SliceStable(hr.Rows, func(i, j int) bool { return hr.Rows[i].Campaign.Started.Before(hr.Rows[j].Campaign.Started) })
	for i := range hr.Rows {
		for len(hr.Rows[i].Cells) < len(hr.Figures) {
			hr.Rows[i].Cells = append(hr.Rows[i].Cells, historyCell{Text: "–"})
		}
	}
}

func shortRevision(r string) string {
	if len(r) > 12 {
		return r[:12]
	}
	return r
}
