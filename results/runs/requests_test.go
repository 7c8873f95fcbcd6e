package runs

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results"
)

// An untimed row (the Java client's per-node request counts) keeps its
// count and rate; its times are unknown, so run.json leaves them out, and
// the fetch totals do not take it for a fetch with no empty response.
func TestRequestFiguresUntimed(t *testing.T) {
	tm := results.RequestTimings{
		{Broker: 1, Kind: "all (java client metrics)"}: {Count: 40, Untimed: true},
		{Broker: 1, Kind: "ShareFetch"}:                {Count: 4, Micros: 2_000_000, MaxMicros: 900_000, Empty: 2, EmptyMicros: 1_000_000},
	}
	figs := RequestFigures(tm, 10)
	if len(figs) != 2 {
		t.Fatalf("figures %+v", figs)
	}
	java := figs[1]
	if java.Kind != "all (java client metrics)" || !java.Untimed || java.Count != 40 || java.PerSec != 4 ||
		java.MeanMs != 0 || java.MaxMs != 0 || java.WaitSec != 0 || java.EmptyShare != 0 {
		t.Errorf("java row %+v", java)
	}
	b, err := json.Marshal(figs)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	want := `{"broker":1,"kind":"all (java client metrics)","count":40,"per_sec":4,"untimed":true,"unavailable":"mean_ms, max_ms, wait_s, empty_share: `
	if !strings.Contains(s, want) {
		t.Errorf("json %s\nwant the untimed row as %s", s, want)
	}
	if !strings.Contains(s, `"kind":"ShareFetch","count":4,"per_sec":0.4,"empty_share":0.5,"empty_mean_ms":500,"mean_ms":500,"max_ms":900,"wait_s":2}`) {
		t.Errorf("timed row changed: %s", s)
	}
	var back []RequestFigure
	if err := json.Unmarshal(b, &back); err != nil || len(back) != 2 || !back[1].Untimed || back[1].Count != 40 {
		t.Errorf("round trip %+v, %v", back, err)
	}
	tot, ok := SumFetches(figs)
	if !ok || tot.Count != 4 || tot.EmptyShare != 0.5 {
		t.Errorf("fetch totals %+v %v, want the ShareFetch row only", tot, ok)
	}
	if _, ok := SumFetches(figs[1:]); ok {
		t.Error("an untimed row counted as a fetch")
	}
}

// A timed row without an empty count (the Java client's fetch responses)
// keeps its times; its empty share is unknown: left out of run.json, named
// under unavailable, and not taken into the fetch totals, whose empty
// share would otherwise read 0. 4 responses of 50 ms in all: mean 12.5 ms.
func TestRequestFiguresNoEmpty(t *testing.T) {
	tm := results.RequestTimings{
		{Broker: 2, Kind: "ShareFetch+ShareAcknowledge responses (java client metrics)"}: {Count: 4, Micros: 50_000, MaxMicros: 30_000, NoEmpty: true},
	}
	figs := RequestFigures(tm, 2)
	if len(figs) != 1 {
		t.Fatalf("figures %+v", figs)
	}
	f := figs[0]
	if f.Count != 4 || f.PerSec != 2 || f.MeanMs != 12.5 || f.MaxMs != 30 || f.WaitSec != 0.05 || f.EmptyShare != 0 || f.Untimed ||
		!strings.HasPrefix(f.Unavailable, "empty_share, empty_mean_ms: ") {
		t.Errorf("row %+v", f)
	}
	b, _ := json.Marshal(f)
	if s := string(b); strings.Contains(s, "empty_share\":") || !strings.Contains(s, `"mean_ms":12.5,"max_ms":30,"wait_s":0.05`) {
		t.Errorf("json %s", s)
	}
	if _, ok := SumFetches(figs); ok {
		t.Error("a row without an empty count taken into the fetch totals")
	}
}
