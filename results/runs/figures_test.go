package runs_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/internal/figuregen"
	"github.com/sharebench/sharebench/results/runs"
)

// TestGeneratedFiguresUpToDate regenerates scenarios/figures_gen.go and
// docs/reference/figures.md in memory and compares them with the committed files, so
// a figure declared without go generate ./results/runs fails here.
func TestGeneratedFiguresUpToDate(t *testing.T) {
	names, err := figuregen.ScenarioNames()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{figuregen.ScenarioNamesPath: names, figuregen.TablePath: figuregen.Table()} {
		got, err := os.ReadFile(filepath.Join("..", "..", path))
		if err != nil {
			t.Fatalf("%v: run go generate ./results/runs", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./results/runs", path)
		}
	}
}

// fill sets every number of v to a distinct value (1, 2, 3, ...), every
// bool to true and allocates every pointer, so that a figure reading the
// wrong field reads the wrong number.
func fill(v reflect.Value, next *float64) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem(), next)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), next)
			}
		}
	case reflect.Float32, reflect.Float64:
		*next++
		v.SetFloat(*next + 0.25)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		*next++
		v.SetInt(int64(*next))
	case reflect.Bool:
		v.SetBool(true)
	}
}

// jsonNumber reads a dotted path from the record as run.json has it: the
// independent reading every accessor must agree with.
func jsonNumber(t *testing.T, r runs.Record, path string) (float64, bool) {
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return 0, false
		}
		if v, ok = m[k]; !ok {
			return 0, false
		}
	}
	switch x := v.(type) {
	case float64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// computed are the figures that are not stored in run.json, with their
// definition written out.
var computed = map[string]func(r runs.Record) float64{
	// withRequests' rows: two ShareFetch rows (4 and 8 requests, half and a
	// quarter of them empty) and a ShareAcknowledge row that is no fetch.
	"requests.fetch.count":       func(runs.Record) float64 { return 4 + 8 },
	"requests.fetch.per_sec":     func(runs.Record) float64 { return 10.25 + 3.5 },
	"requests.fetch.empty_share": func(runs.Record) float64 { return (0.5*4 + 0.25*8) / 12 },
	"requests.fetch.wait_s":      func(runs.Record) float64 { return 1.5 + 2.25 },
	"audit.archived_ratio":       func(r runs.Record) float64 { return float64(r.Audit.Archived) / float64(r.Audit.Produced) },
	"ceiling.destination_utilization": func(r runs.Record) float64 {
		return r.Throughput.CompletedPerSec / r.Ceiling.Destination
	},
	"event_summary.redeliveries_beyond_held": func(r runs.Record) float64 {
		return float64(r.EventSummary.Redeliveries - r.EventSummary.HeldByCrashed)
	},
}

// withRequests gives r request rows for the requests.fetch figures.
func withRequests(r *runs.Record) {
	r.Requests = []runs.RequestFigure{
		{Broker: 1, Kind: "ShareFetch", Count: 4, PerSec: 10.25, EmptyShare: 0.5, WaitSec: 1.5},
		{Broker: 1, Kind: "ShareAcknowledge", Count: 100, PerSec: 50, WaitSec: 9},
		{Broker: 2, Kind: "ShareFetch", Count: 8, PerSec: 3.5, EmptyShare: 0.25, WaitSec: 2.25},
	}
}

// TestFigureAccessorsMatchRunJSON checks every figure's typed accessor
// against its run.json path read from the JSON encoding of a record whose
// every field holds a different number.
func TestFigureAccessorsMatchRunJSON(t *testing.T) {
	var r runs.Record
	n := 0.0
	fill(reflect.ValueOf(&r).Elem(), &n)
	withRequests(&r)
	r.BrokerCost.ProduceOnly.Compiling = false // a compiling phase withholds the consume side
	for _, f := range runs.Figures() {
		got, ok := f.Value(&r)
		if !ok {
			t.Errorf("%s: no value on a record with every block present", f.Path)
			continue
		}
		want, inJSON := jsonNumber(t, r, f.Path)
		if def, ok := computed[f.Path]; ok {
			if inJSON {
				t.Errorf("%s: declared computed, but run.json has it", f.Path)
			}
			want, inJSON = def(r), true
		}
		if !inJSON {
			t.Errorf("%s: not a number in run.json", f.Path)
			continue
		}
		if got != want {
			t.Errorf("%s: accessor reads %v, run.json has %v", f.Path, got, want)
		}
	}
	// An absent block is no figure, not zero.
	var empty runs.Record
	for _, p := range []string{"burst.end_to_end_s", "max_rate.found_rate", "audit.order.violations", "audit.dead_letter_missing",
		"event_summary.redeliveries", "event_summary.recovery_max_s", "group.fallback", "audit.archived_ratio",
		"requests.fetch.per_sec", "stall.quiet_s"} {
		if v, ok := runs.FieldValue(empty, p); ok {
			t.Errorf("%s on an empty record: %v, want none", p, v)
		}
	}
}

// TestFigureRegistry checks what each declaration promises: units match
// the clause conversion (durations convert for *_ms and *_s paths, as
// before the registry), kinds match the JSON type, and the old names
// resolve to the old figures.
func TestFigureRegistry(t *testing.T) {
	var r runs.Record
	n := 0.0
	fill(reflect.ValueOf(&r).Elem(), &n)
	withRequests(&r)
	for _, f := range runs.Figures() {
		if ms := strings.Contains(f.Path, "_ms"); ms != (f.Unit == "ms") {
			t.Errorf("%s: unit %q; *_ms paths are in ms", f.Path, f.Unit)
		}
		if s := strings.HasSuffix(f.Path, "_s"); s != (f.Unit == "s") {
			t.Errorf("%s: unit %q; *_s paths are in seconds", f.Path, f.Unit)
		}
		v, _ := f.Value(&r)
		if isInt := v == float64(int64(v)); (f.Kind == runs.Count || f.Kind == runs.YesNo) != isInt {
			t.Errorf("%s: kind %v but the value read %v", f.Path, f.Kind, v)
		}
	}
	for name, path := range map[string]string{
		// compare thresholds
		"throughput": "throughput.completed_per_sec", "completion_p50": "latency.completion_ms.p50",
		"completion_p99": "latency.completion_ms.p99", "completion_p999": "latency.completion_ms.p999",
		"delivery_p99": "latency.delivery_ms.p99", "publish_p99": "latency.publish_ms.p99", "efficiency": "ceiling.efficiency",
		// runs.csv columns
		"completion_p99_ms": "latency.completion_ms.p99", "ceiling_per_sec": "ceiling.records_per_sec",
		"lock_holders_per_sec": "ceiling.lock_holders", "records_per_acquisition_p90": "polls.records_per_acquisition.p90",
		"audit_lost": "audit.lost", "end_to_end_s": "burst.end_to_end_s", "schedule_lag_p99_ms": "latency.schedule_lag_ms.p99",
		// short forms
		"lost": "audit.lost", "completed_per_sec": "throughput.completed_per_sec", "empty_ratio": "polls.empty_ratio",
	} {
		f, err := runs.LookupFigure(name)
		if err != nil || f.Path != path {
			t.Errorf("%s: got %s %v, want %s", name, f.Path, err, path)
		}
	}
	if _, err := runs.LookupFigure("p99"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("p99: %v, want ambiguous", err)
	}
}

// TestFigureDirections pins the figures whose declared direction differs
// from the guess history made from names before the registry (higher is
// better for throughput.*, *efficiency* and *completed_ratio, lower for
// the rest): capacities and completions are better higher.
func TestFigureDirections(t *testing.T) {
	guess := func(p string) runs.Direction {
		if strings.HasPrefix(p, "throughput.") || strings.Contains(p, "efficiency") || strings.HasSuffix(p, "completed_ratio") {
			return runs.HigherIsBetter
		}
		return runs.LowerIsBetter
	}
	var changed []string
	for _, f := range runs.Figures() {
		if f.Better != guess(f.Path) {
			changed = append(changed, f.Path)
		}
	}
	want := []string{"outcomes.completed", "audit.completed_once", "audit.balanced", "ceiling.records_per_sec",
		"ceiling.producer_rate", "ceiling.workers", "ceiling.locks", "ceiling.lock_holders", "ceiling.active_members",
		"ceiling.lock_expiry", "ceiling.useful_share", "ceiling.fetch_waits", "ceiling.destination", "ceiling.destination_duty", "ceiling.destination_utilization", "burst.consume_ceiling", "max_rate.found_rate", "max_rate.formula_ceiling_per_sec", "event_summary.after_per_sec", "event_summary.rolling_steps",
		"autoscale.max_replicas"}
	if !slices.Equal(changed, want) {
		t.Errorf("directions that differ from the name guess:\n got %v\nwant %v", changed, want)
	}
}

func TestRegisterFigureRefuses(t *testing.T) {
	ok := runs.Figure{Path: "x.test_figure", Unit: "ms", Label: "x", Better: runs.LowerIsBetter,
		Value: func(*runs.Record) (float64, bool) { return 1, true }}
	for name, mutate := range map[string]func(f *runs.Figure){
		"no value":        func(f *runs.Figure) { f.Value = nil },
		"no direction":    func(f *runs.Figure) { f.Better = 0 },
		"no unit":         func(f *runs.Figure) { f.Unit = "" },
		"path taken":      func(f *runs.Figure) { f.Path = "audit.lost" },
		"alias taken":     func(f *runs.Figure) { f.Threshold = "completion_p99" },
		"column is path":  func(f *runs.Figure) { f.Column = "latency.completion_ms.p99" },
		"alias shadows":   func(f *runs.Figure) { f.Aliases = []string{"lost"} },
		"short is alias":  func(f *runs.Figure) { f.Path = "x.ceiling_per_sec" },
		"spaces in path":  func(f *runs.Figure) { f.Path = "x y" },
		"no label at all": func(f *runs.Figure) { f.Label = "" },
	} {
		f := ok
		mutate(&f)
		if remove, err := runs.RegisterFigure(f); err == nil {
			remove()
			t.Errorf("%s: registered", name)
		}
	}
	remove, err := runs.RegisterFigure(ok)
	if err != nil {
		t.Fatal(err)
	}
	remove()
	if _, err := runs.LookupFigure(ok.Path); err == nil {
		t.Error("still registered after remove")
	}
}

// A run without a destination has no destination capacity: the figure is
// not measured (a console cell "-"), never a capacity of 0 records/s.
func TestDestinationCapacityNotMeasuredWithoutDestination(t *testing.T) {
	f, err := runs.LookupFigure("ceiling.destination")
	if err != nil {
		t.Fatal(err)
	}
	var r runs.Record
	if v, ok := f.Value(&r); ok {
		t.Errorf("no destination: ceiling.destination = %v, measured", v)
	}
	if cell := f.Cell(&r); cell != "-" {
		t.Errorf("no destination: console cell %q, want -", cell)
	}
	r.Ceiling.Destination = 2029
	if v, ok := f.Value(&r); !ok || v != 2029 {
		t.Errorf("with a destination: %v %v, want 2029 measured", v, ok)
	}
}
