package advisor

import (
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

func TestOrderingPerKeyRulesOutShare(t *testing.T) {
	in := Defaults()
	in.Rate, in.Partitions, in.Workers = 1000, 4, 1
	in.Processing = scenarios.Processing{Model: "constant", Time: 10 * time.Millisecond}
	free, err := Advise(in)
	if err != nil {
		t.Fatal(err)
	}
	if !free.ShareWorthIt || free.OrderingRulesOutShare {
		t.Fatalf("without ordering 12 members on 4 partitions favour a share group: %+v", free)
	}
	in.Ordering = "per-key"
	a, err := Advise(in)
	if err != nil {
		t.Fatal(err)
	}
	// 1000·1.2 records/s × 10 ms = 12 busy workers: 12 single-worker members, 12 partitions.
	if a.ShareWorthIt || !a.OrderingRulesOutShare || a.OrderedPartitionsNeeded != 12 {
		t.Fatalf("per-key: worth %v rules out %v partitions %d", a.ShareWorthIt, a.OrderingRulesOutShare, a.OrderedPartitionsNeeded)
	}
	if r := a.Reasons[0]; !strings.Contains(r, "rules a share group out") || !strings.Contains(r, "≥ 12 partitions") || !strings.Contains(r, "add 8") {
		t.Errorf("reason %q", r)
	}
	if f := a.Formulas["ordered_partitions_needed"]; !strings.Contains(f, "= 12") {
		t.Errorf("formula %q", f)
	}
	in.Workers = 4
	a, _ = Advise(in)
	if !strings.Contains(strings.Join(a.Notes, "\n"), "--workers 4 per member keeps key order only if the workers shard records by key") {
		t.Errorf("notes %v", a.Notes)
	}
	in.Ordering = "global"
	if _, err := Advise(in); err == nil || !strings.Contains(err.Error(), `--ordering: expected one of none, per-key, got "global"`) {
		t.Errorf("bad ordering: %v", err)
	}
}
