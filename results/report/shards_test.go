package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
)

// A sharded run says so in the side-by-side table; a run in one process has
// no such row.
func TestConsoleShardsRow(t *testing.T) {
	one := runs.Record{RunID: "r01"}
	sh := runs.Record{RunID: "r02", Shards: &runs.Shards{Count: 3, Launcher: "local", MaxUncertaintyMs: 0.66}}
	var b bytes.Buffer
	if err := Console([]runs.Record{one})(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "sharded") {
		t.Fatalf("a run in one process shows a sharded row:\n%s", b.String())
	}
	b.Reset()
	if err := Console([]runs.Record{one, sh})(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "over 3 agents (local), clock ±0.7 ms") {
		t.Fatalf("no sharded row:\n%s", b.String())
	}
}
