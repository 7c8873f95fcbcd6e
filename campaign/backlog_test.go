package campaign

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

func backlogSpec(typ vocab.GroupType, records int) scenarios.RunSpec {
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
	// The drain cannot beat the workers: each record takes at least P ms on
	// one of active × workers workers, so drain ≥ backlog × P ÷ (active ×
	// workers × 1000) and completed_per_sec ≤ active × workers × 1000 ÷ P
	// (1 % for the clock reads at the drain's edges). This is independent of
	// the harness's own ceiling figure; completed_per_sec × drain = backlog,
	// checked here before, holds by construction (completions ÷ drain).
	minDrain := backlogDrainFloor(s)
	if r.Phases.DrainSec < 0.99*minDrain {
		t.Errorf("%s: drained %d records in %.3fs, faster than the workers can: formula floor %.3fs", s.ConsumerType, n, r.Phases.DrainSec, minDrain)
	}
	if limit := float64(n) / minDrain; r.Throughput.CompletedPerSec > 1.01*limit {
		t.Errorf("%s: completed_per_sec %.1f above the worker ceiling %.1f", s.ConsumerType, r.Throughput.CompletedPerSec, limit)
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

// backlogDrainFloor is the formula drain time of a backlog run: backlog ×
// P ÷ (active members × workers × 1000) seconds, P the processing time in
// ms; a consumer group's active members are at most its partitions.
func backlogDrainFloor(s scenarios.RunSpec) float64 {
	active := s.Members
	if s.ConsumerType == "consumer" {
		active = min(active, s.Partitions)
	}
	p := float64(s.Processing.Time) / float64(time.Millisecond)
	return float64(s.BacklogRecords) * p / (float64(active*max(1, s.Workers)) * 1000)
}

// A backlog run on kfake: the fill is acknowledged before the consumers
// start, both group types drain all of it with a balanced audit.
func TestBacklogRunOnKfake(t *testing.T) {
	ctx, cl := startKfake(t)
	for _, typ := range vocab.GroupTypes {
		s := backlogSpec(typ, 1001) // odd: the producers split it unevenly
		s.Members = 2
		s.Processing.Time = time.Millisecond
		m, err := RunOne(ctx, cl, s, "kfake-backlog-"+string(typ), testLog(t))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		t.Logf("%s: fill %.2fs drain %.2fs completed %.0f/s ceiling %.0f (%s)", typ, m.Record.Phases.FillSec,
			m.Record.Phases.DrainSec, m.Record.Throughput.CompletedPerSec, m.Record.Ceiling.RecordsPerSec, m.Record.Ceiling.Bound)
		checkBacklog(t, m, s)
	}
}

// The drain floor formula on the integration test's numbers and on the
// consumer-group partition bound.
func TestBacklogDrainFloor(t *testing.T) {
	s := backlogSpec("share", 4000)
	s.Members, s.Workers, s.Processing.Time = 4, 1, 10*time.Millisecond
	if got := backlogDrainFloor(s); got != 10 {
		t.Errorf("share 4 × 1 × 10 ms, 4000 records: %v s, want 10", got)
	}
	s.ConsumerType, s.Members, s.Partitions, s.Workers = "consumer", 8, 2, 2
	if got := backlogDrainFloor(s); got != 10 {
		t.Errorf("consumer 8 members on 2 partitions × 2 workers: %v s, want 10", got)
	}
}

// A backlog drain on a client runner (java, librdkafka) forms its group on
// the empty topic and starts its clock at the fill (formThenFill), since
// neither runner can hold consumption; franz-go's members join held after
// the fill.
func TestBacklogFormsOnEmptyTopicPerClient(t *testing.T) {
	for client, want := range map[vocab.Client]bool{vocab.ClientFranzGo: false, "": false, vocab.ClientJava: true, vocab.ClientLibrdkafka: true} {
		for _, typ := range []vocab.GroupType{vocab.ShareGroup, vocab.ConsumerGroup} {
			s := backlogSpec(typ, 800)
			s.Client = client
			if got := formsOnEmptyTopic(s); got != want {
				t.Errorf("client %q, %s: forms on the empty topic %v, want %v", client, typ, got, want)
			}
		}
	}
}
