package scenarios

import (
	"testing"
	"time"
)

func TestPredictedAcquisitionAndLockExpiryRisk(t *testing.T) {
	s := RunSpec{ConsumerType: "share", Fleet: Fleet{MaxPollRecords: 200, Workers: 1},
		Acquisition: Acquisition{AcquireMode: "record_limit"},
		Partitions:  2, Producer: Producer{Producers: 1, Rate: 800, MessageSize: 256, BatchSize: 16384, Linger: 5 * time.Millisecond},
		Processing: Processing{Model: "constant", Time: 5 * time.Millisecond},
		Cluster:    Cluster{BrokerConfig: map[string]string{KeyRecordLocks: "100"}}}
	if got := s.PredictedAcquisition(); got != 100 {
		t.Errorf("record_limit mpr 200, 100 locks: %d, want 100 (the locks cap it)", got)
	}
	s.AcquireMode, s.MaxPollRecords = "batch_optimized", 1
	// rate mode: 800/s ÷ 2 partitions × 5 ms = 2 records per batch.
	if got := s.PredictedAcquisition(); got != 2 {
		t.Errorf("batch_optimized rate mode: %d, want 2", got)
	}
	s.LoadMode = "backlog" // full batches: 16384 ÷ 266 = 61
	if got := s.PredictedAcquisition(); got != 61 {
		t.Errorf("batch_optimized backlog: %d, want 61", got)
	}
	s.AcquireMode, s.MaxPollRecords = "record_limit", 100
	s.Processing.Time = 400 * time.Millisecond // 100 × 400 ms = 40 s > 30 s
	if risk, batch := s.LockExpiryRisk(); !risk || batch != 40*time.Second {
		t.Errorf("risk %v batch %v, want true 40s", risk, batch)
	}
	s.Workers = 2 // 20 s
	if risk, _ := s.LockExpiryRisk(); risk {
		t.Error("20 s batches against a 30 s lock: risk")
	}
	s.Workers, s.Renew = 1, "auto"
	if risk, _ := s.LockExpiryRisk(); risk {
		t.Error("renew auto: risk")
	}
}
