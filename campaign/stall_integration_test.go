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
	// No JIT warm-up: a stall does not depend on it, and it runs until the
	// broker's compile rate settles (up to 20 s).
	f := stallOnKafka(t, stallCase{tools: []string{"java", "mvn"}, timeout: 5 * time.Minute})
	dump, _ := os.ReadFile(filepath.Join(f.dir, "stall-threads-broker-1.txt"))
	// A JVM thread dump names its threads; a Kafka broker has request handlers.
	if !strings.Contains(string(dump), "Full thread dump") || !strings.Contains(string(dump), "data-plane-kafka-request-handler") {
		t.Errorf("%s: thread dump does not look like a Kafka broker's (%d bytes): %.300s", f.stalled.RunID, len(dump), dump)
	}
	if m := f.clients.Members[0]; m.WedgedWorkers != 1 || m.BusyWorkers != 1 {
		t.Errorf("%s: member state %+v: want its one worker wedged and busy", f.stalled.RunID, m)
	}
}

// stallCase is what differs between the clients the stall test runs.
type stallCase struct {
	client    string        // the scenario's client key: "" for franz-go
	tools     []string      // commands the test is skipped without
	timeout   time.Duration // bound on the whole campaign
	jitWarmup bool          // run the broker's JIT warm-up before the runs
	files     []string      // the client's own files beside run.json
	notFlags  []runs.Code   // flags the stalled run must not carry, beside error
}

// stallFinding is what a client's own checks read.
type stallFinding struct {
	stalled runs.Record
	dir     string // the stalled run's folder
	clients stallClients
}

// stallOnKafka runs the stall campaign with c's client on a real broker:
// one share member with one worker that wedges on a record (stuck_rate
// 0.05), then the same with stuck_rate 0. It checks what every client must
// show: the first run flagged stalled once the stall bound passes, its drain
// ended by the stall and not by the drain timeout, the broker's thread dump
// by jcmd and the members' state beside run.json, and the next run clean.
func stallOnKafka(t *testing.T, c stallCase) stallFinding {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: real-broker tests skipped")
	}
	if reason := testkit.MissingTools(c.tools...); reason != "" {
		t.Skip(reason)
	}
	name, clientKey := "stall", ""
	if c.client != "" {
		name, clientKey = "stall-"+c.client, "client: "+c.client+"\n"
	}
	sc, err := scenarios.LoadBytes(name+".yaml", []byte("name: "+name+"\n"+clientKey+`consumer_type: share
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
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	res, err := Run(ctx, sc, Options{Provider: "process", ResultsDir: t.TempDir(), Log: &log, NoJITWarmup: !c.jitWarmup})
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
	// Bounded: the drain ends at the stall bound (plus the dump), nowhere
	// near its 3-minute timeout.
	if stalled.Phases.DrainTimedOut || stalled.Phases.DrainSec > 60 {
		t.Errorf("%s: drain %.1fs timed out %v: the stall must end it", stalled.RunID, stalled.Phases.DrainSec, stalled.Phases.DrainTimedOut)
	}
	// A stall is a finding, not a run error.
	for _, code := range append([]runs.Code{runs.CodeError}, c.notFlags...) {
		if slices.Contains(stalled.Validity.Codes(), code) {
			t.Errorf("%s: flagged %s: %v %v", stalled.RunID, code, stalled.Validity.Flags, stalled.Errors)
		}
	}
	dir := filepath.Join(res.Dir, "runs", stalled.RunID)
	for _, name := range append([]string{"run.json", "stall-threads-broker-1.txt", "stall-clients.json"}, c.files...) {
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
	var clients stallClients
	b, _ := os.ReadFile(filepath.Join(dir, "stall-clients.json"))
	if err := json.Unmarshal(b, &clients); err != nil || len(clients.Members) != 1 {
		t.Fatalf("%s: stall-clients.json: %v, %d members: %s", stalled.RunID, err, len(clients.Members), b)
	}
	// The wedge may fall on the very first record (stuck_rate 0.05), so a
	// completion before it is not required.
	if m := clients.Members[0]; m.Held < 1 || m.Completed >= m.Delivered {
		t.Errorf("%s: member state %+v: want records held, one delivered and not completed", stalled.RunID, m)
	}
	t.Logf("%s: flags %v audit %+v", next.RunID, next.Validity.Flags, next.Audit)
	if next.Stall != nil || next.Audit.CompletedOnce != next.Audit.Produced || next.Audit.Produced == 0 {
		t.Errorf("%s: the next run must run clean: stall %+v audit %+v", next.RunID, next.Stall, next.Audit)
	}
	return stallFinding{stalled: stalled, dir: dir, clients: clients}
}
