package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/vocab"
)

// member-crash runs on every client: java and librdkafka crash a member by
// killing its runner process, franz-go by freezing its connections
// (librdkafka with acquire_mode batch_optimized: it has no record_limit).
// The share timing differs by client (after the lock with frozen
// connections; at once or by the lock with closed ones), so there is one
// share timing claim per client, each selecting its client's runs: with
// --set client=X the others pick no run (they are SKIPPED) and X's does.
func TestMemberCrashOnEveryClient(t *testing.T) {
	for _, c := range vocab.Clients {
		sets := []string{"client=" + string(c)}
		if c == vocab.ClientLibrdkafka {
			sets = append(sets, "acquire_mode=batch_optimized")
		}
		sc, err := BuiltinWith("member-crash", nil, sets)
		if err != nil {
			t.Errorf("member-crash with client %s: %v", c, err)
			continue
		}
		for _, r := range sc.Runs {
			if r.Client != c || len(r.Events) != 1 || r.Events[0].Action != ActionCrash {
				t.Errorf("client %s: run %+v", c, r.Client)
			}
		}
		timing := 0
		for _, e := range sc.Expectations {
			if e.Measure == nil || e.Measure.Field != "event_summary.first_redelivery_max_s" || e.Measure.Runs != "share" {
				continue
			}
			picks := slices.ContainsFunc(sc.Runs, e.Measure.RunSelector.selects)
			if named := e.Measure.Where["client"]; named == string(c) {
				timing++
				if !picks {
					t.Errorf("client %s: its timing claim %q picks no run", c, e.Name)
				}
			} else if picks {
				t.Errorf("client %s: %q (client %q) picks its runs", c, e.Name, named)
			}
		}
		if timing != 1 {
			t.Errorf("client %s: %d share timing claims, want 1", c, timing)
		}
	}
	sc, err := Builtin("member-crash")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range sc.Expectations {
		if e.Measure == nil {
			continue
		}
		if e.Measure.Where["client"] == "franz-go" && !strings.Contains(e.Name, "frozen") {
			t.Errorf("franz-go's timing claim %q: want it to say its connections are frozen", e.Name)
		}
		if c := e.Measure.Where["client"]; (c == "java" || c == "librdkafka") && !strings.Contains(e.Name, "closed") {
			t.Errorf("%s's timing claim %q: want it to say the killed process's connections close", c, e.Name)
		}
	}
}
