package consumers

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/results"
)

// newKeyedFakeRun is newFakeRun with key_mode hashed records: n records
// over keys key ids, hashed over the partitions, each with its key
// sequence header.
func newKeyedFakeRun(t *testing.T, partitions int32, n, keys int) *fakeRun {
	t.Helper()
	f := newFakeRun(t, partitions, 0, nil)
	cl, err := kgo.NewClient(kgo.SeedBrokers(f.c.Brokers...), kgo.DefaultProduceTopic(f.c.Topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	clock := f.rec.Clock
	f.rec = results.NewRecorder(clock, f.rec.Run, results.NewLedger(1, uint64(n)), results.NewSeries(clock.Now(), 120))
	f.n = n
	ps := f.rec.ProducerRecorder()
	next := make([]uint64, keys)
	var recs []*kgo.Record
	var stamps []results.Stamp
	for i := range n {
		st := results.Stamp{Run: f.rec.Run, Seq: uint64(i), Intended: clock.Now(), Sent: clock.Now()}
		v := make([]byte, results.StampSize)
		st.Put(v)
		k := uint64(i % keys)
		recs = append(recs, &kgo.Record{Value: v, Key: results.KeyBytes(k),
			Headers: []kgo.RecordHeader{{Key: results.KeySeqHeader, Value: binary.BigEndian.AppendUint64(nil, next[k])}}})
		next[k]++
		stamps = append(stamps, st)
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	for _, st := range stamps {
		ps.RecordAck(st, clock.Now())
	}
	return f
}

func TestOrderOneWorkerConsumerGroupIsInOrder(t *testing.T) {
	for _, proto := range []GroupKnobs{{}, {Protocol: ProtocolConsumer}, {Assignor: AssignorRange, AutoCommit: true, AutoCommitInterval: 100 * time.Millisecond}} {
		t.Run(string(proto.Protocol)+proto.Assignor, func(t *testing.T) {
			f := newKeyedFakeRun(t, 3, 600, 10)
			f.c.Groups = proto
			f.c.MaxPollRecords = 50
			m := f.run(t, 0, 20*time.Second)
			o := m.Order
			if o == nil || !o.Keyed || o.Checked != 600 || o.Streams != 10 {
				t.Fatalf("order %+v", o)
			}
			if o.Violations != 0 || o.Partition.Violations != 0 {
				t.Errorf("a one-worker consumer group finished records out of order: %+v", o)
			}
			if a := f.rec.Ledger.Audit(); !a.Balanced || a.CompletedOnce != 600 {
				t.Errorf("audit %+v", a)
			}
		})
	}
}

func TestOrderShareGroupIsNot(t *testing.T) {
	f := newKeyedFakeRun(t, 1, 600, 3)
	f.c.Type, f.c.Ack = ShareGroup, AckExplicit
	f.c.Members, f.c.Workers, f.c.MaxPollRecords = 3, 2, 20
	f.c.Processing = Processing{Model: ModelUniform, Min: 0, Max: 2 * time.Millisecond}
	m := f.run(t, 0, 30*time.Second)
	o := m.Order
	if o == nil || o.Violations == 0 || o.KeysAffected() == 0 || o.MaxDisplacementRecords == 0 || o.Partition.Violations == 0 {
		t.Fatalf("several share members with two workers each finished every key in order: %+v", o)
	}
}

func TestKIP848GroupFormsOnKfake(t *testing.T) {
	f := newKeyedFakeRun(t, 4, 400, 8)
	f.c.Members = 2
	f.c.Groups = GroupKnobs{Protocol: ProtocolConsumer, RemoteAssignor: RemoteRange}
	fl, stop := f.start(t)
	_ = fl
	waitFor(t, 20*time.Second, "all records", f.allDone)
	adm, err := kadm.NewOptClient(kgo.SeedBrokers(f.c.Brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	d, err := adm.DescribeConsumerGroups(context.Background(), f.c.Group)
	if err != nil || d[f.c.Group].Err != nil {
		t.Fatalf("describe: %v %v", err, d[f.c.Group].Err)
	}
	if got := d[f.c.Group].AssignorName; got != "range" {
		t.Errorf("assignor %q, want range", got)
	}
	stop()
}

// Client java takes the consumer-group knobs (the runner's properties carry
// them, RunnerConfig.java reads them) except rebalance_timeout, which
// KafkaConsumer does not have apart from max.poll.interval.ms.
func TestJavaGroupKnobs(t *testing.T) {
	c := Config{Members: 1, Workers: 1, MaxPollRecords: 1, Style: StyleBlocking, Type: ConsumerGroup,
		Client: ClientJava, KafkaVersion: "4.2.2", Groups: GroupKnobs{Protocol: ProtocolConsumer, RemoteAssignor: RemoteRange,
			Static: true, AutoCommit: true, AutoCommitInterval: 1500 * time.Millisecond}}
	if err := c.validate(); err != nil {
		t.Fatalf("client java with the group knobs: %v", err)
	}
	path, err := writeRunnerConfig(c, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(path)) // the config's own directory (writeRunnerConfig)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"group_protocol=consumer\n", "remote_assignor=range\n", "assignor=cooperative-sticky\n",
		"static_membership=true\n", "auto_commit=true\n", "auto_commit_interval_ns=1500000000\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("runner properties lack %q:\n%s", want, b)
		}
	}
	c.Groups = GroupKnobs{Assignor: AssignorRoundRobin}
	path2, err := writeRunnerConfig(c, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(path2))
	b, _ = os.ReadFile(path2)
	for _, want := range []string{"group_protocol=classic\n", "assignor=roundrobin\n", "static_membership=false\n", "auto_commit=false\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("runner properties lack %q:\n%s", want, b)
		}
	}
	c.Groups = GroupKnobs{RebalanceTimeout: time.Minute}
	if err := c.validate(); err == nil || !strings.Contains(err.Error(), "rebalance_timeout") {
		t.Fatalf("client java with rebalance_timeout: %v, want an error naming rebalance_timeout", err)
	}
}
