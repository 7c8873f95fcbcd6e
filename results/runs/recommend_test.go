package runs

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

// recRun is a hand-built run: consumer type, max_poll_records, members,
// throughput, completion p99 and broker lock timeouts.
func recRun(id string, typ vocab.GroupType, mpr, members int, trial int, completed, p99, timeouts float64) Record {
	r := Record{RunID: id, ConsumerType: typ,
		Spec: &scenarios.RunSpec{ConsumerType: typ, Fleet: scenarios.Fleet{MaxPollRecords: mpr, Members: members}, Trial: trial}}
	r.Throughput.CompletedPerSec = completed
	r.Latency.CompletionMs.P99 = p99
	r.Broker.AcquisitionLockTimeoutsTotal = timeouts
	return r
}

func TestRecommend(t *testing.T) {
	p99le200 := scenarios.Clause{Field: "latency.completion_ms.p99", Op: "<=", Value: 200, Text: "latency.completion_ms.p99<=200ms"}
	noTimeouts := scenarios.Clause{Field: "broker.acquisition_lock_timeouts_total", Op: "==", Value: 0, Text: "broker.acquisition_lock_timeouts_total==0"}
	sweep := []Record{
		recRun("c10", "consumer", 10, 4, 0, 380, 90, 0),
		recRun("c100", "consumer", 100, 4, 0, 400, 150, 0),
		recRun("c1000", "consumer", 1000, 4, 0, 410, 900, 0),
		recRun("s10", "share", 10, 4, 0, 700, 50, 0),
		recRun("s100", "share", 100, 4, 0, 990, 180, 0),
		recRun("s1000", "share", 1000, 4, 0, 995, 150, 12), // fastest, but locks expired
	}
	type want struct {
		label, best string
		figure      float64
		tied        []string
		excluded    map[string]string // knob value → substring of its exclusion
	}
	tests := []struct {
		name  string
		runs  []Record
		where []scenarios.Clause
		want  []want
	}{
		{"known winner per consumer type", sweep, []scenarios.Clause{p99le200, noTimeouts}, []want{
			{label: "consumer", best: "100", figure: 400, excluded: map[string]string{"1000": "latency.completion_ms.p99<=200ms: measured 900"}},
			{label: "share", best: "100", figure: 990, excluded: map[string]string{"1000": "broker.acquisition_lock_timeouts_total==0: measured 12"}},
		}},
		{"no constraint: the highest wins", sweep, nil, []want{
			{label: "consumer", best: "1000", figure: 410},
			{label: "share", best: "1000", figure: 995},
		}},
		{"none qualifies", sweep, []scenarios.Clause{{Field: "latency.completion_ms.p99", Op: "<", Value: 10, Text: "p99<10"}}, []want{
			{label: "consumer", best: "", excluded: map[string]string{"10": "p99<10: measured 90", "100": "measured 150", "1000": "measured 900"}},
			{label: "share", best: "", excluded: map[string]string{"10": "measured 50", "100": "measured 180", "1000": "measured 150"}},
		}},
		{"tie goes to the smaller value", []Record{
			recRun("a", "share", 50, 4, 0, 800, 10, 0), recRun("b", "share", 20, 4, 0, 800, 10, 0),
			recRun("c", "share", 5, 4, 0, 600, 10, 0),
		}, nil, []want{{label: "share", best: "20", figure: 800, tied: []string{"50"}}}},
		{"trials averaged, other swept keys split the groups", []Record{
			recRun("m2-10-t0", "share", 10, 2, 0, 180, 100, 0), recRun("m2-10-t1", "share", 10, 2, 1, 200, 300, 0),
			recRun("m2-50-t0", "share", 50, 2, 0, 195, 150, 0), recRun("m2-50-t1", "share", 50, 2, 1, 195, 150, 0),
			recRun("m4-10", "share", 10, 4, 0, 390, 100, 0), recRun("m4-50", "share", 50, 4, 0, 380, 100, 0),
		}, []scenarios.Clause{p99le200}, []want{
			// mpr 10 at 2 members: mean 190 records/s, mean p99 200 (≤ 200 holds); mpr 50: 195.
			{label: "share members=2", best: "50", figure: 195},
			{label: "share members=4", best: "10", figure: 390},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := Recommend(tc.runs, scenarios.Recommend{Knob: "max_poll_records", Maximize: "throughput.completed_per_sec", Where: tc.where})
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Groups) != len(tc.want) {
				t.Fatalf("groups %+v, want %d", rec.Groups, len(tc.want))
			}
			for i, w := range tc.want {
				g := rec.Groups[i]
				if g.Label != w.label || g.Best != w.best || g.Figure != w.figure || !reflect.DeepEqual(g.Tied, w.tied) {
					t.Errorf("group %d = %q best %q figure %v tied %v; want %q best %q figure %v tied %v",
						i, g.Label, g.Best, g.Figure, g.Tied, w.label, w.best, w.figure, w.tied)
				}
				for _, c := range g.Candidates {
					sub, shouldFail := w.excluded[c.Value]
					got := strings.Join(c.Excluded, "; ")
					if shouldFail != !c.Qualifies() || !strings.Contains(got, sub) {
						t.Errorf("%s candidate %s excluded %q, want excluded=%v containing %q", g.Label, c.Value, got, shouldFail, sub)
					}
				}
			}
			lines := strings.Join(rec.Lines(), "\n")
			if tc.name == "none qualifies" && !strings.Contains(lines, "consumer: none qualifies") {
				t.Errorf("lines must say none qualifies:\n%s", lines)
			}
		})
	}
}

func TestRecommendErrors(t *testing.T) {
	runs := []Record{recRun("a", "share", 10, 4, 0, 1, 1, 0), recRun("b", "share", 20, 4, 0, 1, 1, 0)}
	for _, tc := range []struct {
		q    scenarios.Recommend
		want string
	}{
		{scenarios.Recommend{Knob: "members", Maximize: "throughput.completed_per_sec"}, `knob "members": the runs do not vary it (swept: max_poll_records)`},
		{scenarios.Recommend{Knob: "max_poll_records", Maximize: "throughput.nope"}, `field "throughput.nope": not a number in run.json`},
		{scenarios.Recommend{Knob: "max_poll_records", Maximize: "throughput.completed_per_sec",
			Where: []scenarios.Clause{{Field: "latency.bogus", Op: "<", Value: 1}}}, `field "latency.bogus"`},
	} {
		_, err := Recommend(runs, tc.q)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.q, err, tc.want)
		}
	}
}
