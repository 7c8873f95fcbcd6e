package scenarios

import (
	"strings"
	"testing"

	"github.com/sharebench/sharebench/vocab"
)

// member-crash runs on every client: java and librdkafka crash a member by
// killing its runner process, franz-go by freezing its connections
// (librdkafka with acquire_mode batch_optimized: it has no record_limit). The
// one expectation that only franz-go's crash meets (share records back
// after the lock, not at once on a closed connection) says so in its name,
// so a report that marks it not met for java or librdkafka reads why.
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
	}
	sc, err := Builtin("member-crash")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range sc.Expectations {
		if e.Measure != nil && e.Measure.Field == "event_summary.first_redelivery_max_s" && e.Measure.Runs == "share" {
			found = true
			if !strings.Contains(e.Name, "client franz-go") || !strings.Contains(e.Name, "closes its connections") {
				t.Errorf("share timing expectation %q: want it to name franz-go and why the runner clients differ", e.Name)
			}
		}
	}
	if !found {
		t.Error("member-crash has no share timing expectation")
	}
}
