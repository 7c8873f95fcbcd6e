package campaign

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

// load is where a run's producers and members run. The run's phases (run.go
// and the mode files) drive it the same way whatever the scale: localLoad
// runs them in this process; shardedLoad (sharded.go) spreads every call
// over the agent processes of a run with shards > 1, each of which carries
// it out on a localLoad of its own (agent.go). So a single-process run is
// the lifecycle with one in-process agent, not a second path.
type load interface {
	// memberFleet is what events and the scaler do to the members (Join,
	// Leave, Crash, SlowDown); Members is how many run now.
	memberFleet
	Members() int
	// startMembers starts the run's members: held, they join but consume
	// only once released.
	startMembers(ctx context.Context, hold bool) error
	// release lets held members consume and returns when they were let go
	// (Clock ns; the earliest agent's).
	release(ctx context.Context) (int64, error)
	// generation is the highest consumer-group generation a member saw.
	generation() int32
	// lead is how far ahead of now a schedule may start: the time to tell
	// every producer.
	lead() time.Duration
	// produce runs the producers from pcfg.Start (backlog, flush bound as
	// pcfg says) until they end; w is the measurement window.
	produce(ctx context.Context, pcfg producer.Config, w results.Window) error
	// unfinished is how many acknowledged records are neither completed
	// nor archived: the drain's check.
	unfinished(ctx context.Context) (int64, error)
	// counts are the run's counters now.
	counts() results.Counts
	// exited receives the members' end (or an agent's failure) while the
	// run still needs them; a reader that only looks puts it back.
	exited() chan error
	// stop stops the members and waits for them; every shard's results are
	// then in the run's recorder. consumerErrs are the members' ends (one
	// of the run's errors each), err a failure of the run.
	stop(ctx context.Context, drainErr error) (consumerErrs []error, err error)
	clientStats() consumers.ClientStats
	// states is the fleet whose client state a stall's evidence reads (nil:
	// the members are in other processes).
	states() *consumers.Fleet
	// record is the run's shards record (nil: one process).
	record() *runs.Shards
}

// localLoad runs a run's producers and members in this process, recording
// into rec.
type localLoad struct {
	ccfg consumers.Config
	rec  *results.Recorder
	ctx  context.Context // the members' context; stopMembers ends it

	stopMembers context.CancelFunc
	errc        chan error

	mu sync.Mutex
	fl *consumers.Fleet // nil until started (an agent without members: until one joins)
}

func newLocalLoad(ctx context.Context, ccfg consumers.Config, rec *results.Recorder) *localLoad {
	cctx, stop := context.WithCancel(ctx)
	return &localLoad{ccfg: ccfg, rec: rec, ctx: cctx, stopMembers: stop, errc: make(chan error, 1)}
}

func (l *localLoad) fleet() *consumers.Fleet {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fl
}

func (l *localLoad) startMembers(_ context.Context, hold bool) error {
	if l.ccfg.Members == 0 { // one agent's part of a sharded run, its members yet to join
		return nil
	}
	c := l.ccfg
	c.Hold = hold
	return l.start(c)
}

// start starts the fleet of c's members and watches its end.
func (l *localLoad) start(c consumers.Config) error {
	fl, err := consumers.Start(l.ctx, c, l.rec)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.fl = fl
	l.mu.Unlock()
	go func() {
		err := fl.Wait()
		if err == nil && l.ctx.Err() == nil && l.ccfg.OneOfSeveral && fl.Members() == 0 {
			// Every member of this agent left; the run's others go on elsewhere,
			// and a join starts a fleet here again.
			l.mu.Lock()
			l.fl = nil
			l.mu.Unlock()
			return
		}
		select {
		case l.errc <- err:
		default: // an earlier end is waiting to be read
		}
	}()
	return nil
}

func (l *localLoad) release(context.Context) (int64, error) {
	if fl := l.fleet(); fl != nil {
		return fl.Release(), nil
	}
	return l.rec.Clock.Now(), nil
}

func (l *localLoad) generation() int32 {
	if fl := l.fleet(); fl != nil {
		return fl.Generation()
	}
	return 0
}

// localLead is the time from the window's opening to the schedule start in
// one process.
const localLead = 100 * time.Millisecond

func (l *localLoad) lead() time.Duration { return localLead }

func (l *localLoad) produce(ctx context.Context, pcfg producer.Config, _ results.Window) error {
	return producer.Run(ctx, pcfg, l.rec)
}

func (l *localLoad) unfinished(context.Context) (int64, error) {
	a := l.rec.Ledger.Audit()
	return max(0, a.Produced-a.CompletedOnce-a.Duplicates-a.Archived), nil
}

func (l *localLoad) counts() results.Counts { return l.rec.Counts() }

func (l *localLoad) exited() chan error { return l.errc }

func (l *localLoad) stop(_ context.Context, drainErr error) ([]error, error) {
	l.stopMembers()
	if l.fleet() == nil {
		return nil, nil
	}
	if err := waitConsumers(l.errc, drainErr); err != nil {
		return []error{err}, nil
	}
	return nil, nil
}

func (l *localLoad) clientStats() consumers.ClientStats {
	if fl := l.fleet(); fl != nil {
		return fl.ClientStats()
	}
	return consumers.NewClientStats()
}

func (l *localLoad) states() *consumers.Fleet { return l.fleet() }

func (l *localLoad) record() *runs.Shards { return nil }

func (l *localLoad) Members() int {
	if fl := l.fleet(); fl != nil {
		return fl.Members()
	}
	return 0
}

// Join starts n more members (ids drawn by the fleet).
func (l *localLoad) Join(n int) []int {
	if fl := l.fleet(); fl != nil {
		return fl.Join(n)
	}
	return nil
}

// joinIDs starts members with the ids a sharded run's coordinator drew: on
// an agent that has none running, a fleet of them (consuming at once).
func (l *localLoad) joinIDs(ids []int) ([]int, error) {
	if fl := l.fleet(); fl != nil {
		return fl.JoinIDs(ids), nil
	}
	c := l.ccfg
	c.Members, c.IDs, c.Hold = len(ids), ids, false
	if err := l.start(c); err != nil {
		return nil, err
	}
	return ids, nil
}

func (l *localLoad) Leave(ctx context.Context, n int) ([]int, error) {
	fl := l.fleet()
	if fl == nil {
		return nil, errNoMembers
	}
	return fl.Leave(ctx, n)
}

func (l *localLoad) Crash(ctx context.Context, n int) ([]int, error) {
	fl := l.fleet()
	if fl == nil {
		return nil, errNoMembers
	}
	return fl.Crash(ctx, n)
}

func (l *localLoad) SlowDown(factor float64, d time.Duration) {
	if fl := l.fleet(); fl != nil {
		fl.SlowDown(factor, d)
	}
}

var errNoMembers = errors.New("no members run here")

// drainThenStop waits for the consumers to finish every record (or the
// drain timeout), stops them, takes the samplers' final readings and
// returns the drain's length in seconds.
func drainThenStop(ctx context.Context, r *run) (float64, error) {
	s, rc, f := r.setup, r.rc, r.fleet
	producedAt := time.Now()
	f.drainErr = drain(ctx, r.ld, s.spec.DrainTimeout, f.stall.stalled)
	f.endStallWatch()
	drainSec := time.Since(producedAt).Seconds()
	cerrs, err := r.ld.stop(ctx, f.drainErr)
	for _, cerr := range cerrs {
		f.noteConsumerErr(cerr)
	}
	rc.lag.Stop()
	rc.scraper.Stop() // a final scrape: the consumers' last acknowledgements are in
	rc.procs.Stop()
	if err != nil {
		return drainSec, fmt.Errorf("collect: %w", err)
	}
	return drainSec, nil
}
