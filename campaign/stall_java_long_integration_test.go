//go:build integration && long

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

// TestJavaStallIsAFinding is TestStallIsAFinding with the Java runner: its
// one worker wedges on a record (stuck_rate, Member.wedge in the runner),
// so nothing completes while records are available. The run is flagged
// stalled within its bound; beside its run.json lie the broker's thread
// dump, the runner JVM's own thread dump (by jcmd, showing the worker in
// the wedge) and the members' state from the frames; the wedged runner is
// stopped (its JVM is gone when the campaign returns, without the close
// timeout's kill); and the campaign's next run (stuck_rate 0) completes
// every record.
func TestJavaStallIsAFinding(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real-broker tests skipped")
	}
	if reason := testkit.MissingTools("java", "mvn", "jcmd"); reason != "" {
		t.Skip(reason)
	}
	sc, err := scenarios.LoadBytes("stall-java.yaml", []byte(`name: stall-java
client: java
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
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	res, err := Run(ctx, sc, Options{Provider: "process", ResultsDir: t.TempDir(), Log: &log})
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs, want 2: the campaign goes on after a stall", len(res.Runs))
	}
	stalled, next := res.Runs[0], res.Runs[1]
	st := stalled.Stall
	t.Logf("%s: flags %v audit %+v stall %+v phases %+v", stalled.RunID, stalled.Validity.Flags, stalled.Audit, st, stalled.Phases)
	if st == nil || !slices.Contains(stalled.Validity.Codes(), runs.CodeStalled) {
		t.Fatalf("%s: not flagged stalled: %v", stalled.RunID, stalled.Validity.Flags)
	}
	if st.BoundSec != stallFloor.Seconds() || st.QuietSec < st.BoundSec || st.QuietSec > st.BoundSec+30 || st.Outstanding <= 0 || st.Recovered {
		t.Errorf("%s: stall %+v: want quiet ≥ the %v bound (and not much more), records outstanding, no recovery", stalled.RunID, st, stallFloor)
	}
	if stalled.Phases.DrainTimedOut || stalled.Phases.DrainSec > 60 {
		t.Errorf("%s: drain %.1fs timed out %v: the stall must end it", stalled.RunID, stalled.Phases.DrainSec, stalled.Phases.DrainTimedOut)
	}
	// The wedged worker returns when its member stops: the runner closes
	// its client and exits by itself, not by the harness's kill.
	for _, c := range []runs.Code{runs.CodeError, runs.CodeClientCloseTimeout, runs.CodeClientKilled} {
		if slices.Contains(stalled.Validity.Codes(), c) {
			t.Errorf("%s: flagged %s: %v %v", stalled.RunID, c, stalled.Validity.Flags, stalled.Errors)
		}
	}
	dir := filepath.Join(res.Dir, "runs", stalled.RunID)
	for _, name := range []string{"run.json", "stall-threads-broker-1.txt", "stall-threads-client-1.txt", "stall-clients.json"} {
		if !slices.Contains(append(stalled.Files, "run.json"), name) {
			t.Errorf("%s: run.json files %v lack %s", stalled.RunID, stalled.Files, name)
		}
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", stalled.RunID, err)
		}
	}
	if len(st.Dumps) != 1 || st.Dumps[0].Method != infra.DumpJcmd {
		t.Errorf("%s: broker dumps %+v, want one by jcmd", stalled.RunID, st.Dumps)
	}
	if len(st.ClientDumps) != 1 || st.ClientDumps[0].Method != infra.DumpJcmd || st.ClientDumps[0].Runner != "java runner" ||
		!slices.Equal(st.ClientDumps[0].Members, []int{0}) {
		t.Fatalf("%s: client dumps %+v, want the java runner's JVM by jcmd, running member 0", stalled.RunID, st.ClientDumps)
	}
	dump, _ := os.ReadFile(filepath.Join(dir, "stall-threads-client-1.txt"))
	// A JVM thread dump of the runner: the worker parked in the wedge, and
	// the client's own network thread beside it.
	for _, want := range []string{"Full thread dump", "sharebench.runner.Member.wedge", "consumer_background_thread"} {
		if !strings.Contains(string(dump), want) {
			t.Errorf("%s: the runner's thread dump (%d bytes) lacks %q: %.400s", stalled.RunID, len(dump), want, dump)
		}
	}
	if pid := st.ClientDumps[0].PID; testkit.Alive(pid) {
		t.Errorf("%s: the wedged runner's JVM (pid %d) still runs after the campaign", stalled.RunID, pid)
	}
	var clients stallClients
	b, _ := os.ReadFile(filepath.Join(dir, "stall-clients.json"))
	if err := json.Unmarshal(b, &clients); err != nil || len(clients.Members) != 1 {
		t.Fatalf("%s: stall-clients.json: %v, %d members: %s", stalled.RunID, err, len(clients.Members), b)
	}
	if m := clients.Members[0]; m.Held < 1 || m.Completed >= m.Delivered || !strings.Contains(clients.Unavailable, "stall-threads-client-") {
		t.Errorf("%s: member state %+v (%q): want records held, one delivered and not completed, and the dump named", stalled.RunID, m, clients.Unavailable)
	}
	t.Logf("%s: flags %v audit %+v", next.RunID, next.Validity.Flags, next.Audit)
	if next.Stall != nil || next.Audit.CompletedOnce != next.Audit.Produced || next.Audit.Produced == 0 {
		t.Errorf("%s: the next run must run clean: stall %+v audit %+v", next.RunID, next.Stall, next.Audit)
	}
}
