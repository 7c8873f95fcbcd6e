package runs

import (
	"encoding/json"
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
	v := SpecValues(r.Spec)
	if _, ok := v["processing.min"]; ok || v["renew"] != "" || v["members"] != "4" {
		t.Errorf("SpecValues %v: the model's missing parameters stay absent, unset knobs are empty", v)
	}
}

// SpecValues has every scalar key of a run spec: held against the keys
// encoding/json writes for a spec whose every field is set (maps, lists and
// the events are not knobs), so a field added to RunSpec cannot be missing
// from where: selectors, sweeps and recommendations. The keys the hand-kept
// list once lacked (prefetch, fetch_*, stuck_rate, shards) are read.
func TestSpecValuesHaveEveryScalarKey(t *testing.T) {
	s := scenarios.RunSpec{ConsumerType: "share", Client: "java", Partitions: 4, Shards: 2,
		Producer: scenarios.Producer{Producers: 2, Rate: 1500.5, MessageSize: 512,
			KeyMode: "random", Acks: "all", Linger: 5 * time.Millisecond, BatchSize: 16384},
		Fleet:       scenarios.Fleet{Members: 8, Workers: 2, MaxPollRecords: 200},
		Acquisition: scenarios.Acquisition{AcquireMode: "record_limit", AckMode: "explicit", Renew: "auto"},
		Parallelism: scenarios.Parallelism{Style: "blocking", MaxInFlight: 3},
		Failures:    scenarios.Failures{TransientRate: 0.01, PoisonRate: 0.001, StuckRate: 0.002},
		Phases: scenarios.Phases{Warmup: 5 * time.Second, Duration: 20 * time.Second,
			DrainTimeout: 2 * time.Minute, LoadMode: "backlog", BacklogRecords: 1000},
		Cluster: scenarios.Cluster{Nodes: 3, KafkaVersion: "4.2.2",
			BrokerHeap: "1g", BrokerConfig: map[string]string{"group.share.max.size": "500"}},
		Fetch: scenarios.Fetch{Prefetch: "off", FetchMaxBytes: 1 << 20, FetchMaxPartitionBytes: 1 << 18,
			FetchMaxWait: 100 * time.Millisecond, FetchMinBytes: 1},
		ConsumerGroup: scenarios.ConsumerGroup{GroupProtocol: "classic", RemoteAssignor: "uniform", Assignor: "range",
			StaticMembership: true, Commit: "auto", AutoCommitInterval: time.Second,
			SessionTimeout: 6 * time.Second, RebalanceTimeout: 9 * time.Second},
		HashedKeys: scenarios.HashedKeys{Keys: 10, HotKeys: scenarios.HotKeys{Share: 0.5, Keys: 2}},
		Processing: scenarios.Processing{Model: "uniform", Min: time.Millisecond, Max: 3 * time.Millisecond}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	got := SpecValues(&s)
	for k, v := range doc {
		switch v.(type) {
		case []any:
			continue
		case map[string]any:
			if k != "hot_keys" {
				continue
			}
		}
		if k == "trial" {
			continue
		}
		if _, ok := got[k]; !ok {
			t.Errorf("run.json key %q (value %v) is not in SpecValues", k, v)
		}
	}
	for k, want := range map[string]string{"prefetch": "off", "fetch_max_wait": "100ms", "fetch_min_bytes": "1",
		"fetch_max_bytes": "1048576", "fetch_max_partition_bytes": "262144", "stuck_rate": "0.002", "shards": "2",
		"processing.min": "1ms", "processing.max": "3ms", "processing.model": "uniform", "hot_keys": "50%-2",
		"broker_config.group.share.max.size": "500", "members": "8"} {
		if got[k] != want {
			t.Errorf("SpecValues[%s] = %q, want %q", k, got[k], want)
		}
		if v := SpecValue(s, k); v != want {
			t.Errorf("SpecValue(%s) = %q, want %q", k, v, want)
		}
	}
	if _, ok := got["processing.time"]; ok {
		t.Error("processing.time: a parameter the uniform model does not have is listed")
	}
}

// A sweep through zero is a dimension: 0 is a value like any other.
func TestSweptDimensionsThroughZero(t *testing.T) {
	a, b := scenarios.RunSpec{}, scenarios.RunSpec{}
	b.TransientRate = 0.01
	keys, values := SweptDimensions([]map[string]string{SpecValues(&a), SpecValues(&b)})
	if len(keys) != 1 || keys[0] != "transient_rate" || len(values["transient_rate"]) != 2 {
		t.Errorf("swept %v %v, want transient_rate [0 0.01]", keys, values["transient_rate"])
	}
}
