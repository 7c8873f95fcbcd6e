package results

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Gauges are the last reading of each second, written after in_flight with
// an empty cell where nothing was read; counters keep their columns.
func TestSeriesGaugesInCSV(t *testing.T) {
	s := NewSeries(0, 10)
	s.Add(Completed, 0, 5)
	s.Add(Delivered, 0, 7)
	s.SetGauge(Lag, 100e6, 40)
	s.SetGauge(Lag, 900e6, 42) // later in second 0: replaces 40
	s.SetGauge(BrokerCPUPercent, 1.5e9, 37.256)
	s.SetGauge(HarnessRSSBytes, 2.2e9, 123456789)
	var b strings.Builder
	if err := s.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "second,produced,delivered,completed,redelivered,released,rejected,lock_expired,in_flight," +
		"lag,broker_cpu_percent,broker_heap_used_bytes,harness_cpu_percent,harness_rss_bytes,broker_rss_bytes,lag_unread\n" +
		"0,0,7,5,0,0,0,0,2,42,,,,,,\n" +
		"1,0,0,0,0,0,0,0,2,,37.26,,,,,\n" +
		"2,0,0,0,0,0,0,0,2,,,,,123456789,,\n"
	if b.String() != want {
		t.Fatalf("csv\n%s\nwant\n%s", b.String(), want)
	}

	path := filepath.Join(t.TempDir(), "timeseries.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := ReadSeriesCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Column("lag"); len(got) != 3 || got[0] != 42 || !math.IsNaN(got[1]) {
		t.Errorf("lag column %v", got)
	}
	if got := tab.Column("broker_cpu_percent"); got[1] != 37.26 {
		t.Errorf("broker_cpu_percent %v", got)
	}
	if got := tab.Column("in_flight"); got[2] != 2 {
		t.Errorf("in_flight %v", got)
	}
	if !tab.Known("harness_rss_bytes") || tab.Known("broker_rss_bytes") || !tab.Has("broker_rss_bytes") {
		t.Errorf("known/has: %v %v %v", tab.Known("harness_rss_bytes"), tab.Known("broker_rss_bytes"), tab.Has("broker_rss_bytes"))
	}
}

// Files written before the gauge columns existed still read.
func TestReadSeriesCSVWithoutGauges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "timeseries.csv")
	old := "second,produced,delivered,completed,redelivered,released,rejected,lock_expired,in_flight\n0,10,10,10,0,0,0,0,0\n1,5,4,3,0,0,0,0,1\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := ReadSeriesCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Column("completed"); len(got) != 2 || got[0] != 10 || got[1] != 3 {
		t.Errorf("completed %v", got)
	}
	if tab.Has("lag") || tab.Column("lag") != nil || tab.Known("lag") {
		t.Error("old file has no lag column")
	}
}
