package consumers

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/blocks"
	"github.com/sharebench/sharebench/destination"
	"github.com/sharebench/sharebench/internal/redact"
)

// A runner's configuration carries the destination (server, credentials,
// the franz-go members' statement, pool and cap) in its 0600 file; the
// password is registered with redact, so nothing printed shows it.
func TestRunnerConfigCarriesDestination(t *testing.T) {
	defer redact.ForgetSecrets()
	d := destination.Config{Table: "sharebench_t", Topic: "orders", Destination: blocks.Destination{
		DSN: "postgres://bench:s3cr%40t@db.example:6543/runs?sslmode=disable", Key: blocks.KeySequence, Idempotent: true,
		BatchSize: 1, Pool: 1, Connections: 4}}
	c := Config{Brokers: []string{"127.0.0.1:9092"}, Topic: "orders", Group: "g", Type: ShareGroup, Workers: 1, MaxPollRecords: 1,
		Client: ClientLibrdkafka, Destination: func(ctx context.Context) (RecordWriter, error) { return nil, nil }, DestinationConfig: d}
	f, err := writeRunnerConfig(c, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(f))
	b, _ := os.ReadFile(f)
	for _, want := range []string{"destination.host=db.example", "destination.port=6543", "destination.database=runs",
		"destination.user=bench", "destination.password=s3cr@t", "destination.sslmode=disable", "destination.topic=orders",
		"destination.pool=1", "destination.connections=4", "destination.statement=" + propertyValue(d.Statement())} {
		if !strings.Contains(string(b), "\n"+want+"\n") {
			t.Errorf("config lacks %q:\n%s", want, b)
		}
	}
	if !strings.Contains(d.Statement(), "ON CONFLICT (producer, seq)") {
		t.Errorf("statement %q: want the key_sequence upsert", d.Statement())
	}
	if got := redact.Text("password s3cr@t"); strings.Contains(got, "s3cr@t") {
		t.Errorf("the password is not registered with redact: %q", got)
	}
	c.Destination = nil
	f2, err := writeRunnerConfig(c, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(f2))
	if b, _ := os.ReadFile(f2); strings.Contains(string(b), "destination.") {
		t.Errorf("a run without a destination writes destination settings:\n%s", b)
	}
}

// A runner client takes a destination with the run's settings, one record
// per statement; without the settings or with batching it is refused
// before a runner starts, naming the key.
func TestRunnerDestinationValidation(t *testing.T) {
	open := func(ctx context.Context) (RecordWriter, error) { return nil, nil }
	d := destination.Config{Table: "sharebench_t", Topic: "t", Destination: blocks.Destination{DSN: "host=127.0.0.1 user=u", BatchSize: 1, Pool: 1}}
	for _, client := range []Client{ClientJava, ClientLibrdkafka} {
		c := Config{Members: 1, Workers: 1, MaxPollRecords: 1, Type: ConsumerGroup, Style: StyleBlocking, KafkaVersion: "4.2.2"}
		c.Client, c.Destination, c.DestinationConfig = client, open, d
		if err := c.validate(); err != nil {
			t.Errorf("%s with a destination: %v", client, err)
		}
		c.DestinationConfig.BatchSize = 10
		if err := c.validate(); err == nil || !strings.Contains(err.Error(), "destination.batch_size: client "+string(client)+" writes one record per statement") {
			t.Errorf("%s batch_size 10: %v", client, err)
		}
		c.DestinationConfig = destination.Config{}
		if err := c.validate(); err == nil || !strings.Contains(err.Error(), "needs the run's destination") {
			t.Errorf("%s without settings: %v", client, err)
		}
	}
}

// A write frame is recorded as a franz-go member's write: its time, the
// connection's hold, and a failure counted apart.
func TestJavaWriteFramesIntoRecorder(t *testing.T) {
	j, rec := newTestJavaFleet(t, 1, 0)
	var stream bytes.Buffer
	for _, f := range []javaFrame{
		{Kind: frameHello, N: javaFrameProtocol},
		{Kind: frameWrite, Member: 0, N: 1500, Aux: int64(200 * time.Microsecond)},
		{Kind: frameWrite, Member: 0, N: 2500, Aux: int64(300 * time.Microsecond)},
		{Kind: frameWrite, Member: 0, Flags: frameFlagWriteFailed, N: 30_000_000},
		{Kind: frameBye},
	} {
		stream.Write(f.encode())
	}
	j.readDone = make(chan struct{})
	j.read(&stream)
	m := rec.Merge()
	if m.DestinationWrites != 2 || m.DestinationWriteErrors != 1 {
		t.Errorf("writes %d, errors %d: want 2 and 1", m.DestinationWrites, m.DestinationWriteErrors)
	}
	if m.DestinationConnNanos != int64(500*time.Microsecond) {
		t.Errorf("connection time %d ns, want the successful writes' 500 µs", m.DestinationConnNanos)
	}
	if want := int64(1500+2500+30_000_000) * 1000; m.DestinationWriteNanos != want {
		t.Errorf("write time %d ns, want %d", m.DestinationWriteNanos, want)
	}
	if m.DestinationWrite.TotalCount() != 3 {
		t.Errorf("write histogram holds %d, want 3", m.DestinationWrite.TotalCount())
	}
}
