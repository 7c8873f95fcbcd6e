package poc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

const minimal = `name: orders
steady_rate: 1000
processing: {model: lognormal, median: 10ms, p99: 50ms}
partitions: 4
`

func writeProfile(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadProfileDefaults(t *testing.T) {
	path := writeProfile(t, minimal)
	p, err := LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Profile{Name: "orders", Source: path, SteadyRate: 1000, PeakRate: 1000,
		Processing: scenarios.Processing{Model: "lognormal", Median: 10 * time.Millisecond, P99: 50 * time.Millisecond},
		Workers:    1, Partitions: 4, RecordBytes: 1024, Keys: "none", DeliveryLimit: 5, Client: "franz-go", Budget: 15 * time.Minute,
		Restrictions: Restrictions{Framework: "plain", Platform: "apache", KafkaVersion: "4.2.2"}}
	if *p != want {
		t.Errorf("got  %+v\nwant %+v", *p, want)
	}
}

func TestLoadProfileFull(t *testing.T) {
	p, err := LoadProfile(writeProfile(t, minimal+`peak_rate: 3000
peak_for: 2m
workers: 4
record_bytes: 4KiB
keys: hot
restrictions:
  ordering_per_key: true
  framework: spring
  platform: msk_standard
  kafka_version: 4.1.1
  retention_bytes: 10GiB
  retention_time: 168h
transient_rate: 0.05
poison_rate: 0.001
delivery_limit: 3
destination: {write_time: 5ms, capacity: 2500}
client: java
budget: 30m
`))
	if err != nil {
		t.Fatal(err)
	}
	if p.PeakRate != 3000 || p.Workers != 4 || p.RecordBytes != 4096 || p.Restrictions.RetentionBytes != 10<<30 ||
		!p.Restrictions.OrderingPerKey || p.Destination == nil || p.Destination.Capacity != 2500 || p.Budget != 30*time.Minute {
		t.Errorf("%+v %+v", *p, p.Destination)
	}
}

// TestLoadProfileBadInput: every problem names the file, the line, the key
// and what is expected.
func TestLoadProfileBadInput(t *testing.T) {
	for _, c := range []struct {
		name, body, want string
	}{
		{"unknown key", minimal + "steady_rte: 5\n", `p.yaml:5: unknown key "steady_rte" (did you mean "steady_rate"?)`},
		{"unknown nested key", minimal + "restrictions:\n  ordering: true\n", `p.yaml:6: unknown key "ordering" in restrictions (did you mean "ordering_per_key"?)`},
		{"required", "name: x\npartitions: 4\n", "p.yaml:1: steady_rate: required"},
		{"rate NaN", strings.Replace(minimal, "1000", ".nan", 1), `p.yaml:2: steady_rate: expected a finite number, got ".nan"`},
		{"rate zero", strings.Replace(minimal, "1000", "0", 1), "p.yaml:2: steady_rate: expected records/s > 0 and ≤ 10000000 (the harness's limit), got 0"},
		{"rate above the limit", strings.Replace(minimal, "1000", "2e7", 1), "p.yaml:2: steady_rate: expected records/s > 0 and ≤ 10000000"},
		{"peak below steady", minimal + "peak_rate: 500\n", "p.yaml:5: peak_rate: expected records/s ≥ steady_rate (1000) and ≤ 10000000, got 500"},
		{"partitions", strings.Replace(minimal, "partitions: 4", "partitions: 0", 1), "p.yaml:4: partitions: expected partitions from 1 to 10000, got 0"},
		{"octal", strings.Replace(minimal, "partitions: 4", "partitions: 010", 1), "p.yaml:4: partitions: 010 has a leading zero (read as octal 8 by YAML); write 10"},
		{"processing model", strings.Replace(minimal, "model: lognormal", "model: gamma", 1), `p.yaml:3: processing.model: expected one of none, constant, uniform, exponential, lognormal, got "gamma"`},
		{"processing parameter", strings.Replace(minimal, "median: 10ms, ", "", 1), "p.yaml:3: processing.median: required by the lognormal model"},
		{"processing duration", strings.Replace(minimal, "median: 10ms", "median: ten", 1), `p.yaml:3: processing.median: expected a Go duration like 10ms, got "ten"`},
		{"processing none", strings.Replace(minimal, "{model: lognormal, median: 10ms, p99: 50ms}", "{model: none}", 1), "p.yaml:3: processing: expected a model with a mean processing time > 0"},
		{"failure rate", minimal + "poison_rate: 1\n", "p.yaml:5: poison_rate: expected a fraction of records ≥ 0 and < 1, got 1"},
		{"delivery limit", minimal + "delivery_limit: 11\n", "p.yaml:5: delivery_limit: expected deliveries (group.share.delivery.count.limit) from 2 to 10, got 11"},
		{"framework", minimal + "restrictions: {framework: flink}\n", `p.yaml:5: restrictions.framework: expected one of plain, spring, kafka_connect, kafka_streams, got "flink"`},
		{"platform", minimal + "restrictions: {platform: azure}\n", `p.yaml:5: restrictions.platform: expected one of apache, msk_standard, msk_express, confluent_cloud, other, got "azure"`},
		{"kafka version", minimal + "restrictions:\n  kafka_version: four\n", `p.yaml:6: restrictions.kafka_version: expected a Kafka version MAJOR.MINOR.PATCH like 4.2.0, got "four"`},
		{"a bool", minimal + "restrictions:\n  exactly_once: yes\n", `p.yaml:6: restrictions.exactly_once: expected true or false, got "yes"`},
		{"budget short", minimal + "budget: 30s\n", "p.yaml:5: budget: expected a Go duration from 1m0s to 24h0m0s, got 30s"},
		{"budget not a duration", minimal + "budget: soon\n", `p.yaml:5: budget: expected a Go duration like 30s or 15m, got "soon"`},
		{"two destinations", minimal + "destination: {embedded: true, write_time: 5ms, capacity: 100}\n", "p.yaml:5: destination: expected exactly one of dsn, embedded: true, or write_time with capacity, got embedded and write_time and capacity"},
		{"write time alone", minimal + "destination: {write_time: 5ms}\n", "p.yaml:5: destination: expected write_time and capacity together (a modelled write needs both), got only write_time"},
		{"connections with a modelled write", minimal + "destination: {write_time: 5ms, capacity: 100,\n  connections: 2}\n", "p.yaml:6: destination.connections: expected only with dsn or embedded: true"},
		{"connections 0", minimal + "destination: {embedded: true,\n  connections: 0}\n", "p.yaml:6: destination.connections: expected a whole number from 1 to 250 (the connections a run may open), got 0"},
		{"connections 251", minimal + "destination: {embedded: true,\n  connections: 251}\n", "p.yaml:6: destination.connections: expected a whole number from 1 to 250 (the connections a run may open), got 251"},
		{"capacity infinite", minimal + "destination: {write_time: 5ms, capacity: .inf}\n", `p.yaml:5: destination.capacity: expected a finite number, got ".inf"`},
		{"a list for a value", minimal + "workers: [1, 2]\n", "p.yaml:5: workers: expected a single value, got a list"},
		{"restrictions not a map", minimal + "restrictions: true\n", "p.yaml:5: restrictions: expected a map of ordering_per_key"},
		{"empty value", minimal + "client:\n", "p.yaml:5: client: no value; remove the key to use the default"},
		{"client", minimal + "client: sarama\n", `p.yaml:5: client: expected one of franz-go, java, librdkafka, spring, got "sarama"`},
		{"name", strings.Replace(minimal, "orders", "my orders!", 1), `p.yaml:1: name: expected letters, digits`},
		{"record size", minimal + "record_bytes: 2MiB\n", "p.yaml:5: record_bytes: expected bytes from 1 to 1048576, got 2097152"},
		{"a key twice", minimal + "steady_rate: 5\n", "p.yaml:5: steady_rate: given twice (first at line 2)"},
		{"processing not a map", strings.Replace(minimal, "{model: lognormal, median: 10ms, p99: 50ms}", "10ms", 1), `p.yaml:3: processing: expected a map like {model: constant, time: 10ms}, got the value "10ms"`},
		{"two documents", minimal + "---\nname: other\n", "p.yaml:5: a second YAML document starts here"},
		{"not a map", "- a\n", "p.yaml:1: a profile is a YAML mapping of keys to values, got a list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadProfile(writeProfile(t, c.body))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant it to contain %q", err, c.want)
			}
		})
	}
}

// TestLoadProfileDSN: a bad dsn is refused without quoting it.
func TestLoadProfileDSN(t *testing.T) {
	const secret = "s3cr3t-pass"
	_, err := LoadProfile(writeProfile(t, minimal+"destination:\n  dsn: \"postgres://u:"+secret+"@db:notaport/x\"\n"))
	if err == nil || !strings.Contains(err.Error(), "p.yaml:6: destination.dsn: expected a PostgreSQL connection string") || strings.Contains(err.Error(), secret) {
		t.Errorf("error %v", err)
	}
	p, err := LoadProfile(writeProfile(t, minimal+"destination:\n  dsn: \"postgres://u:"+secret+"@db:5432/x\"\n"))
	if err != nil || p.Destination.DSN == "" {
		t.Fatalf("%v", err)
	}
}

func TestLoadProfileNoFile(t *testing.T) {
	if _, err := LoadProfile(filepath.Join(t.TempDir(), "none.yaml")); err == nil {
		t.Error("no error for a missing file")
	}
	if _, err := LoadProfile(t.TempDir()); err == nil || !strings.Contains(err.Error(), "a directory: expected a profile file") {
		t.Errorf("a directory: %v", err)
	}
}
