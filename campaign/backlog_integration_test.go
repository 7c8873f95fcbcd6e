//go:build integration

package campaign

import (
	"context"
	"testing"
	"time"
)

// On Kafka the measured drain time of a share group's backlog is within 25 %
// of the ceiling formula backlog ÷ worker ceiling (docs/explanation/measurement.md, "Drain time"; the
// members' ramp-up and poll overheads make it a little longer).
func TestBacklogDrainMatchesCeilingOnKafka(t *testing.T) {
	cl := needKafka(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s := backlogSpec("share", 4000)
	s.Members, s.MaxPollRecords = 4, 10
	s.Processing.Time = 10 * time.Millisecond // ceiling 4 × 1000/10 = 400 records/s → 10 s
	s.DrainTimeout = 40 * time.Second
	m, err := RunOne(ctx, cl, s, "backlog-share", testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	checkBacklog(t, m, s)
	r := m.Record
	predicted := float64(s.BacklogRecords) / r.Ceiling.Workers
	t.Logf("fill %.2fs, drain %.2fs, predicted %.2fs (ceiling %.0f/s), completed %.1f/s, completion p99 %.0f ms",
		r.Phases.FillSec, r.Phases.DrainSec, predicted, r.Ceiling.Workers, r.Throughput.CompletedPerSec, r.Latency.CompletionMs.P99)
	if r.Ceiling.Bound != "workers" || r.Ceiling.Workers != 400 {
		t.Errorf("ceiling %+v, want workers-bound 400/s", r.Ceiling)
	}
	if ratio := r.Phases.DrainSec / predicted; ratio < 0.97 || ratio > 1.25 {
		t.Errorf("drain %.2fs is %.2f× the predicted %.2fs, want 0.97–1.25×", r.Phases.DrainSec, ratio, predicted)
	}
}
