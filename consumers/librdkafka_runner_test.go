package consumers

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/connection"
	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/results"
)

// These tests start the librdkafka runner's Python (never a broker, never
// confluent-kafka: the runner imports it only when a member joins).

func needPython(t *testing.T) {
	t.Helper()
	testkit.NeedTools(t, "python3")
}

// TestLibrdkafkaRunnerUnitTests runs the runner's own unit tests
// (rdkafkarunner/test_runner.py): the shared vectors (stamps, poison draws,
// SBRF frames with a CRC-32C known answer), the configuration's refusals and
// the client properties each knob becomes.
func TestLibrdkafkaRunnerUnitTests(t *testing.T) {
	needPython(t)
	cmd := exec.Command("python3", "-B", "-m", "unittest", "-v", "test_runner")
	cmd.Dir = "rdkafkarunner"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "OK") {
		t.Fatalf("no OK in the unittest output:\n%s", out)
	}
}

// TestLibrdkafkaRunnerControlChannel starts runner.py (with the host's
// python3: no member joins, so confluent-kafka is not imported) through the
// same fleet code as the Java runner: its hello, the clock alignment over
// ping/pong, and a clean stop.
func TestLibrdkafkaRunnerControlChannel(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "runner.py"), librdkafkaRunnerSrc, 0o644); err != nil {
		t.Fatal(err)
	}
	clock := results.NewClock()
	rec := results.NewRecorder(clock, 7, results.NewLedger(1, 10), results.NewSeries(clock.Now(), 60))
	c := Config{Brokers: []string{"127.0.0.1:1"}, Topic: "t", Group: "g", Type: ShareGroup, Members: 0, Workers: 1,
		MaxPollRecords: 1, Acquire: AcquireBatchOptimized, Ack: AckExplicit, Processing: Processing{Model: ModelNone},
		Style: StyleBlocking, Client: ClientLibrdkafka, CloseTimeout: 2 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j, err := startRunner(ctx, c, rec, "librdkafka runner", func(cfgFile string) *exec.Cmd {
		return exec.Command("python3", "-B", "-u", filepath.Join(dir, "runner.py"), cfgFile)
	})
	if err != nil {
		t.Fatal(err)
	}
	cc, ok := rec.ClientClock()
	if !ok || cc.BoundNs <= 0 || cc.BoundNs > int64(50*time.Millisecond) {
		t.Errorf("clock alignment %+v (ok %v): want a bound within (0, 50ms]", cc, ok)
	}
	// Both clocks are Unix time read once plus CLOCK_MONOTONIC: the offset
	// is the difference of two wall-clock reads, well under a second.
	if cc.OffsetNs < -int64(time.Second) || cc.OffsetNs > int64(time.Second) {
		t.Errorf("clock offset %v: want within ±1s", time.Duration(cc.OffsetNs))
	}
	t.Logf("librdkafka runner clock: offset %v, bound %v", time.Duration(cc.OffsetNs), time.Duration(cc.BoundNs))
	cancel()
	if err := j.Wait(); err != nil {
		t.Fatalf("runner did not stop cleanly: %v", err)
	}
}

// TestLibrdkafkaRunnerBadConfig: a configuration the runner refuses ends it
// with code 2 and the reason, which the fleet reports.
func TestLibrdkafkaRunnerBadConfig(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "runner.py"), librdkafkaRunnerSrc, 0o644); err != nil {
		t.Fatal(err)
	}
	clock := results.NewClock()
	rec := results.NewRecorder(clock, 7, results.NewLedger(1, 10), results.NewSeries(clock.Now(), 60))
	c := Config{Brokers: []string{"127.0.0.1:1"}, Topic: "t", Group: "g", Type: ShareGroup, Members: 0, Workers: 1,
		MaxPollRecords: 1, Acquire: AcquireRecordLimit, Ack: AckExplicit, Processing: Processing{Model: ModelNone},
		Style: StyleBlocking, Client: ClientLibrdkafka}
	_, err := startRunner(context.Background(), c, rec, "librdkafka runner", func(cfgFile string) *exec.Cmd {
		return exec.Command("python3", "-B", "-u", filepath.Join(dir, "runner.py"), cfgFile)
	})
	if err == nil || !strings.Contains(err.Error(), "librdkafka runner exited with code 2") ||
		!strings.Contains(err.Error(), "no share.acquire.mode") {
		t.Fatalf("got %v, want the runner's refusal with code 2", err)
	}
}

// TestLibrdkafkaRefusals: what librdkafka lacks is refused naming the
// client, the knob and the missing feature.
func TestLibrdkafkaRefusals(t *testing.T) {
	base := Config{Brokers: []string{"b"}, Topic: "t", Group: "g", Type: ShareGroup, Members: 1, Workers: 1, MaxPollRecords: 1,
		Acquire: AcquireBatchOptimized, Ack: AckExplicit, Style: StyleBlocking, Client: ClientLibrdkafka}
	if err := base.validate(); err != nil {
		t.Fatalf("base: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"renew", func(c *Config) { c.Renew = true }, "renew auto: librdkafka has no RENEW"},
		{"record_limit", func(c *Config) { c.Acquire = AcquireRecordLimit }, "acquire_mode record_limit: librdkafka has no share.acquire.mode"},
		{"continuous", func(c *Config) { c.Style = StyleContinuous }, "client librdkafka runs style blocking only, got \"continuous\": the runner polls, processes the batch"},
		{"stuck_rate", func(c *Config) { c.StuckRate = 0.1 }, "stuck_rate: client librdkafka does not wedge workers"},
		{"sticky", func(c *Config) { c.Type, c.Ack, c.Groups.Assignor = ConsumerGroup, AckImplicit, AssignorSticky }, "assignor sticky: librdkafka has no eager sticky"},
		{"rebalance timeout", func(c *Config) { c.Type, c.Ack, c.Groups.RebalanceTimeout = ConsumerGroup, AckImplicit, time.Minute }, "rebalance_timeout"},
	} {
		c := base
		tc.edit(&c)
		err := c.validate()
		if err == nil || !strings.Contains(err.Error(), "client librdkafka") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming client librdkafka and %q", tc.name, err, tc.want)
		}
	}
	for _, a := range []string{AssignorCooperativeSticky, AssignorRange, AssignorRoundRobin} {
		c := base
		c.Type, c.Ack, c.Groups.Assignor = ConsumerGroup, AckImplicit, a
		if err := c.validate(); err != nil {
			t.Errorf("classic assignor %s: %v", a, err)
		}
	}
}

// TestLibrdkafkaRunnerName: the cache directory changes with the runner's
// source (so a changed runner is installed again) and names the version.
func TestLibrdkafkaRunnerName(t *testing.T) {
	a := librdkafkaRunnerName()
	if !strings.HasPrefix(a, "rdkafkarunner-"+confluentKafkaVersion+"-") {
		t.Errorf("name %q", a)
	}
	old := librdkafkaRunnerSrc
	defer func() { librdkafkaRunnerSrc = old }()
	librdkafkaRunnerSrc = append([]byte("# changed\n"), old...)
	if b := librdkafkaRunnerName(); b == a {
		t.Errorf("a changed runner keeps the name %q", a)
	}
}

// TestLibrdkafkaRunnerConfigConnection: the runner configuration written
// for client librdkafka carries librdkafka's connection properties (not the
// Java client's) under client., and runner.py reads back every one exactly,
// a password with a backslash, blanks, "=" and a tab, and a multi-line PEM
// CA among them.
func TestLibrdkafkaRunnerConfigConnection(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	pem := "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ2AbCQ==\n-----END CERTIFICATE-----"
	if err := os.WriteFile(ca, []byte(pem+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pw := ` p\a=ss` + "\t" + `w0rd-rdk `
	c := Config{Brokers: []string{"127.0.0.1:9093"}, Topic: "t", Group: "g", Type: ShareGroup, Workers: 1, MaxPollRecords: 1,
		Ack: AckImplicit, Acquire: AcquireBatchOptimized, Processing: Processing{Model: ModelNone}, Client: ClientLibrdkafka, Connection: connection.Settings{TLS: &connection.TLS{CAFile: ca},
			SASL: &connection.SASL{Mechanism: connection.MechScram256, Username: "bench", Password: pw}, DialTimeout: 4 * time.Second}}
	f, err := writeRunnerConfig(c, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(f))
	b, _ := os.ReadFile(f)
	if strings.Contains(string(b), "jaas") {
		t.Errorf("client librdkafka got Java client properties:\n%s", b)
	}
	want, err := c.Connection.LibrdkafkaProperties()
	if err != nil {
		t.Fatal(err)
	}
	script := `import json, sys, runner
cfg = runner.Config(runner.load_properties(sys.argv[1]))
print(json.dumps({"share": runner.share_properties(cfg, 0), "client": cfg.client}))`
	cmd := exec.Command("python3", "-B", "-c", script, f)
	cmd.Dir = "rdkafkarunner"
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("runner.py reading %s: %v\n%s", f, err, stderr)
	}
	var got struct{ Share, Client map[string]any }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got.Client) != len(want) {
		t.Errorf("runner read %d client properties, want %d: %v", len(got.Client), len(want), got.Client)
	}
	for k, v := range want {
		if got.Share[k] != v {
			t.Errorf("ShareConsumer %s = %q, want %q", k, got.Share[k], v)
		}
	}
	if want["sasl.password"] != pw || want["ssl.ca.pem"] != pem {
		t.Errorf("properties %q", want)
	}
}
