package scenarios

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestEveryDimensionExample loads scenarios/examples/every-dimension.yaml,
// checks that it writes every key of the schema (so a new key without an
// example fails here), that it expands to the matrix its comments describe,
// and that docs/how-to/write-a-scenario.md links to it.
func TestEveryDimensionExample(t *testing.T) {
	const path = "examples/every-dimension.yaml"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := checkFile(path, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range topLevelKeys() {
		if key == "rate" {
			continue // refused beside rate_schedule, which replaces it: the file writes it in a comment
		}
		if _, ok := info.lines[key]; !ok {
			t.Errorf("%s has no example of %q", path, key)
		}
	}
	s, err := Load(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// together(consumer_type, style, renew) 2 × partitions 2 × together(members, workers) 2 ×
	// max_poll_records 2 × processing.p99 2 × load_mode 2 × locks 2 = 128, × repeat 2.
	if len(s.Runs) != 256 {
		t.Errorf("%d runs, want 256", len(s.Runs))
	}
	for _, r := range s.Runs {
		if (r.ConsumerType == "share") != (r.Style == "blocking" && r.Renew == "auto") {
			t.Fatalf("consumer_type, style and renew must advance together: %+v", r)
		}
		if (r.Members == 4) != (r.Workers == 2) {
			t.Fatalf("members and workers must advance together: %+v", r)
		}
		if len(r.Events) != 2 {
			t.Fatalf("every run carries the 2 events: %+v", r.Events)
		}
		if (r.LoadMode == "max_rate") != (r.MaxRate != nil) {
			t.Fatalf("max_rate block on load_mode %s: %v", r.LoadMode, r.MaxRate)
		}
	}
	if s.Recommend == nil || len(s.Expectations) != 2 {
		t.Errorf("recommend %+v, %d expectations", s.Recommend, len(s.Expectations))
	}
	page, err := os.ReadFile("../docs/how-to/write-a-scenario.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "](../../scenarios/"+path+")") {
		t.Errorf("docs/how-to/write-a-scenario.md must link to scenarios/%s", path)
	}
}

// TestMprSweepExample loads scenarios/examples/mpr-sweep.yaml, the
// max.poll.records × consumer type × members sweep of the tuning example
// in docs/how-to/gate-ci.md#expectations: 2 × 2 × 3 runs, every combination once, and a
// recommendation per consumer type and member count.
func TestMprSweepExample(t *testing.T) {
	s, err := Load("examples/mpr-sweep.yaml", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range s.Runs {
		seen[fmt.Sprintf("%s/%d/%d", r.ConsumerType, r.Members, r.MaxPollRecords)] = true
	}
	if len(s.Runs) != 12 || len(seen) != 12 {
		t.Errorf("%d runs, %d distinct (type, members, max_poll_records): want 12 and 12", len(s.Runs), len(seen))
	}
	if s.Recommend == nil || s.Recommend.Knob != "max_poll_records" || len(s.Expectations) != 4 {
		t.Errorf("recommend %+v, %d expectations", s.Recommend, len(s.Expectations))
	}
}
