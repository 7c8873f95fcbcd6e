package runs

import "testing"

func TestNewSettleAndFigures(t *testing.T) {
	if NewSettle(nil) != nil {
		t.Error("no step: want no settle block")
	}
	r := &Record{Settle: NewSettle([]SettleStep{{After: "previous_run", Sec: 1.5, EndCores: 0.06}, {After: "produce_only", Sec: 4.25, EndCores: 0.05}})}
	want := map[string]float64{"settle.duration_s": 5.75, "settle.end_cores": 0.05}
	for path, w := range want {
		f, err := LookupFigure(path)
		if err != nil {
			t.Fatalf("figure %s: %v", path, err)
		}
		if v, ok := f.Value(r); !ok || v != w {
			t.Errorf("%s = %v, %v; want %v", path, v, ok, w)
		}
		if _, ok := f.Value(&Record{}); ok {
			t.Errorf("%s reads a value on a run without a settle", path)
		}
	}
}
