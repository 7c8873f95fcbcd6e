package campaign

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/sharebench/sharebench/blocks"
	"github.com/sharebench/sharebench/campaign/autoscale"
	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/internal/retry"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// scaleFleet is what the scaler does to the consumers (consumers.Fleet):
// the event runner's joins and leaves, and the live member count.
type scaleFleet interface {
	memberFleet
	Members() int
}

// scaler runs the autoscale: policy inside a run's window: every poll it
// reads the lag sampler's latest reading and the recorder's counters,
// asks the decision rule (campaign/autoscale), and carries an action out
// through the same join / leave / crash path as events:. Each action is
// also an event (labelled runs.ScalerLabel), so the per-event analysis
// gives its rebalance pauses and redeliveries.
type scaler struct {
	spec   scenarios.RunSpec
	rule   *autoscale.Scaler
	fleet  scaleFleet
	lag    func() (collectors.LagSample, bool)
	counts func() results.Counts
	clock  *results.Clock
	log    io.Writer
	// latency is rule 4's input: with a destination, the mean write time
	// over the last poll (destinationWriteTime); without one, the time a
	// record spends with the consumers (heldTime).
	latency func(prev, now results.Counts, dt time.Duration) time.Duration

	cancel    context.CancelFunc
	wg        sync.WaitGroup
	mu        sync.Mutex
	decisions []blocks.Decision
	events    []runs.Event
	start     int
}

// AutoscalePolicy is the decision rule's policy of a run with autoscale:
// (what sharebench autoscale render writes out).
func AutoscalePolicy(s scenarios.RunSpec) autoscale.Policy { return policy(s) }

// policy is the scenario's block as the decision rule's policy, with max
// bounded by rule 3's cap.
func policy(s scenarios.RunSpec) autoscale.Policy {
	p := *s.Autoscale
	p.Max = s.AutoscaleMax()
	return p
}

// newScaler checks the policy and prints it with rule 3's cap.
func newScaler(s scenarios.RunSpec, fl scaleFleet, lag *collectors.LagSampler, counts func() results.Counts, clock *results.Clock, log io.Writer) (*scaler, error) {
	rule, err := autoscale.New(policy(s))
	if err != nil {
		return nil, fmt.Errorf("autoscale: %w", err)
	}
	c, a := s.AutoscaleCap(), s.Autoscale
	fmt.Fprintf(log, "  autoscale: %s, replicas %d..%d (max %d, rule 3 cap %d: %s), window %v, out after %v, in after %v (≤ %s per replica), cooldown %v, step %d, poll %v\n",
		signalText(a), a.Min, s.AutoscaleMax(), a.Max, c.Replicas, c.Why, a.Window, a.OutAfter, a.InAfter, num(a.InBelow), a.Cooldown, a.Step, a.Poll)
	sc := &scaler{spec: s, rule: rule, fleet: fl, lag: lag.Latest, counts: counts, clock: clock, log: log, latency: heldTime}
	if s.Destination != nil {
		sc.latency = destinationWriteTime
	}
	return sc, nil
}

func signalText(a *scenarios.Autoscale) string {
	if a.Signal == blocks.SignalETD {
		return fmt.Sprintf("signal etd > goal %v", a.Goal)
	}
	return fmt.Sprintf("signal lag per replica > %s", num(a.Threshold))
}

func num(f float64) string { return fmt.Sprintf("%g", f) }

// heldTime is the mean time a record stays with the consumers by Little's
// law: records in flight ÷ completions/s over the interval (0 before any
// completion).
func heldTime(prev, now results.Counts, dt time.Duration) time.Duration {
	rate := float64(now.Completed-prev.Completed) / dt.Seconds()
	if rate <= 0 {
		return 0
	}
	return time.Duration(float64(now.InFlight()) / rate * float64(time.Second))
}

// destinationWriteTime is the mean time of the destination writes that
// finished over the interval, failed ones included (write nanoseconds ÷
// writes); 0 when none finished. It is what rule 4 holds a run with a
// destination to: more members only move the queue into a slow destination.
func destinationWriteTime(prev, now results.Counts, _ time.Duration) time.Duration {
	n := (now.DestinationWrites + now.DestinationWriteErrors) - (prev.DestinationWrites + prev.DestinationWriteErrors)
	if n <= 0 {
		return 0
	}
	return time.Duration((now.DestinationWriteNanos - prev.DestinationWriteNanos) / n)
}

// run polls from windowStart (Clock ns) until stop.
func (sc *scaler) run(ctx context.Context, windowStart int64) {
	ctx, sc.cancel = context.WithCancel(ctx)
	sc.start = sc.fleet.Members()
	sc.wg.Add(1)
	go func() {
		defer sc.wg.Done()
		if !retry.Sleep(ctx, time.Duration(windowStart-sc.clock.Now())) {
			return
		}
		poll := sc.spec.Autoscale.Poll
		prev, prevAt := sc.counts(), sc.clock.Now()
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			now, at := sc.counts(), sc.clock.Now()
			sc.step(ctx, windowStart, at, prev, now, time.Duration(at-prevAt))
			prev, prevAt = now, at
		}
	}()
}

// step reads, decides and acts once.
func (sc *scaler) step(ctx context.Context, windowStart, at int64, prev, now results.Counts, dt time.Duration) {
	r := autoscale.Reading{At: time.Duration(at - windowStart), Replicas: sc.fleet.Members()}
	if s, ok := sc.lag(); ok && time.Since(s.At) <= max(3*sc.spec.Autoscale.Poll, 3*time.Second) {
		r.OK, r.Lag = true, s.Lag
	}
	if dt > 0 {
		r.ProducedPerSec = float64(now.Acked-prev.Acked) / dt.Seconds()
		r.CompletedPerSec = float64(now.Completed-prev.Completed) / dt.Seconds()
		r.Latency = sc.latency(prev, now, dt)
	}
	d := sc.rule.Observe(r)
	sc.mu.Lock()
	sc.decisions = append(sc.decisions, d)
	sc.mu.Unlock()
	if d.Action != blocks.Hold || d.Reason != "" {
		fmt.Fprintf(sc.log, "    autoscale +%.1fs: %s %d→%d: lag %d, smoothed %.0f, per replica %.0f, etd %s; %s\n",
			d.AtSec, d.Action, d.From, d.To, d.Lag, d.Smoothed, d.PerReplica, etdText(d.ETDSec), d.Reason)
	}
	if d.Action == blocks.Out || d.Action == blocks.In {
		sc.act(ctx, d)
	}
}

func etdText(s float64) string {
	if s < 0 {
		return "∞"
	}
	return fmt.Sprintf("%.1fs", s)
}

// act carries a decision out and records it as an event.
func (sc *scaler) act(ctx context.Context, d autoscale.Decision) {
	ev := runs.Event{AtSec: d.AtSec, Label: fmt.Sprintf("%s%s %d→%d", runs.ScalerLabel, d.Action, d.From, d.To), StartNs: sc.clock.Now()}
	var err error
	switch {
	case d.Action == blocks.Out:
		ev.Action = scenarios.ActionJoin
		ev.Members = sc.fleet.Join(d.To - d.From)
	case sc.spec.Autoscale.Remove == blocks.RemoveCrash:
		ev.Action = scenarios.ActionCrash
		ev.Members, err = sc.fleet.Crash(ctx, d.From-d.To)
	default:
		ev.Action = scenarios.ActionLeave
		ev.Members, err = sc.fleet.Leave(ctx, d.From-d.To)
	}
	ev.EndNs = sc.clock.Now()
	if len(ev.Members) > 0 {
		ev.Target = "members " + joinInts(ev.Members)
	}
	if err != nil {
		ev.Error = err.Error()
		fmt.Fprintf(sc.log, "    autoscale %s: %v\n", d.Action, err)
	}
	sc.mu.Lock()
	sc.events = append(sc.events, ev)
	sc.mu.Unlock()
}

// stop ends the scaler and returns its log and the events its actions
// fired.
func (sc *scaler) stop() (*runs.ScalerLog, []runs.Event) {
	if sc.cancel != nil {
		sc.cancel()
	}
	sc.wg.Wait()
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return &runs.ScalerLog{Start: sc.start, Cap: sc.spec.AutoscaleCap(), MaxReplicas: sc.spec.AutoscaleMax(),
		Decisions: slices.Clone(sc.decisions)}, slices.Clone(sc.events)
}

// mergeEvents puts the scaler's events among the scheduled ones, in the
// order they started.
func mergeEvents(fired, scaled []runs.Event) []runs.Event {
	out := append(slices.Clone(fired), scaled...)
	slices.SortStableFunc(out, func(a, b runs.Event) int { return cmp.Compare(a.StartNs, b.StartNs) })
	return out
}
