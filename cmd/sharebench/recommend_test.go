package main

import (
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

func TestRecommendCommand(t *testing.T) {
	mk := func(id string, ctype vocab.GroupType, mpr int, tput, p99 float64) runs.Record {
		r := run(id, ctype, 0, tput, p99)
		r.Spec = &scenarios.RunSpec{ConsumerType: ctype, Fleet: scenarios.Fleet{Members: 12, MaxPollRecords: mpr}}
		return r
	}
	dir := campaignDir(t,
		mk("c10", "consumer", 10, 380, 90), mk("c500", "consumer", 500, 400, 900),
		mk("s10", "share", 10, 900, 60), mk("s500", "share", 500, 990, 250))
	out, err := execute(t, "recommend", dir, "--where", "latency.completion_ms.p99<=200ms", "--where", "audit.lost==0")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"best max_poll_records by highest throughput.completed_per_sec where latency.completion_ms.p99 <= 200 and audit.lost == 0",
		"consumer: max_poll_records=10 (throughput.completed_per_sec 380)",
		"max_poll_records=500 excluded by latency.completion_ms.p99<=200ms: measured 900",
		"share: max_poll_records=10 (throughput.completed_per_sec 900)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--where", "p99<=200ms"}, `--where[1]: clause "p99<=200ms": field "p99" is ambiguous`},
		{[]string{"--knob", "members"}, `knob "members": the runs do not vary it`},
		{[]string{"--maximize", "speed"}, `--maximize: unknown field "speed"`},
	} {
		_, err := execute(t, append([]string{"recommend", dir}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}
