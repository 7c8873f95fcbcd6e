package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// A stall is a finding, not a hang (docs/explanation/measurement.md#stalls): when
// nothing completes for the run's stall bound while records the producers
// had acknowledged are unfinished (a broker bug such as the share-partition
// deadlock fixed in Kafka 4.2.1, a wedged client), the run dumps the
// brokers' threads and the clients' state beside its run.json, is flagged
// stalled, and its drain ends at once; the campaign goes on to its next run.

// stallHolds is N of the stall bound: max(N × the expected gap between a
// member's completions, stallFloor).
const stallHolds = 10

// stallFloor is the stall bound's floor: no run stalls in less (a
// variable for the kfake test, which cannot wait 20 s).
var stallFloor = 20 * time.Second

// stallTick is how often the watch reads the counters.
const stallTick = 500 * time.Millisecond

// stallBound is a run's stall bound and the expected gap behind it. The gap
// is a member's longest regular cycle: an acquisition's (or a poll's)
// records at the processing model's high end (p99, or its maximum) ÷ its
// workers, plus fetch_max_wait at each broker (a fetch a broker holds for
// records that never come), slowed by the largest slow event. A run with
// events adds the time a crashed member's records stay out of reach (the
// lock duration or session timeout) to the floor.
func stallBound(s scenarios.RunSpec) (bound, gap time.Duration) {
	records := s.MaxPollRecords
	if s.ConsumerType == vocab.ShareGroup {
		records = max(records, s.PredictedAcquisition())
	}
	gap = time.Duration(float64(processingHigh(s.Processing)) * float64(max(1, records)) / float64(max(1, s.Workers)))
	gap += s.FetchMaxWait * time.Duration(max(1, s.Nodes))
	floor := stallFloor
	factor := 1.0
	for _, e := range s.Events {
		if e.Action == scenarios.ActionSlow {
			factor = max(factor, e.Factor)
		}
	}
	if s.ChangesMembers() {
		floor += crashGrace(s)
	}
	gap = time.Duration(float64(gap) * factor)
	return max(stallHolds*gap, floor), gap
}

// processingHigh is a processing model's high end: its time, maximum or
// p99 (exponential: mean × ln 100).
func processingHigh(p scenarios.Processing) time.Duration {
	switch p.Model {
	case "constant":
		return p.Time
	case "uniform":
		return p.Max
	case "exponential":
		return time.Duration(float64(p.Mean) * math.Log(100))
	case "lognormal":
		return p.P99
	}
	return 0
}

// stallDetector tells a stall from a slow run: it is told, at each reading,
// how many records have finished (completed or archived) and how many
// acknowledged records are unfinished, and reports a stall once nothing
// finished for bound while records were available. Time with nothing
// available does not count.
type stallDetector struct {
	bound      time.Duration
	started    bool
	finished   int64
	available  bool      // the last reading had records available
	lastChange time.Time // the last finish, or when records were first seen available
}

// observe takes one reading at now and returns how long nothing has
// finished with records available, and whether that reached the bound.
func (d *stallDetector) observe(now time.Time, finished, outstanding int64) (quiet time.Duration, stalled bool) {
	if !d.started || finished != d.finished || outstanding <= 0 || !d.available {
		d.started, d.finished, d.lastChange, d.available = true, finished, now, outstanding > 0
		return 0, false
	}
	quiet = now.Sub(d.lastChange)
	return quiet, quiet >= d.bound
}

// stallWatch runs a stallDetector beside a run and, at the first stall,
// takes the evidence.
type stallWatch struct {
	det     stallDetector
	gap     time.Duration
	counts  func() results.Counts
	clock   *results.Clock
	ld      load
	cl      infra.Cluster
	fleet   *consumers.Fleet // nil: no client state (sharded runs)
	lag     func() (int64, bool)
	log     func(format string, args ...any)
	started time.Time // the load's start, for Stall.AtSec

	mu       sync.Mutex
	stall    *runs.Stall
	ready    bool      // the evidence is taken: the drain may stop
	quietNow bool      // no finish since the detection
	since    time.Time // the last finish before the stall
	// stallFinished is the finished count at the stall: a larger one ends it.
	stallFinished int64
	files         []runs.RunFile

	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

func newStallWatch(s *runSetup, rc *recording, ld load) *stallWatch {
	bound, gap := stallBound(s.spec)
	w := &stallWatch{det: stallDetector{bound: bound}, gap: gap, counts: ld.counts, clock: rc.clock, ld: ld, cl: s.cl, fleet: ld.states(),
		started: rc.clock.Time(rc.start), stop: make(chan struct{}), done: make(chan struct{}),
		log: func(format string, args ...any) {
			fmt.Fprintf(s.log, "  %s: "+format+"\n", append([]any{s.id}, args...)...)
		}}
	if rc.lag != nil {
		w.lag = func() (int64, bool) {
			l, ok := rc.lag.Latest()
			return l.Lag, ok
		}
	}
	return w
}

// start watches until finish (or ctx ends); a nil watch does nothing.
func (w *stallWatch) start(ctx context.Context) {
	if w == nil {
		return
	}
	go func() {
		defer close(w.done)
		t := time.NewTicker(stallTick)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-w.stop:
				return
			case now := <-t.C:
				w.check(ctx, now)
			}
		}
	}()
}

// progress reads the recorder: records finished (completions, first or not,
// and rejects) and records acknowledged and not finished.
func (w *stallWatch) progress() (finished, outstanding int64) {
	c := w.counts()
	finished = c.Completed + c.Rejected
	return finished, max(0, c.Acked-(c.Completed-c.Duplicates)-c.Rejected)
}

// check takes one reading; at the first stall it takes the evidence.
func (w *stallWatch) check(ctx context.Context, now time.Time) {
	finished, outstanding := w.progress()
	quiet, stalled := w.det.observe(now, finished, outstanding)
	w.mu.Lock()
	if w.stall != nil {
		if quiet == 0 && w.quietNow && finished != w.stallFinished {
			w.quietNow, w.stall.Recovered = false, true
			w.stall.QuietSec = now.Sub(w.since).Seconds()
		}
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	if !stalled {
		return
	}
	unfinished, err := w.ld.unfinished(ctx)
	if err != nil {
		unfinished = outstanding // the agents' counters, when their ledgers cannot be read
	}
	st := &runs.Stall{AtSec: now.Sub(w.started).Seconds(), BoundSec: w.det.bound.Seconds(),
		ExpectedGapMs: float64(w.gap) / 1e6, QuietSec: quiet.Seconds(), Outstanding: unfinished, Lag: -1}
	if w.lag != nil {
		if l, ok := w.lag(); ok {
			st.Lag = l
		}
	}
	w.log("stalled: nothing completed for %v (bound %v) with %d records unfinished; dumping the brokers' threads and the clients' state",
		quiet.Round(time.Second), w.det.bound, st.Outstanding)
	w.mu.Lock()
	w.stall, w.quietNow, w.since, w.stallFinished = st, true, now.Add(-quiet), finished
	w.mu.Unlock()
	files := w.evidence(ctx, st, now)
	w.mu.Lock()
	w.files, w.ready = files, true
	w.mu.Unlock()
}

// evidence dumps the brokers' threads and the clients' state into files
// for the run's folder and notes them in st.
func (w *stallWatch) evidence(ctx context.Context, st *runs.Stall, now time.Time) []runs.RunFile {
	var files []runs.RunFile
	for _, d := range infra.ThreadDumpsOf(ctx, w.cl) {
		sd := runs.StallDump{Node: d.Node, Method: d.Method, Error: d.Err}
		if d.Text != "" {
			sd.File = fmt.Sprintf("stall-threads-broker-%d.txt", d.Node)
			header := fmt.Sprintf("# broker %d (pid %d): %s at %s\n", d.Node, d.PID, d.Method, now.UTC().Format(time.RFC3339Nano))
			files = append(files, runs.RunFile{Name: sd.File, Data: []byte(header + d.Text)})
		}
		st.Dumps = append(st.Dumps, sd)
	}
	if w.fleet != nil {
		for i, p := range w.fleet.RunnerProcesses() {
			d := infra.ClientThreadDump(ctx, p.PID)
			cd := runs.ClientDump{Runner: p.Name, PID: p.PID, Members: p.Members, Method: d.Method, Error: d.Err}
			if d.Text != "" {
				cd.File = fmt.Sprintf("stall-threads-client-%d.txt", i+1)
				header := fmt.Sprintf("# %s (pid %d, members %v): %s at %s\n", p.Name, p.PID, p.Members, d.Method, now.UTC().Format(time.RFC3339Nano))
				files = append(files, runs.RunFile{Name: cd.File, Data: []byte(header + d.Text)})
			}
			st.ClientDumps = append(st.ClientDumps, cd)
		}
	}
	clients := stallClients{At: now.UTC().Format(time.RFC3339Nano), ClockNs: w.clock.Now(),
		Counts: w.counts()}
	if w.fleet != nil {
		clients.Members = w.fleet.MemberStates()
		clients.Unavailable = w.fleet.StatesUnavailable()
	} else {
		clients.Unavailable = "the members run in the shards' agents"
	}
	if b, err := json.MarshalIndent(clients, "", "  "); err == nil {
		files = append(files, runs.RunFile{Name: "stall-clients.json", Data: append(b, '\n')})
	}
	for _, f := range files {
		st.Files = append(st.Files, f.Name)
	}
	return files
}

// stallClients is stall-clients.json: the recorder's counters and every
// member's state at the stall.
type stallClients struct {
	At      string                  `json:"at"`
	ClockNs int64                   `json:"clock_ns"` // the run's clock; the members' *_ns are on it
	Counts  results.Counts          `json:"counts"`
	Members []consumers.MemberState `json:"members,omitempty"`
	// Unavailable says why Members is empty, or what it lacks (a client
	// runner's members).
	Unavailable string `json:"unavailable,omitempty"`
}

// stalled reports whether the drain should stop: a stall was detected,
// its evidence is taken and nothing finished since.
func (w *stallWatch) stalled() bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ready && w.quietNow
}

// finish stops the watch and returns the stall (nil: none) with its quiet
// time up to now, and the files to write beside run.json.
func (w *stallWatch) finish(now time.Time) (*runs.Stall, []runs.RunFile) {
	if w == nil {
		return nil, nil
	}
	w.stopOnce.Do(func() { close(w.stop) })
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stall == nil {
		return nil, nil
	}
	if w.quietNow {
		w.stall.QuietSec = now.Sub(w.since).Seconds()
	}
	return w.stall, w.files
}
