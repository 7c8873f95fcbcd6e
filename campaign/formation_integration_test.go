//go:build integration

package campaign

import (
	"context"
	"testing"
	"time"
)

// A consumer-group drain whose batches (20 records × 100 ms = 2 s) are
// longer than a rebalance: without a formed group the first member to join
// takes every partition and its first batch holds the later joins
// (BlockRebalanceOnPoll), and the drain measured 1.6–2.2× the formula.
// With the group formed before the clock starts, the drain is within 10 %
// of backlog × P ÷ (partitions × 1000).
func TestConsumerGroupDrainMatchesFormulaOnKafka(t *testing.T) {
	cl := needKafka(t)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	s := backlogSpec("consumer", 1000)
	s.Partitions, s.Members, s.Workers, s.MaxPollRecords = 4, 6, 1, 20
	s.Processing.Time = 100 * time.Millisecond // 1000 × 100 ÷ (4 × 1000) = 25 s
	s.DrainTimeout = 90 * time.Second
	m, err := RunOne(ctx, cl, s, "formed-consumer", testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	checkBacklog(t, m, s)
	checkFormulaDrain(t, m.Record.Phases.DrainSec, 1000*100/(4*1000.0))
	if ph := m.Record.Phases; ph.GroupFormationSec <= 0 || ph.FormationRounds < 1 {
		t.Errorf("formation not reported: %+v", ph)
	}
}

// The same for a share group when locks do not bind: backlog × P ÷
// (members × workers × 1000). Batches of 50 × 20 ms = 1 s and prefetch on
// keep the poll round trip out of the workers' time (with 10 records per
// poll and no prefetch the drain measured 1.3× the formula: a fetch and
// acknowledgement round trip per 200 ms batch).
func TestShareGroupDrainMatchesFormulaOnKafka(t *testing.T) {
	cl := needKafka(t)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	s := backlogSpec("share", 4000)
	s.Partitions, s.Members, s.Workers, s.MaxPollRecords = 2, 4, 1, 50
	s.AcquireMode, s.Prefetch = "record_limit", "on"
	s.Processing.Time = 20 * time.Millisecond // 4000 × 20 ÷ (4 × 1 × 1000) = 20 s
	s.DrainTimeout = 90 * time.Second
	m, err := RunOne(ctx, cl, s, "formed-share", testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	checkBacklog(t, m, s)
	checkFormulaDrain(t, m.Record.Phases.DrainSec, 4000*20/(4*1000.0))
	if c := m.Record.Ceiling; c.Bound != "workers" {
		t.Errorf("ceiling %+v, want workers-bound (locks do not bind: 2 consumers × 10 ≤ 2000)", c)
	}
}

func checkFormulaDrain(t *testing.T, measured, predicted float64) {
	t.Helper()
	t.Logf("drain: formula %.2fs, measured %.2fs (%.3f×)", predicted, measured, measured/predicted)
	if r := measured / predicted; r < 0.97 || r > 1.10 {
		t.Errorf("drain %.2fs is %.3f× the formula's %.2fs, want within 10 %%", measured, r, predicted)
	}
}
