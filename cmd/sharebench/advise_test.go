package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/advisor"
)

// advise runs `sharebench advise ARGS...` and returns its output.
func advise(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"advise"}, args...))
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// The partition-cap workload (see advisor.TestAdvise for the arithmetic):
// 12 members, consumer group ceiling min(12, 4)·1000/10 = 400, max.poll.records
// floor(0.8·2000/3) = 533, W = 533·10 + 5 = 5335 ms, locks 2000, lock 30000 ms,
// ceiling min(1200, 4·2000·1000/5335) = 1200.
func TestAdviseJSON(t *testing.T) {
	out, err := advise(t, "--rate", "1000", "--processing", "10ms", "--partitions", "4", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// The documented fields, with their JSON types.
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for field, kind := range map[string]string{
		"members": "number", "workers": "number", "max_poll_records": "number", "record_locks": "number",
		"lock_duration_ms": "number", "ceiling_records_per_sec": "number",
		"consumer_group_ceiling_records_per_sec": "number", "share_worth_it": "bool", "reasons": "array",
		"notes": "array", "formulas": "object",
	} {
		var ok bool
		switch v := raw[field]; kind {
		case "number":
			_, ok = v.(float64)
		case "bool":
			_, ok = v.(bool)
		case "array":
			_, ok = v.([]any)
		case "object":
			_, ok = v.(map[string]any)
		}
		if !ok {
			t.Errorf("field %q = %#v, want a JSON %s", field, raw[field], kind)
		}
	}
	// And the values, decoded into the documented struct.
	var a struct {
		Members              int               `json:"members"`
		Workers              int               `json:"workers"`
		MaxPollRecords       int               `json:"max_poll_records"`
		RecordLocks          int               `json:"record_locks"`
		LockDurationMs       int64             `json:"lock_duration_ms"`
		Ceiling              float64           `json:"ceiling_records_per_sec"`
		ConsumerGroupCeiling float64           `json:"consumer_group_ceiling_records_per_sec"`
		ShareWorthIt         bool              `json:"share_worth_it"`
		Reasons              []string          `json:"reasons"`
		Formulas             map[string]string `json:"formulas"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	if a.Members != 12 || a.Workers != 1 || a.MaxPollRecords != 533 || a.RecordLocks != 2000 || a.LockDurationMs != 30000 ||
		a.Ceiling != 1200 || a.ConsumerGroupCeiling != 400 || !a.ShareWorthIt || len(a.Reasons) == 0 {
		t.Errorf("decoded %+v", a)
	}
	if !strings.Contains(a.Formulas["members"], "ceil(1200·10 / (1000·1)) = 12") {
		t.Errorf("members formula %q", a.Formulas["members"])
	}
	// The whole struct round-trips.
	var full advisor.Advice
	if err := json.Unmarshal([]byte(out), &full); err != nil || full.WMs != 5335 {
		t.Errorf("advisor.Advice: %v, W %v", err, full.WMs)
	}
}

// Text output: every number next to its formula; the flags reach the input.
func TestAdviseText(t *testing.T) {
	// --workers 2 --headroom 0 --record-locks 1000 --lock-duration 20s --poll-overhead 10ms:
	// members = ceil(1000·10/(1000·2)) = 5 > 4 partitions; cpp = ceil(5/4) = 2;
	// lock bound floor(0.8·1000/2) = 400, duration bound floor(0.5·20000·2/10) = 2000 → 400;
	// W = 400·10/2 + 10 = 2010 ms.
	out, err := advise(t, "--rate", "1000", "--processing", "uniform:min=5ms,max=15ms", "--partitions", "4",
		"--workers", "2", "--headroom", "0", "--record-locks", "1000", "--lock-duration", "20s", "--poll-overhead", "10ms")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"uniform 5ms-15ms (mean 10 ms)",
		"ceil(1000·10 / (1000·2)) = 5",
		"floor(0.8·1000/2) = 400",
		"floor(0.5·20000·2/10) = 2000",
		"batch + poll overhead = 2000 + 10 = 2010",
		"why:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestAdviseFlagErrors(t *testing.T) {
	base := []string{"--processing", "10ms", "--partitions", "4"}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"negative rate", append([]string{"--rate", "-5"}, base...), []string{"--rate: must be in (0, 1e+09] records/s, got -5"}},
		{"missing required", nil, []string{"--rate: required", "--processing: required", "--partitions: required"}},
		{"bad processing", []string{"--rate", "10", "--partitions", "4", "--processing", "lognormal:median=10ms"},
			[]string{"--processing: the lognormal model needs median and p99"}},
		{"zero partitions", []string{"--rate", "10", "--processing", "10ms", "--partitions", "0"}, []string{"--partitions: must be in [1, 10000], got 0"}},
		{"locks out of range", append([]string{"--rate", "10", "--record-locks", "50"}, base...),
			[]string{"--record-locks: must be in [100, 10000] (Kafka's range for group.share.partition.max.record.locks)", "got 50"}},
		{"lock duration out of range", append([]string{"--rate", "10", "--lock-duration", "2h"}, base...),
			[]string{"--lock-duration: must be in [1s, 1h0m0s]", "got 2h0m0s"}},
		{"several at once", append([]string{"--rate", "0", "--workers", "0", "--headroom", "-1"}, base...),
			[]string{"--rate: must be in (0, 1e+09]", "--workers: must be in [1, 10000] per member", "--headroom: must be in [0, 10]"}},
		// out-of-range values are refused as given, before any arithmetic
		// turns them into +Inf.
		{"huge rate", append([]string{"--rate", "1e308"}, base...), []string{"--rate: must be in (0, 1e+09] records/s, got 1e+308"}},
		{"NaN rate", append([]string{"--rate", "NaN"}, base...), []string{"--rate: must be in (0, 1e+09] records/s, got NaN"}},
		{"huge headroom", append([]string{"--rate", "10", "--headroom", "1e300"}, base...), []string{"--headroom: must be in [0, 10]", "got 1e+300"}},
		{"huge workers", append([]string{"--rate", "10", "--workers", "100000000"}, base...), []string{"--workers: must be in [1, 10000] per member, got 100000000"}},
		{"huge poll overhead", append([]string{"--rate", "10", "--poll-overhead", "1000h"}, base...), []string{"--poll-overhead: must be in [0s, 1h0m0s], got 1000h0m0s"}},
		{"not a number", append([]string{"--rate", "lots"}, base...), []string{`"lots"`, "rate"}},
		{"stray argument", append([]string{"--rate", "10", "extra"}, base...), []string{"extra"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := advise(t, tc.args...)
			if err == nil {
				t.Fatalf("accepted:\n%s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// advise --verify checks its sweep and provider before starting anything.
func TestAdviseVerifyBadInput(t *testing.T) {
	base := []string{"advise", "--rate", "100", "--processing", "10ms", "--partitions", "2", "--verify"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		// the flag is named, not a line of a generated scenario file
		{[]string{"--verify-where", "p99<=1s"}, `--verify-where[1]: clause "p99<=1s": field "p99" is ambiguous`},
		{[]string{"--verify-where", "audit.lost==0", "--verify-where", "bogus"}, `--verify-where[2]: clause "bogus": expected FIELD OP VALUE`},
		{[]string{"--verify-duration", "0s"}, "--verify-duration: must be in [1s, 24h0m0s], got 0s"},
		{[]string{"--provider", "cloud"}, `provider "cloud"`},
		{[]string{"--destination-capacity", "500"}, "the verify sweep writes to no destination"},
		{[]string{"--destination-capacity", "-1"}, "--destination-capacity: must be in [0, "},
	} {
		out, err := execute(t, append(base, tc.args...)...)
		if strings.Contains(tc.want, "--verify") && strings.Contains(out, "design rate") {
			t.Errorf("%v: printed the plan before refusing the flag:\n%s", tc.args, out)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "advise --verify:") {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}
