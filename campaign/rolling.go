package campaign

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/retry"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// Rolling restarts and upgrades (broker_rolling_restart,
// broker_rolling_upgrade): every broker in node order, one at a time:
// coordinators noted, controlled shutdown, started again (on the upgrade's
// release), waited for until metadata lists it and no partition is
// under-replicated, coordinators noted again, then the event's pause.

// Bounds of one rolling step. rollingShutdownGrace is how long a broker's
// controlled shutdown may take before it is killed: longer than the
// provider's 20 s for other faults, because a rolling restart is meant to
// be controlled and one took 17 s on the busy 2-core host (three brokers
// and the harness saturate it); 60 s is over 3× that. rollingRestartTimeout
// covers the provider's restart: the grace, up to 10 s to reap a killed
// JVM, the JVM's start until it serves (the provider's start timeout, 5
// min by default, which also covers resolving a release's jars with Maven
// the first time, about a minute), so 7 min. rollingSyncTimeout
// bounds the wait for every partition's ISR to equal its replicas once the
// broker serves: a follower that was down for a restart (about 10–30 s on
// a busy 2-core host with three brokers and the harness) fetches a few
// seconds of a modest run's records; replica.lag.time.max.ms (30 s) is the
// broker's own bound on a follower's catching up, and 2 min leaves margin
// for the 2 cores three brokers and the harness saturate.
const (
	rollingShutdownGrace  = 60 * time.Second
	rollingRestartTimeout = 7 * time.Minute
	rollingSyncTimeout    = 2 * time.Minute
	// rollingLookupTimeout bounds one coordinator lookup (with retries): a
	// coordinator that moved may be loading its state for a few seconds.
	rollingLookupTimeout = 15 * time.Second
)

// rollingHost is what a rolling restart or upgrade needs of the run: the
// cluster's brokers and their releases, a restart, the wait until a
// restarted broker is back in sync, the run's group's coordinators, and
// the recorder's counters. clusterRolling is the real one; tests fake it.
type rollingHost interface {
	nodes() int
	versions() []string
	restart(ctx context.Context, node int, version string) (infra.RestartTimes, error) // killed after rollingShutdownGrace
	inSync(ctx context.Context, node int) error
	coordinators(ctx context.Context) (group int32, share *int32, err error)
	counts() results.Counts
	// metadataVersion is the finalized metadata.version level (0: unread).
	metadataVersion(ctx context.Context) int16
}

// rolling runs one rolling event, recording each step into event i as it
// goes. It returns the event's target and the first error that stopped it.
// Each broker's restart runs on a context detached from the run's (with its
// own bound), so a window that ends mid-step never leaves a broker down:
// the step finishes, and the next one is not started.
func (r *eventRunner) rolling(ctx context.Context, i int, e scenarios.Event) (string, error) {
	// The same refusal as every broker fault: kfake and external clusters
	// have no brokers the harness controls.
	if _, err := r.faults(); err != nil {
		return "", err
	}
	h := r.roll
	if h == nil {
		return "", errors.New("this load cannot restart brokers in turn (no rolling host)")
	}
	n := h.nodes()
	target := fmt.Sprintf("brokers 1..%d", n)
	if n < 2 {
		return target, fmt.Errorf("%s needs a cluster of 3 nodes; this one has %d (use broker_restart for a single broker)", e.Action, n)
	}
	before := h.versions()
	if e.Action == scenarios.ActionBrokerRollingUpgrade {
		for node, v := range before {
			if !scenarios.VersionAtLeast(e.KafkaVersion, v) {
				return target, fmt.Errorf("kafka_version %s: older than broker %d's %s; a rolling upgrade does not downgrade", e.KafkaVersion, node+1, v)
			}
		}
		target += " to Kafka " + e.KafkaVersion
	}
	mvBefore := h.metadataVersion(ctx)
	defer func() {
		mvAfter := h.metadataVersion(context.WithoutCancel(ctx))
		after := h.versions()
		vs := make([]runs.BrokerVersion, len(before))
		for k := range before {
			vs[k] = runs.BrokerVersion{Node: k + 1, Before: before[k], After: before[k]}
			if k < len(after) {
				vs[k].After = after[k]
			}
		}
		r.set(i, func(ev *runs.Event) {
			ev.Versions, ev.MetadataVersionBefore, ev.MetadataVersionAfter = vs, mvBefore, mvAfter
		})
	}()
	version := ""
	if e.Action == scenarios.ActionBrokerRollingUpgrade {
		version = e.KafkaVersion
	}
	for node := 1; node <= n; node++ {
		if ctx.Err() != nil {
			return target, fmt.Errorf("stopped after %d of %d brokers: the measurement window ended (give the run a longer duration: each step is a shutdown, a start, the wait for in-sync replicas and the pause %v)",
				node-1, n, e.Pause)
		}
		st, err := r.rollingStep(ctx, h, node, version)
		if err == nil {
			// After the last broker too: its span then holds what its
			// restart did to the groups. The window's end cuts it short.
			r.wait(ctx, e.Pause)
		}
		st.SpanEndNs = r.nowNs()
		c := h.counts()
		st.Redeliveries = c.Redelivered - st.Redeliveries
		st.DuplicateCompletions = c.Duplicates - st.DuplicateCompletions
		r.set(i, func(ev *runs.Event) { ev.Steps = append(ev.Steps, st) })
		if err != nil {
			return target, fmt.Errorf("broker %d: %w", node, err)
		}
		fmt.Fprintf(r.log, "    %s: broker %d back in %.1fs (shutdown %.1fs, start %.1fs, in sync %.1fs); group coordinator %d → %d%s\n",
			e.Action, node, float64(st.EndNs-st.StartNs)/1e9, st.ShutdownSec, st.StartupSec, st.InSyncSec,
			st.GroupCoordinatorBefore, st.GroupCoordinatorAfter, shareCoordinatorLine(st))
	}
	return target, nil
}

// rollingStep restarts one broker and measures it. The step's Redeliveries
// and DuplicateCompletions hold the counters at its start; rolling turns
// them into the growth over the span.
func (r *eventRunner) rollingStep(ctx context.Context, h rollingHost, node int, version string) (runs.RollingStep, error) {
	vs := h.versions()
	st := runs.RollingStep{Broker: node, GroupCoordinatorBefore: -1, GroupCoordinatorAfter: -1}
	if node-1 < len(vs) {
		st.VersionBefore, st.VersionAfter = vs[node-1], vs[node-1]
	}
	var lookupErrs []string
	g, sh, err := h.coordinators(ctx)
	st.GroupCoordinatorBefore, st.ShareCoordinatorBefore = g, sh
	if err != nil {
		lookupErrs = append(lookupErrs, "before: "+err.Error())
	}
	c := h.counts()
	st.Redeliveries, st.DuplicateCompletions = c.Redelivered, c.Duplicates
	st.StartNs = r.nowNs()

	sctx, cancel := r.stepContext(ctx, rollingRestartTimeout, fmt.Errorf("not back within %v (controlled shutdown, start, serving)", rollingRestartTimeout))
	t, err := h.restart(sctx, node, version)
	cancel()
	st.ShutdownSec, st.StartupSec, st.KilledAfterGrace = t.Shutdown.Seconds(), t.Start.Seconds(), t.Killed
	if vs := h.versions(); node-1 < len(vs) {
		st.VersionAfter = vs[node-1]
	}
	if err != nil {
		st.EndNs = r.nowNs()
		st.Error = err.Error()
		return st, err
	}
	served := r.nowNs()
	sctx, cancel = r.stepContext(ctx, rollingSyncTimeout, fmt.Errorf("under-replicated partitions remained %v after the broker served again", rollingSyncTimeout))
	err = h.inSync(sctx, node)
	cancel()
	st.EndNs = r.nowNs()
	st.InSyncSec = float64(st.EndNs-served) / 1e9
	if err != nil {
		st.Error = err.Error()
		return st, err
	}
	g, sh, err = h.coordinators(ctx)
	st.GroupCoordinatorAfter, st.ShareCoordinatorAfter = g, sh
	if err != nil {
		lookupErrs = append(lookupErrs, "after: "+err.Error())
	}
	st.CoordinatorErrors = strings.Join(lookupErrs, "; ")
	return st, nil
}

// stepContext bounds one part of a step by d (cause when it passes). It is
// detached from ctx, which ends with the window (the step under way
// finishes, so no broker is left down), but ends with the run's own context
// (Ctrl-C, a failed run): the campaign is stopping and stops the cluster.
func (r *eventRunner) stepContext(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	sctx, cancel := context.WithTimeoutCause(context.WithoutCancel(ctx), d, cause)
	if r.parent == nil {
		return sctx, cancel
	}
	stop := context.AfterFunc(r.parent, cancel)
	return sctx, func() { stop(); cancel() }
}

func shareCoordinatorLine(st runs.RollingStep) string {
	if st.ShareCoordinatorBefore == nil && st.ShareCoordinatorAfter == nil {
		return ""
	}
	s := func(p *int32) string {
		if p == nil {
			return "?"
		}
		return strconv.Itoa(int(*p))
	}
	return "; share coordinator " + s(st.ShareCoordinatorBefore) + " → " + s(st.ShareCoordinatorAfter)
}

// clusterRolling is the run's rollingHost: the cluster's faults (and its
// Rolling, for upgrades and the restart's times), the run's admin client
// and group, and the load's counters.
type clusterRolling struct {
	s     *runSetup
	count func() results.Counts
}

func (c clusterRolling) nodes() int { return c.s.cl.Nodes() }

func (c clusterRolling) counts() results.Counts { return c.count() }

// versions is each broker's release: the provider's when it tracks them
// (process), else the cluster's for every node.
func (c clusterRolling) versions() []string {
	if ro, err := infra.RollingOf(c.s.cl); err == nil {
		return ro.BrokerVersions()
	}
	out := make([]string, c.s.cl.Nodes())
	for i := range out {
		out[i] = c.s.cl.KafkaVersion()
	}
	return out
}

// restart restarts node on version ("": the release it runs): through
// Rolling when the provider has it (an upgrade needs it), with
// rollingShutdownGrace, else Faults' RestartBroker (its own grace, no
// times).
func (c clusterRolling) restart(ctx context.Context, node int, version string) (infra.RestartTimes, error) {
	if ro, err := infra.RollingOf(c.s.cl); err == nil {
		return ro.RestartBrokerOn(ctx, node, version, rollingShutdownGrace)
	} else if version != "" {
		return infra.RestartTimes{}, err
	}
	f, err := infra.FaultsOf(c.s.cl)
	if err != nil {
		return infra.RestartTimes{}, err
	}
	began := time.Now()
	err = f.RestartBroker(ctx, node)
	return infra.RestartTimes{Start: time.Since(began)}, err
}

// metadataVersion reads the cluster's finalized metadata.version level
// (bounded by infra.ReadFeatures' 10 s); 0 when it cannot.
func (c clusterRolling) metadataVersion(ctx context.Context) int16 {
	f, err := infra.ReadFeatures(ctx, c.s.cl.Bootstrap())
	if err != nil {
		return 0
	}
	return f.Finalized["metadata.version"]
}

// inSync waits until metadata lists node and every partition of every
// topic (internal ones included) has its ISR equal to its replicas.
func (c clusterRolling) inSync(ctx context.Context, node int) error {
	var last error
	err := retry.Do(ctx, retry.Policy{Wait: 250 * time.Millisecond, MaxWait: 2 * time.Second, AttemptTimeout: 10 * time.Second},
		func(ctx context.Context) error {
			last = underReplicated(ctx, c.s.adm, int32(node))
			return last
		})
	if err != nil && last != nil {
		return fmt.Errorf("%w (last: %v)", context.Cause(ctx), last)
	}
	return err
}

// underReplicated returns nil once metadata lists node and no partition is
// under-replicated, else an error naming the first such partition.
func underReplicated(ctx context.Context, a *admin, node int32) error {
	md, err := a.adm.Metadata(ctx)
	if err != nil {
		return err
	}
	if !slices.Contains(md.Brokers.NodeIDs(), node) {
		return fmt.Errorf("metadata does not list broker %d yet (listed: %v)", node, md.Brokers.NodeIDs())
	}
	urp := 0
	var first string
	for _, t := range md.Topics.Sorted() {
		if t.Err != nil {
			return fmt.Errorf("topic %q: %w", t.Topic, t.Err)
		}
		for _, p := range t.Partitions.Sorted() {
			if !sameReplicas(p.ISR, p.Replicas) {
				if urp == 0 {
					first = fmt.Sprintf("%s-%d (replicas %v, isr %v)", t.Topic, p.Partition, p.Replicas, p.ISR)
				}
				urp++
			}
		}
	}
	if urp > 0 {
		return fmt.Errorf("%d under-replicated partition(s), first %s", urp, first)
	}
	return nil
}

// sameReplicas reports whether isr holds exactly the replicas.
func sameReplicas(isr, replicas []int32) bool {
	if len(isr) != len(replicas) {
		return false
	}
	for _, r := range replicas {
		if !slices.Contains(isr, r) {
			return false
		}
	}
	return true
}

// coordinators looks up the run's group coordinator and, for a share run,
// the share coordinator of partition 0's share-partition state; -1 (or
// nil) and an error for a lookup that failed within rollingLookupTimeout.
func (c clusterRolling) coordinators(ctx context.Context) (int32, *int32, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollingLookupTimeout)
	defer cancel()
	pol := retry.Policy{Wait: 200 * time.Millisecond, MaxWait: time.Second, AttemptTimeout: 5 * time.Second}
	var errs []error
	group := int32(-1)
	if err := retry.Do(ctx, pol, func(ctx context.Context) error {
		id, err := GroupCoordinator(ctx, c.s.adm.cl, c.s.group)
		if err == nil {
			group = id
		}
		return err
	}); err != nil {
		errs = append(errs, fmt.Errorf("group coordinator: %w", err))
	}
	if !c.s.share {
		return group, nil, errors.Join(errs...)
	}
	share := int32(-1)
	if err := retry.Do(ctx, pol, func(ctx context.Context) error {
		md, err := c.s.adm.adm.Metadata(ctx, c.s.topic)
		if err != nil {
			return err
		}
		t, ok := md.Topics[c.s.topic]
		if !ok || t.Err != nil {
			return fmt.Errorf("topic %q: no metadata", c.s.topic)
		}
		id, err := ShareCoordinator(ctx, c.s.adm.cl, c.s.group, t.ID, 0)
		if err == nil {
			share = id
		}
		return err
	}); err != nil {
		errs = append(errs, fmt.Errorf("share coordinator: %w", err))
	}
	return group, &share, errors.Join(errs...)
}
