//go:build integration && long

package campaign

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// Bounds of one rolling step on a 3-node process cluster. Three broker JVMs
// and the harness saturate this project's 2 cores, so every figure has a
// wide margin:
//
//   - shutdown: a controlled shutdown moves the node's leaders away and
//     exits; 5–17 s here. A rolling step kills it after 60 s
//     (rollingShutdownGrace), so a step's shutdown is ≤ 60 s + 10 s to reap
//     = 70 s, and a kill fails the test (the shutdown must be controlled).
//   - start: the JVM's start until the readiness probe (metadata lists it,
//     a probe topic with a replica on it takes an acks=all record) took
//     19–57 s here; bound 90 s (over 1.5× the slowest seen, for a busy host).
//   - in sync: a follower down for the restart fetches the records it
//     missed (200 records/s × about 30 s of 256 B: under 2 MiB);
//     replica.lag.time.max.ms (30 s) is the broker's own bound on a
//     follower rejoining the ISR; bound 60 s.
//
// So a step is ≤ 70 + 90 + 60 = 220 s. Steps took 26–66 s here, and the
// roll (3 steps and 3 pauses of 5 s) ended 99–186 s into the window; the
// built-ins' window is 240 s, and the test fails when the last step ends
// after it (the roll's last broker would then be measured outside the
// window) or the window cut the roll short ("stopped after k of 3
// brokers").
const (
	rollingStepBound     = 220 * time.Second
	rollingShutdownBound = 70 * time.Second
)

// TestRollingRestartBuiltin runs the rolling-restart built-in (a consumer
// group, then a share group, on one 3-node cluster): every run balances its
// audit and loses nothing, its one event has 3 steps (brokers 1, 2, 3), none
// failed, each within the step bounds above, each with the group
// coordinator (and for the share run the share coordinator) found before
// and after, every broker on the cluster's release before and after. The
// JIT warm-up is skipped: the figures are about restarts, and a restarted
// broker's JIT starts cold anyway. About 7 min.
func TestRollingRestartBuiltin(t *testing.T) {
	needOwnCluster(t)
	sc := builtin(t, "rolling-restart")
	sc.JITWarmup = 0
	res, _ := runOnOwnCluster(t, sc, 25*time.Minute)
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs, want 2 (consumer, share)", len(res.Runs))
	}
	for _, r := range res.Runs {
		checkRollingRun(t, r, scenarios.ActionBrokerRollingRestart, "4.2.2", "4.2.2")
	}
	checkExpectations(t, res)
}

// TestRollingUpgradeBuiltin runs the rolling-upgrade built-in's share run
// (4.2.2 → 4.3.1 on its own 3-node cluster; the consumer run is the same
// roll on a second cluster, left out to keep the test near 7 min): the
// checks of TestRollingRestartBuiltin, and each step's broker on 4.2.2
// before and 4.3.1 after, and every broker 4.2.2 → 4.3.1 in run.json's
// broker_versions.
func TestRollingUpgradeBuiltin(t *testing.T) {
	needOwnCluster(t)
	sc := builtin(t, "rolling-upgrade")
	sc.JITWarmup = 0
	var share []scenarios.RunSpec
	for _, r := range sc.Runs {
		if r.ConsumerType == vocab.ShareGroup {
			share = append(share, r)
		}
	}
	sc.Runs = share
	res, _ := runOnOwnCluster(t, sc, 20*time.Minute)
	if len(res.Runs) != 1 {
		t.Fatalf("%d runs, want 1 (share)", len(res.Runs))
	}
	checkRollingRun(t, res.Runs[0], scenarios.ActionBrokerRollingUpgrade, "4.2.2", "4.3.1")
	checkExpectations(t, res)
}

func checkExpectations(t *testing.T, res *Result) {
	t.Helper()
	for _, e := range res.Expectations {
		t.Logf("expectation %q met=%v %s %s", e.Name, e.Met, e.Claim, e.Detail)
		if !e.Met {
			t.Errorf("expectation %q not met: %s", e.Name, e.Detail)
		}
	}
}

// checkRollingRun checks one run of a rolling built-in.
func checkRollingRun(t *testing.T, r runs.Record, action, from, to string) {
	t.Helper()
	a := r.Audit
	t.Logf("%s: produced %d, completed once %d, duplicates %d, lost %d, balanced %v", r.RunID, a.Produced, a.CompletedOnce, a.Duplicates, a.Lost, a.Balanced)
	if !a.Balanced || a.Lost != 0 {
		t.Errorf("%s: audit %+v", r.RunID, a)
	}
	if len(r.Events) != 1 || r.EventSummary == nil {
		t.Fatalf("%s: events %+v", r.RunID, r.Events)
	}
	e := r.Events[0]
	t.Logf("%s: %s", r.RunID, report.EventLine(r, e))
	for _, l := range report.RollingStepLines(e) {
		t.Logf("%s:   %s", r.RunID, l)
	}
	if e.Action != action || e.Error != "" {
		t.Errorf("%s: event %s: error %q", r.RunID, e.Action, e.Error)
	}
	t.Logf("%s: metadata.version %d → %d", r.RunID, e.MetadataVersionBefore, e.MetadataVersionAfter)
	if e.MetadataVersionBefore == 0 || e.MetadataVersionAfter != e.MetadataVersionBefore {
		t.Errorf("%s: metadata.version %d → %d, want read and unchanged", r.RunID, e.MetadataVersionBefore, e.MetadataVersionAfter)
	}
	if len(e.Steps) != 3 {
		t.Fatalf("%s: %d steps, want 3", r.RunID, len(e.Steps))
	}
	share := r.Spec.ConsumerType == vocab.ShareGroup
	for k, st := range e.Steps {
		if st.Broker != k+1 || st.Error != "" {
			t.Errorf("%s: step %d: broker %d, error %q", r.RunID, k+1, st.Broker, st.Error)
		}
		if st.VersionBefore != from || st.VersionAfter != to {
			t.Errorf("%s: broker %d: version %s → %s, want %s → %s", r.RunID, st.Broker, st.VersionBefore, st.VersionAfter, from, to)
		}
		if d := time.Duration(st.EndNs - st.StartNs); d <= 0 || d > rollingStepBound {
			t.Errorf("%s: broker %d: step took %v, want in (0, %v]", r.RunID, st.Broker, d, rollingStepBound)
		}
		if sd := time.Duration(st.ShutdownSec * 1e9); sd <= 0 || sd > rollingShutdownBound || st.KilledAfterGrace {
			t.Errorf("%s: broker %d: shutdown %v (killed %v), want a controlled shutdown within %v", r.RunID, st.Broker, sd, st.KilledAfterGrace, rollingShutdownBound)
		}
		if st.GroupCoordinatorBefore < 1 || st.GroupCoordinatorAfter < 1 {
			t.Errorf("%s: broker %d: group coordinator %d → %d (%s)", r.RunID, st.Broker, st.GroupCoordinatorBefore, st.GroupCoordinatorAfter, st.CoordinatorErrors)
		}
		if share != (st.ShareCoordinatorBefore != nil) || share != (st.ShareCoordinatorAfter != nil) {
			t.Errorf("%s: broker %d: share coordinator recorded %v/%v, want %v", r.RunID, st.Broker, st.ShareCoordinatorBefore != nil, st.ShareCoordinatorAfter != nil, share)
		} else if share && (*st.ShareCoordinatorBefore < 1 || *st.ShareCoordinatorAfter < 1) {
			t.Errorf("%s: broker %d: share coordinator %d → %d (%s)", r.RunID, st.Broker, *st.ShareCoordinatorBefore, *st.ShareCoordinatorAfter, st.CoordinatorErrors)
		}
		if st.SpanEndNs < st.EndNs {
			t.Errorf("%s: broker %d: span ends at %d before the step's end %d", r.RunID, st.Broker, st.SpanEndNs, st.EndNs)
		}
	}
	last := e.Steps[len(e.Steps)-1]
	t.Logf("%s: the roll ended %.1f s into the %v window", r.RunID, last.EndSec, r.Spec.Duration)
	if last.EndSec > r.Spec.Duration.Seconds() {
		t.Errorf("%s: the last step ended at +%.1fs, after the %v window", r.RunID, last.EndSec, r.Spec.Duration)
	}
	s := r.EventSummary
	if s.RollingSteps != 3 || s.RollingStepsFailed != 0 || len(s.BrokerVersions) != 3 {
		t.Errorf("%s: summary %+v", r.RunID, s)
	}
	for _, v := range s.BrokerVersions {
		if v.Before != from || v.After != to {
			t.Errorf("%s: broker %d: %s → %s, want %s → %s", r.RunID, v.Node, v.Before, v.After, from, to)
		}
	}
}
