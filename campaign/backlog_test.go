package campaign

import (
	"math"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

func backlogSpec(typ string, records int) scenarios.RunSpec {
	s := baseSpec()
	s.ConsumerType, s.LoadMode, s.BacklogRecords = typ, "backlog", records
	s.Producers = 2
	return s
}

// checkBacklog: every record drained, the audit balances, and the reported
// throughput is the backlog over the drain.
func checkBacklog(t *testing.T, m *Measured, s scenarios.RunSpec) {
	t.Helper()
	r := m.Record
	n := int64(s.BacklogRecords)
	if !r.Audit.Balanced || r.Audit.Produced != n || r.Audit.CompletedOnce+r.Audit.Duplicates != n || r.Audit.Lost != 0 || r.Audit.InFlight != 0 {
		t.Errorf("%s: audit %+v, want %d records completed and balanced", s.ConsumerType, r.Audit, n)
	}
	if r.Phases.DrainTimedOut || r.Phases.DrainSec <= 0 || r.Phases.FillSec <= 0 {
		t.Errorf("%s: phases %+v", s.ConsumerType, r.Phases)
	}
	if got := r.Throughput.CompletedPerSec * r.Phases.DrainSec; math.Abs(got-float64(n)) > 0.01*float64(n) {
		t.Errorf("%s: completed_per_sec %.1f × drain %.3fs = %.0f, want ≈ %d", s.ConsumerType,
			r.Throughput.CompletedPerSec, r.Phases.DrainSec, got, n)
	}
	if r.Latency.CompletionMs.Count != n {
		t.Errorf("%s: completion latency over %d records, want all %d", s.ConsumerType, r.Latency.CompletionMs.Count, n)
	}
	if r.Throughput.OfferedPerSec != 0 || r.Ceiling.ProducerRate != 0 || r.Ceiling.Bound == "producer" {
		t.Errorf("%s: backlog run reports a producer rate: %+v %+v", s.ConsumerType, r.Throughput, r.Ceiling)
	}
	if len(r.Errors) > 0 {
		t.Errorf("%s: run errors: %v", s.ConsumerType, r.Errors)
	}
}

// A backlog run on kfake: the fill is acknowledged before the consumers
// start, both group types drain all of it with a balanced audit.
func TestBacklogRunOnKfake(t *testing.T) {
	ctx, cl := startKfake(t)
	for _, typ := range []string{"consumer", "share"} {
		s := backlogSpec(typ, 1001) // odd: the producers split it unevenly
		s.Members = 2
		s.Processing.Time = time.Millisecond
		m, err := RunOne(ctx, cl, s, "kfake-backlog-"+typ, testLog(t))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		t.Logf("%s: fill %.2fs drain %.2fs completed %.0f/s ceiling %.0f (%s)", typ, m.Record.Phases.FillSec,
			m.Record.Phases.DrainSec, m.Record.Throughput.CompletedPerSec, m.Record.Ceiling.RecordsPerSec, m.Record.Ceiling.Bound)
		checkBacklog(t, m, s)
	}
}
