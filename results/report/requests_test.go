package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
)

func TestMarkdownRequestsTable(t *testing.T) {
	var b bytes.Buffer
	writeMarkdownRequests(&b, []runs.Record{{RunID: "r01", Requests: []runs.RequestFigure{
		{Broker: 2, Kind: "ShareFetch", Count: 10, PerSec: 0.25, EmptyShare: 1, EmptyMeanMs: 5010, MeanMs: 5010, WaitSec: 50.1},
		{Broker: 1, Kind: "ShareAcknowledge", Count: 4, PerSec: 0.1, MeanMs: 2.5, WaitSec: 0.01},
	}}})
	out := b.String()
	for _, want := range []string{"## Requests per broker", "| r01 | 2 | ShareFetch | 0.2 | 100% | 5010 | 5010.0 | 50.1 |",
		"| r01 | 1 | ShareAcknowledge | 0.1 | - | - | 2.5 | 0.0 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	b.Reset()
	writeMarkdownRequests(&b, []runs.Record{{RunID: "r01"}})
	if b.Len() != 0 {
		t.Errorf("no requests: wrote %q", b.String())
	}
}

// The Java client's rows count requests without timing them: the table
// prints their rate and "-" for what is unknown, never 0.
func TestMarkdownRequestsUntimed(t *testing.T) {
	var b bytes.Buffer
	writeMarkdownRequests(&b, []runs.Record{{RunID: "r02", Requests: []runs.RequestFigure{
		{Broker: 1, Kind: "all (java client metrics)", Count: 40, PerSec: 4, Untimed: true, Unavailable: "mean_ms: untimed"},
		{Broker: 1, Kind: "ShareFetch+ShareAcknowledge responses (java client metrics)", Count: 8, PerSec: 0.8, MeanMs: 12.5, WaitSec: 0.1,
			Unavailable: "empty_share: not counted"},
	}}})
	for _, want := range []string{"| r02 | 1 | all (java client metrics) | 4.0 | - | - | - | - |",
		"| r02 | 1 | ShareFetch+ShareAcknowledge responses (java client metrics) | 0.8 | - | - | 12.5 | 0.1 |",
		"- unavailable: mean_ms: untimed\n", "- unavailable: empty_share: not counted\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
}
