//go:build integration

package campaign

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// A run whose one worker wedges on a record (stuck_rate) stops completing
// while records are available: it is flagged stalled once its stall bound
// passes (long before the drain timeout), the broker's thread dump and the
// clients' state lie beside its run.json, and the campaign's next run
// (stuck_rate 0) runs and completes every record.
func TestStallIsAFinding(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real-broker tests skipped")
	}
	if reason := testkit.MissingTools("java", "mvn"); reason != "" {
		t.Skip(reason)
	}
	sc, err := scenarios.LoadBytes("stall.yaml", []byte(`name: stall
consumer_type: share
broker_heap: 512m
partitions: 1
members: 1
workers: 1
max_poll_records: 10
acquire_mode: record_limit
rate: 50
processing: {model: constant, time: 5ms}
fetch_max_wait: 500ms
stuck_rate: [0.05, 0]
warmup: 1s
duration: 4s
drain_timeout: 3m
`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	bound, _ := stallBound(sc.Runs[0])
	if bound != stallFloor {
		t.Fatalf("stall bound %v: the test expects the %v floor", bound, stallFloor)
	}
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// No JIT warm-up: a stall does not depend on it, and it runs until the
	// broker's compile rate settles (up to 20 s).
	res, err := Run(ctx, sc, Options{Provider: "process", ResultsDir: t.TempDir(), Log: &log, NoJITWarmup: true})
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs, want 2: the campaign goes on after a stall", len(res.Runs))
	}
	stalled, next := res.Runs[0], res.Runs[1]
	st := stalled.Stall
	t.Logf("%s: flags %v audit %+v stall %+v", stalled.RunID, stalled.Validity.Flags, stalled.Audit, st)
	if st == nil || !slices.Contains(stalled.Validity.Codes(), runs.CodeStalled) {
		t.Fatalf("%s: not flagged stalled: %v", stalled.RunID, stalled.Validity.Flags)
	}
	if st.BoundSec != stallFloor.Seconds() || st.QuietSec < st.BoundSec || st.QuietSec > st.BoundSec+30 || st.Outstanding <= 0 || st.Recovered {
		t.Errorf("%s: stall %+v: want quiet ≥ the %v bound (and not much more), records outstanding, no recovery", stalled.RunID, st, stallFloor)
	}
	// Bounded: the drain ends at the stall bound (plus the dump), nowhere
	// near its 3-minute timeout.
	if stalled.Phases.DrainTimedOut || stalled.Phases.DrainSec > 60 {
		t.Errorf("%s: drain %.1fs timed out %v: the stall must end it", stalled.RunID, stalled.Phases.DrainSec, stalled.Phases.DrainTimedOut)
	}
	if slices.Contains(stalled.Validity.Codes(), runs.CodeError) {
		t.Errorf("%s: a stall is a finding, not a run error: %v", stalled.RunID, stalled.Errors)
	}
	dir := filepath.Join(res.Dir, "runs", stalled.RunID)
	for _, name := range []string{"run.json", "stall-threads-broker-1.txt", "stall-clients.json"} {
		if !slices.Contains(append(stalled.Files, "run.json"), name) {
			t.Errorf("%s: run.json files %v lack %s", stalled.RunID, stalled.Files, name)
		}
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", stalled.RunID, err)
		}
	}
	if len(st.Dumps) != 1 || st.Dumps[0].Method != infra.DumpJcmd {
		t.Errorf("%s: dumps %+v, want one by jcmd", stalled.RunID, st.Dumps)
	}
	dump, _ := os.ReadFile(filepath.Join(dir, "stall-threads-broker-1.txt"))
	// A JVM thread dump names its threads; a Kafka broker has request handlers.
	if !strings.Contains(string(dump), "Full thread dump") || !strings.Contains(string(dump), "data-plane-kafka-request-handler") {
		t.Errorf("%s: thread dump does not look like a Kafka broker's (%d bytes): %.300s", stalled.RunID, len(dump), dump)
	}
	var clients stallClients
	b, _ := os.ReadFile(filepath.Join(dir, "stall-clients.json"))
	if err := json.Unmarshal(b, &clients); err != nil || len(clients.Members) != 1 {
		t.Fatalf("%s: stall-clients.json: %v, %d members: %s", stalled.RunID, err, len(clients.Members), b)
	}
	// The wedge may fall on the very first record (stuck_rate 0.05), so a
	// completion before it is not required.
	if m := clients.Members[0]; m.WedgedWorkers != 1 || m.BusyWorkers != 1 || m.Held < 1 || m.Completed >= m.Delivered {
		t.Errorf("%s: member state %+v: want its one worker wedged and busy, records held, one delivered and not completed", stalled.RunID, m)
	}
	t.Logf("%s: flags %v audit %+v", next.RunID, next.Validity.Flags, next.Audit)
	if next.Stall != nil || next.Audit.CompletedOnce != next.Audit.Produced || next.Audit.Produced == 0 {
		t.Errorf("%s: the next run must run clean: stall %+v audit %+v", next.RunID, next.Stall, next.Audit)
	}
}
