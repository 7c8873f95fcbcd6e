package scenarios

import (
	"slices"
	"strings"
	"testing"
)

const expectBase = "name: x\nconsumer_type: [consumer, share]\nmax_poll_records: [10, 200]\nexpect:\n"

func TestExpectParses(t *testing.T) {
	s := mustLoad(t, expectBase+`
  - name: share keeps up
    ratio: {measure: completed_per_sec, numerator: share, denominator: consumer, min: 2.0}
  - name: consumer efficiency
    measure: {runs: consumer, field: efficiency, min: 0.9, max: 1.05}
  - name: no loss
    measure: {field: audit.lost, max: 0}
  - name: cliff
    ratio:
      measure: throughput.completed_per_sec
      where: {consumer_type: share}
      numerator: {where: {max_poll_records: 200}}
      denominator: {runs: all, where: {max_poll_records: 10}}
      max: 0.9
`, nil, nil)
	if len(s.Expectations) != 4 {
		t.Fatalf("got %d expectations, want 4", len(s.Expectations))
	}
	r := s.Expectations[0].Ratio
	if r == nil || r.Field != "throughput.completed_per_sec" || r.Numerator.Runs != "share" ||
		r.Denominator.Runs != "consumer" || *r.Min != 2 || r.Max != nil {
		t.Errorf("ratio: got %+v", r)
	}
	m := s.Expectations[1].Measure
	if m == nil || m.Field != "ceiling.efficiency" || m.Runs != "consumer" || *m.Min != 0.9 || *m.Max != 1.05 {
		t.Errorf("measure: got %+v", m)
	}
	if m := s.Expectations[2].Measure; m.Runs != "all" || m.Field != "audit.lost" {
		t.Errorf("runs default: got %+v", m)
	}
	c := s.Expectations[3].Ratio
	if got := c.Numerator.String(); got != "all where consumer_type=share, max_poll_records=200" {
		t.Errorf("numerator: got %q", got)
	}
	if got := c.Denominator.String(); got != "all where consumer_type=share, max_poll_records=10" {
		t.Errorf("denominator: got %q", got)
	}
}

func TestExpectWhereValues(t *testing.T) {
	s := mustLoad(t, `name: x
processing: {model: constant, time: [5ms, 10ms]}
batch_size: [16KiB, 32768]
broker_config: {group.share.partition.max.record.locks: [100, 2000]}
expect:
  - name: w
    measure:
      where: {processing.time: 0.01s, batch_size: 32KiB, broker_config.group.share.partition.max.record.locks: 100}
      field: lost
      max: 0
`, nil, nil)
	want := map[string]string{"processing.time": "10ms", "batch_size": "32768",
		"broker_config.group.share.partition.max.record.locks": "100"}
	got := s.Expectations[0].Measure.Where
	for k, v := range want {
		if got[k] != v {
			t.Errorf("where %s: got %q, want %q", k, got[k], v)
		}
	}
	n := 0
	for _, r := range s.Runs {
		if s.Expectations[0].Measure.selects(r) {
			n++
		}
	}
	if n != 2 { // both consumer types
		t.Errorf("selector picks %d runs, want 2", n)
	}
}

func TestExpectErrors(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"not a list", "name: x\nexpect: {name: a}\n",
			"scenario.yaml:2: expect: expected a list of expectations"},
		{"unknown item key", expectBase + "  - name: a\n    mesure: {field: lost, max: 0}\n",
			`scenario.yaml:6: expect[1] (a): unknown key "mesure" in expect (did you mean "measure"?)`},
		{"no name", expectBase + "  - measure: {field: lost, max: 0}\n",
			"scenario.yaml:5: expect[1]: name: required"},
		{"neither", expectBase + "  - name: a\n",
			"expect[1] (a): give exactly one of measure: {runs, where, field, min, max} or ratio:"},
		{"both", expectBase + "  - name: a\n    measure: {field: lost, max: 0}\n    ratio: {measure: lost, numerator: share, denominator: consumer, max: 1}\n",
			"expect[1] (a): give exactly one of measure"},
		{"unknown measure key", expectBase + "  - name: a\n    measure: {field: lost, maximum: 0}\n",
			`expect[1] (a): unknown key "maximum" in measure (valid keys: runs, where, field, min, max)`},
		{"unknown field", expectBase + "  - name: a\n    measure: {field: audit.lots, max: 0}\n",
			`scenario.yaml:6: expect[1] (a): measure.field: unknown field "audit.lots" (did you mean "audit.lost"?)`},
		{"far field", expectBase + "  - name: a\n    measure: {field: zzzzzzzzzzzz, max: 0}\n",
			`measure.field: unknown field "zzzzzzzzzzzz" (expected a run.json path like throughput.completed_per_sec`},
		{"ambiguous field", expectBase + "  - name: a\n    measure: {field: p99, max: 10}\n",
			`measure.field: field "p99" is ambiguous: write one of latency.completion_ms.p99, latency.delivery_ms.p99`},
		{"no field", expectBase + "  - name: a\n    measure: {max: 0}\n",
			"measure.field: required; a run.json field like throughput.completed_per_sec"},
		{"bad runs", expectBase + "  - name: a\n    measure: {runs: shared, field: lost, max: 0}\n",
			`measure.runs: expected one of consumer, share, all, got the value "shared"`},
		{"no bounds", expectBase + "  - name: a\n    measure: {field: lost}\n",
			"expect[1] (a): measure: give min:, max: or both"},
		{"min above max", expectBase + "  - name: a\n    measure: {field: lost, min: 2, max: 1}\n",
			"measure: min 2 is above max 1"},
		{"bound not a number", expectBase + "  - name: a\n    measure: {field: lost, max: none}\n",
			`measure.max: expected a finite number, got the value "none"`},
		{"unknown where key", expectBase + "  - name: a\n    measure: {where: {max_poll_record: 10}, field: lost, max: 0}\n",
			`measure.where: unknown key "max_poll_record" (did you mean "max_poll_records"?)`},
		{"bad where value", expectBase + "  - name: a\n    measure: {where: {max_poll_records: ten}, field: lost, max: 0}\n",
			`measure.where: max_poll_records: expected an integer, got "ten"`},
		{"where matches nothing", expectBase + "  - name: a\n    measure: {where: {max_poll_records: 1000}, field: lost, max: 0}\n",
			"scenario.yaml:4: expect[1] (a): measure.runs all where max_poll_records=1000 matches no run of the scenario"},
		{"ratio side missing", expectBase + "  - name: a\n    ratio: {measure: lost, numerator: share, max: 1}\n",
			"ratio.denominator: required; a consumer type (consumer, share)"},
		{"ratio bad side", expectBase + "  - name: a\n    ratio: {measure: lost, numerator: shares, denominator: consumer, max: 1}\n",
			`ratio.numerator: expected one of consumer, share, all, got "shares"`},
		{"ratio field key", expectBase + "  - name: a\n    ratio: {field: lost, numerator: share, denominator: consumer, max: 1}\n",
			`unknown key "field" in ratio`},
		{"ratio side unknown key", expectBase + "  - name: a\n    ratio: {measure: lost, numerator: {type: share}, denominator: consumer, max: 1}\n",
			`unknown key "type" in ratio.numerator (valid keys: runs, where)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, tc.yaml, nil, nil)
			wantErr(t, err, tc.want)
		})
	}
}

func TestExpectNotOverridable(t *testing.T) {
	_, err := load(t, "name: x\n", nil, []string{"expect=[]"})
	wantErr(t, err, "--set expect=[]", "expectations are written in the scenario file")
	// An override may take away the runs an expectation selects: the
	// evaluation then reports it not met instead of refusing to load.
	s := mustLoad(t, expectBase+"  - name: a\n    measure: {where: {max_poll_records: 200}, field: lost, max: 0}\n",
		nil, []string{"max_poll_records=50"})
	if len(s.Expectations) != 1 {
		t.Errorf("expectations: got %d, want 1", len(s.Expectations))
	}
}

func TestExpectFieldsUniqueAliases(t *testing.T) {
	for _, alias := range []string{"efficiency", "completed_per_sec", "lost", "empty_ratio", "redelivered", "lock_expired_completions", "archived_ratio"} {
		full, err := resolveField(alias)
		if err != nil || !strings.HasSuffix(full, "."+alias) {
			t.Errorf("%s: got %q, %v", alias, full, err)
		}
	}
	all := ExpectFields()
	if len(slices.Compact(slices.Sorted(slices.Values(all)))) != len(all) {
		t.Error("ExpectFields has duplicates")
	}
}

func TestBuiltinsLoadWithExpectations(t *testing.T) {
	want := []string{"autoscale-flap-cooldown", "autoscale-flap", "autoscale-spike", "batch-vs-record-limit", "broker-kill", "client-parity-crash", "client-parity-expiry", "client-parity", "dead-letter", "destination-bound", "implicit-vs-explicit", "kip848-heartbeat", "lock-expiry", "max-rate", "member-crash", "mpr-cliff", "ordering",
		"overhead-parity", "partition-cap", "poison-and-limit", "protocols-crash", "protocols", "rolling-restart", "rolling-upgrade", "scale-out", "scale-past-partitions", "smoke", "soak", "version-matrix"}
	if got := BuiltinNames(); !slices.Equal(got, want) {
		t.Fatalf("BuiltinNames: got %v, want %v", got, want)
	}
	for _, name := range want {
		s, err := Builtin(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if s.Description == "" {
			t.Errorf("%s: no description", name)
		}
		if name != "smoke" && len(s.Expectations) == 0 {
			t.Errorf("%s: no expectations", name)
		}
		if bad := s.unmatched(); len(bad) > 0 {
			t.Errorf("%s: %v", name, bad)
		}
		// client-parity is 3 workload rows × 3 clients, each run a 2 s + 6 s
		// window: 9 short runs still fit about 3 minutes; client-parity-crash
		// (6 runs of 3 s + 20 s) and client-parity-expiry (5 runs of 2 s +
		// 10 s) are the other two parity shapes: each client is one arm.
		maxRuns := 3
		switch name {
		case "client-parity":
			maxRuns = 12 // 3 workloads × 4 clients: about 6 minutes
		case "client-parity-crash":
			maxRuns = 6
		case "client-parity-expiry":
			maxRuns = 5
		}
		// protocols (protocols-crash) is 4 runs of a 3 s + 15 s (20 s)
		// window, one per rebalance protocol: about 2-3 minutes.
		if name == "protocols" || name == "protocols-crash" {
			maxRuns = 4
		}
		// version-matrix is one 2 s + 5 s run per release (4.1.2 to 4.4.0),
		// each on its own cluster: the broker starts dominate its time.
		if name == "version-matrix" {
			maxRuns = 4
		}
		if len(s.Runs) > maxRuns {
			t.Errorf("%s: %d runs; a built-in should run in 1-3 minutes on 2 cores", name, len(s.Runs))
		}
	}
}

// The older names of a figure (compare threshold names, runs.csv columns)
// work in expect: and recommend: and resolve to its run.json path; a
// clause's duration converts to the figure's unit.
func TestExpectFieldsAcceptFigureAliases(t *testing.T) {
	s := mustLoad(t, expectBase+"  - name: a\n    measure: {field: completion_p99, max: 500}\n"+
		"  - name: b\n    ratio: {measure: throughput, numerator: share, denominator: consumer, min: 2}\n", nil, nil)
	if got := s.Expectations[0].Measure.Field; got != "latency.completion_ms.p99" {
		t.Errorf("completion_p99: got %s", got)
	}
	if got := s.Expectations[1].Ratio.Field; got != "throughput.completed_per_sec" {
		t.Errorf("throughput: got %s", got)
	}
	for clause, want := range map[string]Clause{
		"completion_p99_ms <= 1.5s":   {Field: "latency.completion_ms.p99", Op: "<=", Value: 1500},
		"group_formation_s < 1500ms":  {Field: "phases.group_formation_s", Op: "<", Value: 1.5},
		"audit_lost == 0":             {Field: "audit.lost", Op: "==", Value: 0},
		"end_to_end_s <= 2m":          {Field: "burst.end_to_end_s", Op: "<=", Value: 120},
		"ceiling_per_sec >= 1000":     {Field: "ceiling.records_per_sec", Op: ">=", Value: 1000},
		"max_displacement_ms <= 20ms": {},
	} {
		c, err := ParseClause(clause)
		if want.Field == "" {
			if err == nil || !strings.Contains(err.Error(), "ambiguous") {
				t.Errorf("%s: %+v %v, want ambiguous (per key and per partition)", clause, c, err)
			}
			continue
		}
		if err != nil || c.Field != want.Field || c.Op != want.Op || c.Value != want.Value {
			t.Errorf("%s: got %+v %v, want %+v", clause, c, err, want)
		}
	}
}

// per: client expectations: Load says why a client of the scenario has no
// run the claim picks (librdkafka refuses renew auto, naming RENEW), and
// leaves the clients that have one alone; per: takes only client.
func TestPerClientSkipReasons(t *testing.T) {
	s, err := Builtin("client-parity-expiry")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range s.Expectations {
		if !e.PerClient {
			t.Errorf("%s: not per client", e.Name)
		}
		renewAuto := e.Measure.Where["renew"] == "auto"
		why, skipped := e.ClientSkips["librdkafka"]
		switch {
		case renewAuto && (!skipped || !strings.Contains(why, "client librdkafka refuses these runs") || !strings.Contains(why, "RENEW")):
			t.Errorf("%s: librdkafka skip %q, want its refusal naming RENEW", e.Name, why)
		case !renewAuto && skipped:
			t.Errorf("%s: librdkafka skipped (%q), but it has renew none runs", e.Name, why)
		}
		if len(e.ClientSkips) > 1 || e.ClientSkips["franz-go"] != "" || e.ClientSkips["java"] != "" {
			t.Errorf("%s: skips %v, want librdkafka's at most", e.Name, e.ClientSkips)
		}
	}
	_, err = load(t, expectBase+"  - name: a\n    per: member\n    measure: {field: audit.lost, max: 0}\n", nil, nil)
	if err == nil || !strings.Contains(err.Error(), `per: expected client`) || !strings.Contains(err.Error(), `"member"`) {
		t.Errorf("per: member: %v, want a refusal naming per and client", err)
	}
}

// A claim that names a client the scenario does not run loads (it is for
// --set client=...; the evaluation skips it); one that names a client the
// scenario runs but picks none of its runs is still a load error.
func TestClaimAboutAnotherClientLoads(t *testing.T) {
	base := "name: x\nconsumer_type: share\nmax_poll_records: [10, 200]\nexpect:\n"
	s, err := load(t, base+"  - name: a\n    measure: {runs: share, where: {client: java}, field: audit.lost, max: 0}\n", nil, nil)
	if err != nil || len(s.Expectations) != 1 {
		t.Errorf("a claim about java's runs in a franz-go scenario: %v", err)
	}
	_, err = load(t, base+"  - name: a\n    measure: {runs: share, where: {client: franz-go, max_poll_records: 50}, field: audit.lost, max: 0}\n", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "matches no run of the scenario") {
		t.Errorf("a claim about franz-go's runs that picks none: %v, want a load error", err)
	}
}
