package runs

import (
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

func f(v float64) *float64 { return &v }

// mprRun is a share run of a max_poll_records sweep.
func mprRun(id string, mpr int, tput float64) Record {
	r := fixtureRun(id, "share", 0, tput, 100)
	r.Spec = &scenarios.RunSpec{ConsumerType: "share", Fleet: scenarios.Fleet{MaxPollRecords: mpr}, Processing: scenarios.Processing{Model: "constant", Time: 10 * time.Millisecond}}
	return r
}

func TestEvaluateExpectations(t *testing.T) {
	c := fixtureRun("r01-consumer", "consumer", 0, 380, 40000)
	s := fixtureRun("r02-share", "share", 0, 1000, 280)
	lossy := fixtureRun("r03-share", "share", 1, 1000, 280)
	lossy.Audit.Lost = 3
	runs := []Record{c, s, mprRun("r04-share-mpr10", 10, 800), mprRun("r05-share-mpr200", 200, 400)}
	share, consumer := scenarios.RunSelector{Runs: "share"}, scenarios.RunSelector{Runs: "consumer"}
	mpr := func(v string) scenarios.RunSelector {
		return scenarios.RunSelector{Runs: "share", Where: map[string]string{"max_poll_records": v}}
	}
	tests := []struct {
		name     string
		runs     []Record
		exp      scenarios.Expectation
		met      bool
		measured string // MeasuredText
		detail   string
	}{
		{"ratio met", runs, ratioExp("throughput.completed_per_sec", share, consumer, scenarios.Bounds{Min: f(2)}),
			true, "r02-share/r01-consumer 2.632", "r02-share/r01-consumer: 1000 / 380"},
		{"ratio not met", runs, ratioExp("throughput.completed_per_sec", share, consumer, scenarios.Bounds{Min: f(3)}),
			false, "r02-share/r01-consumer 2.632 ✗", ""},
		{"ratio over a where dimension", runs, ratioExp("throughput.completed_per_sec", mpr("200"), mpr("10"), scenarios.Bounds{Max: f(0.9)}),
			true, "r05-share-mpr200/r04-share-mpr10 0.5", ""},
		{"ratio without pairs", []Record{s}, ratioExp("throughput.completed_per_sec", share, consumer, scenarios.Bounds{Min: f(2)}),
			false, "nothing measured", "no pair of runs share / consumer with otherwise equal settings"},
		{"ratio over zero", []Record{c, s}, ratioExp("audit.lost", share, consumer, scenarios.Bounds{Max: f(1)}),
			false, "nothing measured", "r02-share/r01-consumer: ratio undefined (audit.lost 0 / 0)"},
		{"measure met", runs, measureExp("audit.lost", scenarios.RunSelector{Runs: "all"}, scenarios.Bounds{Max: f(0)}),
			true, "r01-consumer 0, r02-share 0, r04-share-mpr10 0, r05-share-mpr200 0", ""},
		{"measure not met", []Record{c, lossy}, measureExp("audit.lost", scenarios.RunSelector{}, scenarios.Bounds{Max: f(0)}),
			false, "r01-consumer 0, r03-share 3 ✗", ""},
		{"measure by type", runs, measureExp("ceiling.efficiency", consumer, scenarios.Bounds{Min: f(0.9), Max: f(1.05)}),
			true, "r01-consumer 0.95", ""},
		{"measure where duration", runs, measureExp("throughput.completed_per_sec", scenarios.RunSelector{Runs: "share", Where: map[string]string{"processing.time": "10ms", "max_poll_records": "10"}}, scenarios.Bounds{Min: f(700)}),
			true, "r04-share-mpr10 800", ""},
		{"no run selected", runs, measureExp("audit.lost", scenarios.RunSelector{Runs: "share", Where: map[string]string{"max_poll_records": "50"}}, scenarios.Bounds{Max: f(0)}),
			false, "nothing measured", "no run matches share where max_poll_records=50"},
		{"missing field", runs[:1], measureExp("audit.nonsense", scenarios.RunSelector{}, scenarios.Bounds{Max: f(0)}),
			false, "nothing measured", "r01-consumer has no audit.nonsense"},
		{"derived field", []Record{withArchived(s, 500)}, measureExp("audit.archived_ratio", scenarios.RunSelector{}, scenarios.Bounds{Min: f(0.015), Max: f(0.025)}),
			true, "r02-share 0.02", ""},
		{"derived field undefined", []Record{withArchived(s, 0)}, measureExp("audit.archived_ratio", scenarios.RunSelector{}, scenarios.Bounds{Min: f(0)}),
			false, "nothing measured", "r02-share has no audit.archived_ratio"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.exp.Name = tc.name
			out := EvaluateExpectations(tc.runs, []scenarios.Expectation{tc.exp})
			if len(out) != 1 {
				t.Fatalf("got %d outcomes", len(out))
			}
			o := out[0]
			if o.Met != tc.met || o.Name != tc.name {
				t.Errorf("met: got %v, want %v (%+v)", o.Met, tc.met, o)
			}
			if got := o.MeasuredText(); got != tc.measured {
				t.Errorf("measured: got %q, want %q", got, tc.measured)
			}
			if !strings.Contains(o.Detail, tc.detail) {
				t.Errorf("detail: got %q, want it to contain %q", o.Detail, tc.detail)
			}
		})
	}
}

func withArchived(r Record, n int64) Record {
	r.Audit.Archived = n
	if n == 0 {
		r.Audit.Produced = 0
	}
	return r
}

func TestExpectationClaim(t *testing.T) {
	share, consumer := scenarios.RunSelector{Runs: "share"}, scenarios.RunSelector{Runs: "consumer"}
	tests := []struct {
		e    scenarios.Expectation
		want string
	}{
		{ratioExp("throughput.completed_per_sec", share, consumer, scenarios.Bounds{Min: f(2)}),
			"share / consumer throughput.completed_per_sec ≥ 2"},
		{measureExp("ceiling.efficiency", consumer, scenarios.Bounds{Min: f(0.9), Max: f(1.05)}),
			"consumer runs: ceiling.efficiency in [0.9, 1.05]"},
		{measureExp("audit.lost", scenarios.RunSelector{}, scenarios.Bounds{Max: f(0)}), "all runs: audit.lost ≤ 0"},
		{measureExp("audit.lost", scenarios.RunSelector{Runs: "share", Where: map[string]string{"members": "8", "ack_mode": "explicit"}}, scenarios.Bounds{Min: f(1), Max: f(1)}),
			"share where ack_mode=explicit, members=8 runs: audit.lost = 1"},
	}
	for _, tc := range tests {
		if got := Claim(tc.e); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func TestFieldValue(t *testing.T) {
	r := fixtureRun("r01", "share", 0, 1000, 280)
	for path, want := range map[string]float64{
		"throughput.completed_per_sec": 1000, "latency.completion_ms.p99": 280,
		"audit.produced": 25000, "audit.balanced": 1, "ceiling.efficiency": 1,
		// aliases: the threshold name, the runs.csv column, the unique last part
		"throughput": 1000, "completion_p99_ms": 280, "efficiency": 1,
	} {
		if got, ok := FieldValue(r, path); !ok || got != want {
			t.Errorf("%s: got %v %v, want %v", path, got, ok, want)
		}
	}
	for _, path := range []string{"throughput.x", "run_id", "audit.lost.x", "", "p99"} {
		if _, ok := FieldValue(r, path); ok {
			t.Errorf("%s: want not a number", path)
		}
	}
}

func ratioExp(field string, num, den scenarios.RunSelector, b scenarios.Bounds) scenarios.Expectation {
	return scenarios.Expectation{Ratio: &scenarios.RatioClaim{Field: field, Numerator: num, Denominator: den, Bounds: b}}
}

func measureExp(field string, sel scenarios.RunSelector, b scenarios.Bounds) scenarios.Expectation {
	return scenarios.Expectation{Measure: &scenarios.MeasureClaim{RunSelector: sel, Field: field, Bounds: b}}
}

// clientRun is a share run of one client with a renew setting.
func clientRun(id, client, renew string, dups int64) Record {
	r := fixtureRun(id, "share", 0, 1, 100)
	r.Spec.Client, r.Spec.Renew = vocab.Client(client), vocab.Renew(renew)
	r.Audit.Duplicates = dups
	return r
}

// A per: client expectation gives one outcome per client the campaign ran;
// a client with no run the claim picks is SKIPPED with the scenario's
// reason, and the gate passes over it. A claim that names a client and
// picks no run of the campaign (the client not run, or not with these
// settings) is skipped too; Load refuses such a claim in a scenario as
// written, so only overrides (--set client=java) get there.
func TestEvaluatePerClient(t *testing.T) {
	recs := []Record{
		clientRun("r01", "franz-go", "none", 3), clientRun("r02", "java", "none", 2), clientRun("r03", "librdkafka", "none", 4),
		clientRun("r04", "franz-go", "auto", 0), clientRun("r05", "java", "auto", 1),
	}
	auto := scenarios.RunSelector{Runs: "share", Where: map[string]string{"renew": "auto"}}
	e := measureExp("audit.duplicates", auto, scenarios.Bounds{Max: f(0)})
	e.Name, e.PerClient = "renewed once", true
	e.ClientSkips = map[string]string{"librdkafka": "client librdkafka refuses these runs: renew: client librdkafka has no RENEW"}
	outs := EvaluateExpectations(recs, []scenarios.Expectation{e})
	if len(outs) != 3 {
		t.Fatalf("got %d outcomes, want one per client: %+v", len(outs), outs)
	}
	want := []struct{ name, status, text string }{
		{"renewed once (client franz-go)", "MET", "r04 0"},
		{"renewed once (client java)", "NOT MET", "r05 1 ✗"},
		{"renewed once (client librdkafka)", "SKIPPED", "skipped: no share where client=librdkafka, renew=auto run in this campaign: client librdkafka refuses these runs: renew: client librdkafka has no RENEW"},
	}
	for i, w := range want {
		o := outs[i]
		if o.Name != w.name || o.Status() != w.status || !strings.Contains(o.Line(), w.text) {
			t.Errorf("outcome %d: %s %s, want %s %s containing %q", i, o.Status(), o.Line(), w.status, w.name, w.text)
		}
	}
	if p := ExpectationProblems(outs); len(p) != 1 || !strings.Contains(p[0], "client java") {
		t.Errorf("problems %v, want only java's", p)
	}

	named := func(client string) scenarios.Expectation {
		e := measureExp("audit.duplicates", scenarios.RunSelector{Runs: "share", Where: map[string]string{"client": client, "renew": "auto"}}, scenarios.Bounds{Max: f(5)})
		e.Name = "named"
		return e
	}
	javaOnly := []Record{recs[1], recs[4]}
	if o := EvaluateExpectations(javaOnly, []scenarios.Expectation{named("franz-go")})[0]; !o.Skipped || o.Met ||
		!strings.Contains(o.Detail, "no share where client=franz-go, renew=auto run") {
		t.Errorf("a client the campaign did not run: %+v, want skipped", o)
	}
	if o := EvaluateExpectations(recs[:3], []scenarios.Expectation{named("java")})[0]; !o.Skipped || o.Met {
		t.Errorf("no java renew auto run: %+v, want skipped", o)
	}
	if o := EvaluateExpectations(recs[:3], []scenarios.Expectation{measureExp("audit.duplicates", auto, scenarios.Bounds{Max: f(0)})})[0]; o.Skipped || o.Met {
		t.Errorf("no renew auto run, no client named: %+v, want NOT MET", o)
	}
	if o := EvaluateExpectations(recs, []scenarios.Expectation{named("java")})[0]; o.Skipped || !o.Met {
		t.Errorf("java renew auto: %+v, want met", o)
	}
}
