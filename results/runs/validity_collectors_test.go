package runs

import (
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results"
)

func TestCheckCollectorFailed(t *testing.T) {
	base := ValidityInput{IsKafka: true, Audit: results.Audit{Balanced: true}}
	for _, tc := range []struct {
		name string
		c    CollectorHealth
		flag bool
	}{
		{"healthy", CollectorHealth{Name: "broker metrics scrape", Attempts: 30}, false},
		{"one timeout of 30", CollectorHealth{Name: "group lag", Attempts: 30, Failures: 1}, false},
		// A busy broker: a third of the readings timed out, every printed
		// figure is there: gaps, not a failed collector.
		{"a third failed, figures there", CollectorHealth{Name: "group lag", Attempts: 51, Failures: 18, LastError: "timeout"}, false},
		{"window end unread", CollectorHealth{Name: "group lag", Attempts: 30, Failures: 10, LastError: "timeout",
			Missing: []string{"lag.at_window_end"}}, true},
		{"all failed", CollectorHealth{Name: "broker metrics scrape", Attempts: 3, Failures: 3, LastError: "connection refused"}, true},
		{"no window", CollectorHealth{Name: "broker metrics scrape", Attempts: 1, NoWindow: true}, true},
	} {
		in := base
		in.Collectors = []CollectorHealth{tc.c}
		v := Check(in)
		got := len(v.Flags) == 1 && v.Flags[0].Code == "collector_failed"
		if got != tc.flag || (!tc.flag && !v.Valid) {
			t.Errorf("%s: flags %v, want collector_failed %v", tc.name, v.Flags, tc.flag)
		}
		if got && (!strings.Contains(v.Flags[0].Message, tc.c.Name) || !strings.Contains(v.Flags[0].Message, tc.c.LastError)) {
			t.Errorf("%s: message %q names neither the collector nor its error", tc.name, v.Flags[0].Message)
		}
		for _, m := range tc.c.Missing {
			if got && !strings.Contains(v.Flags[0].Message, m) {
				t.Errorf("%s: message %q does not name the missing %s", tc.name, v.Flags[0].Message, m)
			}
		}
	}
}
