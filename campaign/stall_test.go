package campaign

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// The detector reports a stall only after bound without a finish while
// records are available; finishes and empty spells restart the count.
func TestStallDetector(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	d := stallDetector{bound: 10 * time.Second}
	steps := []struct {
		at                    float64
		finished, outstanding int64
		quiet                 float64
		stalled               bool
	}{
		{0, 0, 5, 0, false},     // first reading: the count starts
		{9.5, 0, 5, 9.5, false}, // quiet, under the bound
		{10, 3, 5, 0, false},    // a finish restarts it
		{19.9, 3, 9, 9.9, false},
		{20, 3, 0, 0, false}, // nothing available: not a stall, and the count restarts
		{35, 3, 0, 0, false}, // however long nothing is available
		{36, 3, 4, 0, false}, // records again: counting from here
		{45.9, 3, 4, 9.9, false},
		{46, 3, 4, 10, true}, // bound reached
		{60, 3, 4, 24, true}, // and stays stalled
		{61, 4, 4, 0, false}, // until something finishes
	}
	for _, s := range steps {
		quiet, stalled := d.observe(at(s.at), s.finished, s.outstanding)
		if quiet != time.Duration(s.quiet*float64(time.Second)) || stalled != s.stalled {
			t.Errorf("t=%.1fs finished %d outstanding %d: quiet %v stalled %v, want %.1fs %v",
				s.at, s.finished, s.outstanding, quiet, stalled, s.quiet, s.stalled)
		}
	}
}

// The stall bound is max(10 × expected gap, floor): the gap is an
// acquisition's records at the model's high end ÷ workers plus
// fetch_max_wait per broker, times the largest slow factor; events add
// the crash grace to the floor.
func TestStallBound(t *testing.T) {
	s := baseSpec() // consumer group, 50 records/poll, constant 10 ms, 1 worker
	s.FetchMaxWait = 500 * time.Millisecond
	bound, gap := stallBound(s)
	if want := 50*10*time.Millisecond + 500*time.Millisecond; gap != want || bound != stallFloor {
		t.Errorf("gap %v bound %v, want %v and the %v floor", gap, bound, want, stallFloor)
	}
	s.Processing = scenarios.Processing{Model: "lognormal", Median: 20 * time.Millisecond, P99: 200 * time.Millisecond}
	s.Workers, s.Nodes, s.FetchMaxWait = 2, 3, 5*time.Second
	bound, gap = stallBound(s)
	if want := 50*200*time.Millisecond/2 + 15*time.Second; gap != want || bound != 10*want {
		t.Errorf("lognormal: gap %v bound %v, want %v and %v", gap, bound, want, 10*want)
	}
	s = baseSpec()
	s.ConsumerType = vocab.ShareGroup
	s.FetchMaxWait = 0
	s.Events = []scenarios.Event{{At: time.Second, Action: scenarios.ActionSlow, Factor: 4, Duration: time.Second}}
	bound, gap = stallBound(s)
	wantGap := time.Duration(s.PredictedAcquisition()) * 10 * time.Millisecond * 4
	if gap != wantGap || bound != max(10*wantGap, stallFloor+s.RecordLockDuration()) {
		t.Errorf("share with a slow event: gap %v bound %v, want %v and max(10 × gap, %v + lock %v)", gap, bound, wantGap, stallFloor, s.RecordLockDuration())
	}
}

// The stall watch on kfake (not Kafka): a consumer-group member whose one
// worker wedges stops completing; the run is flagged stalled, its drain
// ends long before its timeout, there is no broker JVM to dump (said so),
// and the clients' state names the wedged worker.
func TestStallWatchOnKfake(t *testing.T) {
	floor := stallFloor
	stallFloor = 3 * time.Second
	t.Cleanup(func() { stallFloor = floor })
	ctx, cl := startKfake(t)
	s := baseSpec()
	s.Partitions, s.Members, s.Workers, s.MaxPollRecords, s.Rate = 1, 1, 1, 5, 100
	s.Processing.Time = time.Millisecond
	s.FetchMaxWait = 100 * time.Millisecond
	s.StuckRate = 0.05
	s.Warmup, s.Duration, s.DrainTimeout = time.Second, 2*time.Second, time.Minute
	bound, _ := stallBound(s)
	if bound != 3*time.Second {
		t.Fatalf("bound %v, want the 3 s floor", bound)
	}
	m, err := RunOne(ctx, cl, s, "kfake-stall", testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	r := m.Record
	st := r.Stall
	if st == nil || !slices.Contains(r.Validity.Codes(), runs.CodeStalled) {
		t.Fatalf("not stalled: stall %+v flags %v audit %+v", st, r.Validity.Flags, r.Audit)
	}
	if st.QuietSec < 3 || st.Outstanding <= 0 || st.BoundSec != 3 || r.Phases.DrainTimedOut || r.Phases.DrainSec > 30 {
		t.Errorf("stall %+v drain %.1fs timed out %v", st, r.Phases.DrainSec, r.Phases.DrainTimedOut)
	}
	if len(st.Dumps) != 1 || st.Dumps[0].Method != infra.DumpUnavailable || !strings.Contains(st.Dumps[0].Error, "kfake") {
		t.Errorf("dumps %+v: want one unavailable entry naming kfake", st.Dumps)
	}
	if len(m.Files) != 1 || m.Files[0].Name != "stall-clients.json" || !slices.Equal(st.Files, []string{"stall-clients.json"}) {
		t.Fatalf("files %v / %v", st.Files, m.Files)
	}
	var clients stallClients
	if err := json.Unmarshal(m.Files[0].Data, &clients); err != nil || len(clients.Members) != 1 {
		t.Fatalf("stall-clients.json: %v: %s", err, m.Files[0].Data)
	}
	// The wedge falls on a record at random (stuck_rate 0.05): it may be the
	// very first, so completions before it are not required; the wedged
	// record is one delivered and not completed.
	if mem := clients.Members[0]; mem.WedgedWorkers != 1 || mem.BusyWorkers != 1 || mem.Held < 1 || mem.Completed >= mem.Delivered {
		t.Errorf("member %+v: want its worker wedged on a record delivered and not completed", mem)
	}
	if slices.Contains(r.Validity.Codes(), runs.CodeError) {
		t.Errorf("a stall is no run error: %v", r.Errors)
	}
}
