package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/results/runs/runstest"
)

func TestExpectationsRendered(t *testing.T) {
	outs := []runs.ExpectationOutcome{
		{Name: "share keeps up", Claim: "share / consumer throughput.completed_per_sec ≥ 2", Met: true,
			Measured: []runs.Measured{{Run: "r02-share/r01-consumer", Value: 2.6351, Met: true}}},
		{Name: "consumer at ceiling", Claim: "consumer runs: ceiling.efficiency in [0.9, 1.05]", Met: false,
			Measured: []runs.Measured{{Run: "r01-consumer", Value: 0.81}}, Detail: "why"},
	}
	var con bytes.Buffer
	_ = Expectations(outs)(&con)
	for _, w := range []string{
		"expectations: 1 of 2 met",
		"  MET      share keeps up: share / consumer throughput.completed_per_sec ≥ 2: measured r02-share/r01-consumer 2.635",
		"  NOT MET  consumer at ceiling: consumer runs: ceiling.efficiency in [0.9, 1.05]: measured r01-consumer 0.81 ✗ (why)",
	} {
		if !strings.Contains(con.String(), w) {
			t.Errorf("console lacks %q:\n%s", w, con.String())
		}
	}
	var md bytes.Buffer
	camp := runs.Campaign{Name: "fixture", Expectations: outs}
	if err := Markdown(camp, []runs.Record{runstest.Run("r01-consumer", "consumer", 0, 380, 4e4)})(&md); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"## Expectations",
		"- **MET** share keeps up: share / consumer throughput.completed_per_sec ≥ 2: measured r02-share/r01-consumer 2.635",
		"- **NOT MET** consumer at ceiling:",
	} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("summary.md lacks %q:\n%s", w, md.String())
		}
	}
	var none bytes.Buffer
	_ = Expectations(nil)(&none)
	if none.Len() != 0 {
		t.Errorf("no expectations printed %q", none.String())
	}
}
