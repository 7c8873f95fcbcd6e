package producer

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/results"
)

func TestIndicesDealByModulo(t *testing.T) {
	for _, tt := range []struct {
		n, shard, shards int
		want             []int
	}{
		{7, 0, 3, []int{0, 3, 6}}, {7, 1, 3, []int{1, 4}}, {7, 2, 3, []int{2, 5}},
		{2, 2, 3, []int{}}, {1, 0, 1, []int{0}},
	} {
		if got := Indices(tt.n, tt.shard, tt.shards); !slices.Equal(got, tt.want) {
			t.Errorf("Indices(%d, %d, %d) = %v, want %v", tt.n, tt.shard, tt.shards, got, tt.want)
		}
	}
	// Every index lands on exactly one shard.
	seen := map[int]int{}
	for s := range 4 {
		for _, i := range Indices(10, s, 4) {
			seen[i]++
		}
	}
	for i := range 10 {
		if seen[i] != 1 {
			t.Errorf("producer %d on %d shards, want 1", i, seen[i])
		}
	}
}

// Only runs the listed producers with their global ids and schedules: on
// kfake (not Kafka), producers 1 and 3 of 4 send exactly their schedules'
// records stamped with ids 1 and 3, and nothing else is produced.
func TestOnlyRunsTheListedProducers(t *testing.T) {
	fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	clock := results.NewClock()
	start := clock.Now()
	const rate, dur = 400.0, 250 * time.Millisecond
	c := Config{Brokers: fake.ListenAddrs(), Topic: "t", Producers: 4, Rate: rate, MessageSize: results.StampSize,
		Acks: "all", Start: start, Duration: dur, FlushTimeout: 10 * time.Second, Only: []int{1, 3}}
	per, err := c.PerProducerMax()
	if err != nil {
		t.Fatal(err)
	}
	tag := results.RunTag(t.Name())
	rec := results.NewRecorder(clock, tag, results.NewLedger(4, per), results.NewSeries(start, 10))
	rec.SetWindow(results.Window{Start: start, End: start + int64(dur)})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := Run(ctx, c, rec); err != nil {
		t.Fatal(err)
	}
	scheds, _ := FleetSchedules(start, rate, 4)
	want := map[uint32]uint64{1: scheds[1].CountWithin(dur), 3: scheds[3].CountWithin(dur)}
	total := want[1] + want[3]
	cl, err := kgo.NewClient(kgo.SeedBrokers(fake.ListenAddrs()...), kgo.ConsumeTopics("t"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	got := map[uint32]uint64{}
	var n uint64
	for n < total && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			st, err := results.DecodeStamp(r.Value)
			if err != nil {
				t.Fatal(err)
			}
			got[st.Producer]++
			n++
		})
	}
	if got[1] != want[1] || got[3] != want[3] || len(got) != 2 {
		t.Fatalf("records by producer id %v, want %v", got, want)
	}
	if a := rec.Ledger.Audit(); uint64(a.Produced) != total {
		t.Fatalf("ledger produced %d, want %d", a.Produced, total)
	}
	bad := c
	bad.Only = []int{4}
	if err := Run(ctx, bad, rec); err == nil {
		t.Fatal("Only with index 4 of a fleet of 4 must fail")
	}
}
