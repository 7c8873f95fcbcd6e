package report

import (
	"bytes"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/results/runs/runstest"
)

// gaugeFixture is a 30 s series with every gauge read once a second:
// broker CPU climbs 10 → 39 %, heap 100..129 MiB, lag falls to 0.
func gaugeFixture() *results.Series {
	s := runstest.Series(1000)
	for i := range 30 {
		ns := int64(i)*1e9 + 5e8
		s.SetGauge(results.BrokerCPUPercent, ns, 10+float64(i)+0.25)
		s.SetGauge(results.BrokerHeapUsedBytes, ns, float64((100+i)<<20))
		s.SetGauge(results.BrokerRSSBytes, ns, float64(900<<20))
		s.SetGauge(results.HarnessCPUPercent, ns, 5)
		s.SetGauge(results.HarnessRSSBytes, ns, float64(50<<20))
		s.SetGauge(results.Lag, ns, float64(max(0, 290-10*i)))
	}
	return s
}

// With gauge columns, report.html draws CPU, memory and lag over time, and
// the maxima it draws are the CSV's; the phases are shaded from
// phases.window_start_s.
func TestHTMLGaugeChartsFromCSV(t *testing.T) {
	dir := t.TempDir()
	r := runstest.Run("r01-share", "share", 0, 1000, 50)
	r.Phases = runs.Phases{WarmupSec: 5, MeasureSec: 20, WindowStartSec: 3.5}
	if err := runs.WriteRunDir(filepath.Join(dir, "runs", r.RunID), &r, runstest.Merged(50), gaugeFixture()); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := HTML(dir, runs.Campaign{Name: "gauges"}, []runs.Record{r})(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	charts := pageCharts(t, page)
	for _, title := range []string{"CPU over time", "memory over time", "group lag and in-flight over time"} {
		c := chartByTitle(charts, title)
		if c == nil {
			t.Errorf("report.html lacks %q", title)
			continue
		}
		want := []chartBand{{Name: "warmup", Label: "warm-up", Color: "#eeeeee", Start: -1.5, End: 3.5},
			{Name: "measure", Label: "measurement window", Color: "#cfe3f7", Start: 3.5, End: 23.5}}
		if !reflect.DeepEqual(c.Bands, want) {
			t.Errorf("%s: bands %+v, want %+v", title, c.Bands, want)
		}
	}
	tab, err := results.ReadSeriesCSV(filepath.Join(dir, "runs", r.RunID, "timeseries.csv"))
	if err != nil {
		t.Fatal(err)
	}
	drawn := map[string]float64{}
	for _, c := range charts {
		for _, s := range c.Series {
			if s.Max == "" {
				continue
			}
			v, err := strconv.ParseFloat(s.Max, 64)
			if err != nil {
				t.Fatalf("max %q: %v", s.Max, err)
			}
			drawn[s.Key] = v
			// the line drawn is the column, scaled
			col := tab.Column(s.Key)
			if len(s.Y) != len(col) || len(c.X) != len(col) {
				t.Errorf("%s: %d points, CSV has %d rows", s.Key, len(s.Y), len(col))
			}
		}
	}
	for _, col := range results.GaugeNames() {
		if col == "lag_unread" {
			continue // shaded as gaps, not drawn as a line (TestLagGapsShaded)
		}
		want := 0.0
		for _, v := range tab.Column(col) {
			if v == v { // not NaN
				want = max(want, v)
			}
		}
		if got, ok := drawn[col]; !ok || got != want {
			t.Errorf("%s: drawn max %v (found %v), CSV max %v", col, got, ok, want)
		}
	}
	if drawn["broker_cpu_percent"] != 39.25 || drawn["lag"] != 290 {
		t.Errorf("fixture maxima: %v", drawn)
	}
	if !strings.Contains(page, "brokers (max 39.25)") || !strings.Contains(page, "heap (max 129)") {
		t.Error("legend maxima missing")
	}
}

// Without gauge columns (files from before they existed) or without
// readings, no over-time gauge chart is drawn and nothing is shaded for a
// run without phases.window_start_s.
func TestHTMLNoGaugeChartsWithoutColumns(t *testing.T) {
	dir := runstest.WriteCampaign(t, runstest.Run("r01-share", "share", 0, 1000, 50))
	camp, recs, err := runs.LoadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := HTML(dir, camp, recs)(&buf); err != nil {
		t.Fatal(err)
	}
	charts := pageCharts(t, buf.String())
	if chartByTitle(charts, "throughput over time") == nil {
		t.Fatal("throughput chart missing")
	}
	for _, banned := range []string{"CPU over time", "memory over time"} {
		if chartByTitle(charts, banned) != nil {
			t.Errorf("report.html has %q without gauge readings", banned)
		}
	}
	// in_flight is counted by the harness, so its chart is always there;
	// lag is a gauge and is left out.
	if c := chartByTitle(charts, "group lag and in-flight over time"); c == nil || len(c.Series) != 1 || c.Series[0].Key != "in_flight" {
		t.Errorf("lag and in-flight chart: %+v", c)
	}
	for _, c := range charts {
		if len(c.Bands) > 0 {
			t.Errorf("%s: shaded %+v without phases.window_start_s", c.Title, c.Bands)
		}
	}
	old := results.SeriesTable{Columns: []string{"second", "produced", "completed", "in_flight"}, Rows: [][]float64{{0, 1, 1, 0}}}
	if c := gaugeCharts(old, runs.Phases{}); len(c) != 1 || len(c[0].Series) != 1 {
		t.Errorf("old file: %d gauge charts, want the in-flight one", len(c))
	}
}

// Seconds whose lag reading failed are gaps: the CSV's lag cell is empty
// and lag_unread 1, and report.html shades each run of them on the lag
// chart (and only there).
func TestLagGapsShaded(t *testing.T) {
	dir := t.TempDir()
	r := runstest.Run("r01-share", "share", 0, 1000, 50)
	s := gaugeFixture()
	for _, sec := range []int{4, 10, 11, 12} {
		s.SetGaugeAt(results.Lag, sec, math.NaN())
		s.SetGaugeAt(results.LagUnread, sec, 1)
	}
	if err := runs.WriteRunDir(filepath.Join(dir, "runs", r.RunID), &r, runstest.Merged(50), s); err != nil {
		t.Fatal(err)
	}
	tab, err := results.ReadSeriesCSV(filepath.Join(dir, "runs", r.RunID, "timeseries.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lag := tab.Column("lag"); !math.IsNaN(lag[4]) || lag[5] != 240 {
		t.Errorf("lag column seconds 4, 5: %v %v, want empty and 240", lag[4], lag[5])
	}
	var buf bytes.Buffer
	if err := HTML(dir, runs.Campaign{Name: "gaps"}, []runs.Record{r})(&buf); err != nil {
		t.Fatal(err)
	}
	charts := pageCharts(t, buf.String())
	var gaps []chartBand
	for _, b := range chartByTitle(charts, "group lag and in-flight over time").Bands {
		if b.Name == "gap" {
			gaps = append(gaps, b)
		}
	}
	want := []chartBand{{Name: "gap", Label: "lag unread (reading failed)", Color: "#f6d5d5", Start: 4, End: 5},
		{Name: "gap", Label: "lag unread (reading failed)", Color: "#f6d5d5", Start: 10, End: 13}}
	if !reflect.DeepEqual(gaps, want) {
		t.Errorf("gap bands %+v, want %+v", gaps, want)
	}
	for _, b := range chartByTitle(charts, "CPU over time").Bands {
		if b.Name == "gap" {
			t.Errorf("CPU chart shaded a lag gap: %+v", b)
		}
	}
}
