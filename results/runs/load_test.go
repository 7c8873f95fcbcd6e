package runs

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

// A run.json written before the spec was typed (durations in nanoseconds,
// omitted empty fields, an environment list in campaign.json) still loads,
// and its spec answers selectors in scenario-file form.
func TestLoadOldRunJSON(t *testing.T) {
	dir := t.TempDir()
	run := `{"schema_version": 1, "run_id": "r01-share-pt10ms", "campaign": "old", "consumer_type": "share",
  "spec": {"consumer_type": "share", "partitions": 4, "producers": 1, "rate": 1000, "message_size": 256,
    "key_mode": "round-robin", "acks": "all", "linger": 5000000, "batch_size": 16384, "members": 4, "workers": 1,
    "max_poll_records": 100, "acquire_mode": "batch_optimized", "ack_mode": "explicit",
    "processing": {"model": "constant", "time": 10000000}, "transient_rate": 0, "poison_rate": 0,
    "warmup": 5000000000, "duration": 20000000000, "drain_timeout": 120000000000, "load_mode": "rate",
    "nodes": 1, "kafka_version": "4.2.2", "broker_heap": "1g",
    "broker_config": {"group.share.record.lock.duration.ms": "15000"}, "trial": 0},
  "throughput": {"completed_per_sec": 990.5}, "audit": {"produced": 10, "balanced": true}, "files": []}`
	camp := `{"schema_version": 1, "name": "old", "scenario": {"name": "old", "description": "Old?", "source": "x", "repeat": 1,
  "runs": []}, "environment": [{"provider": "process", "kafka_version": "4.2.2", "is_kafka": true, "nodes": 1,
  "host": {"os": "linux"}}], "runs": ["r01-share-pt10ms"]}`
	if err := os.MkdirAll(filepath.Join(dir, "runs", "r01-share-pt10ms"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "runs", "r01-share-pt10ms", "run.json"), []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "campaign.json"), []byte(camp), 0o644); err != nil {
		t.Fatal(err)
	}
	c, recs, err := LoadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Scenario == nil || c.Scenario.Description != "Old?" || len(c.Environment) != 1 || !c.Environment[0].IsKafka {
		t.Errorf("campaign %+v", c)
	}
	r := recs[0]
	if r.Spec == nil || r.Spec.Processing.Time != 10*time.Millisecond || r.Spec.Linger != 5*time.Millisecond {
		t.Fatalf("spec %+v", r.Spec)
	}
	for key, want := range map[string]string{"processing.time": "10ms", "max_poll_records": "100", "rate": "1000",
		"broker_config.group.share.record.lock.duration.ms": "15000", "linger": "5ms", "nope": ""} {
		if got := SpecValue(*r.Spec, key); got != want {
			t.Errorf("SpecValue(%s) = %q, want %q", key, got, want)
		}
	}
	if v := SpecValues(r.Spec); v["processing.min"] != "" || v["renew"] != "" || v["members"] != "4" {
		t.Errorf("SpecValues %v: empty omitted fields must stay absent", v)
	}
}

// The accessor table reads every knob as scenarios.RunSpec.Value formats
// it, the form where: selectors are normalized to.
func TestSpecValueMatchesRunSpecValue(t *testing.T) {
	s := scenarios.RunSpec{ConsumerType: "share", Partitions: 4,
		Producer: scenarios.Producer{Producers: 2, Rate: 1500.5, MessageSize: 512,
			KeyMode: "random", Acks: "all", Linger: 5 * time.Millisecond, BatchSize: 16384},
		Fleet:       scenarios.Fleet{Members: 8, Workers: 2, MaxPollRecords: 200},
		Acquisition: scenarios.Acquisition{AcquireMode: "record_limit", AckMode: "explicit", Renew: "auto"},
		Parallelism: scenarios.Parallelism{Style: "blocking", MaxInFlight: 3},
		Failures:    scenarios.Failures{TransientRate: 0.01, PoisonRate: 0.001},
		Phases: scenarios.Phases{Warmup: 5 * time.Second, Duration: 20 * time.Second,
			DrainTimeout: 2 * time.Minute, LoadMode: "backlog", BacklogRecords: 1000},
		Cluster: scenarios.Cluster{Nodes: 3, KafkaVersion: "4.2.2",
			BrokerHeap: "1g", BrokerConfig: map[string]string{"group.share.max.size": "500"}},
		Processing: scenarios.Processing{Model: "uniform", Min: time.Millisecond, Max: 3 * time.Millisecond}}
	keys := []string{"processing", "broker_config.group.share.max.size"}
	for _, k := range knobs {
		keys = append(keys, k.key)
	}
	for _, k := range processingKnobs {
		keys = append(keys, "processing."+k.key)
	}
	for _, k := range keys {
		if got, want := SpecValue(s, k), s.Value(k); got != want {
			t.Errorf("%s: %q, RunSpec.Value %q", k, got, want)
		}
	}
}
