package campaign

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/results"
)

// TestMemberModelCalibrated holds the memory model's per-member client
// figure (the client, its goroutines' stacks) against what a share fleet of 100 members really holds while it
// consumes, on kfake (not Kafka: kfake's own state for each member is in the
// measurement, so it errs high): the model must not be below it, nor more
// than 5× above it (one run to the next, a member reads 97–177 KiB here:
// franz-go's buffer pools are emptied by collections at varying moments).
func TestMemberModelCalibrated(t *testing.T) {
	if raceEnabled {
		// The race detector's own bookkeeping is part of every allocation and
		// goroutine here (one full-suite -race run read 223 KiB a member, alone
		// 103-117 KiB): the model describes the binary users run, which make
		// test measures in its run without -race.
		t.Skip("a memory calibration; not meaningful under the race detector")
	}
	const n, records = 100, 400
	fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(8, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(fake.ListenAddrs()...), kgo.DefaultProduceTopic("t"))
	if err != nil {
		t.Fatal(err)
	}
	adm := &admin{cl: cl}
	if err := adm.setGroupConfig(ctx, "g", map[string]string{"share.auto.offset.reset": "earliest"}); err != nil {
		t.Fatal(err)
	}
	clock := results.NewClock()
	rec := results.NewRecorder(clock, 1, results.NewLedger(1, records), results.NewSeries(clock.Now(), 120))
	ps := rec.ProducerRecorder()
	for i := range records {
		st := results.Stamp{Run: 1, Seq: uint64(i), Intended: clock.Now(), Sent: clock.Now()}
		v := make([]byte, results.StampSize)
		st.Put(v)
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: v}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		ps.RecordAck(st, clock.Now())
	}
	cl.Close()

	// The fleet's memory is what it holds while it runs less what is left
	// once it has stopped (read the same way): garbage of earlier tests in
	// this process falls on both readings.
	var running, stopped runtime.MemStats
	g0 := runtime.NumGoroutine()
	c := consumers.Config{Brokers: fake.ListenAddrs(), Topic: "t", Group: "g", Type: consumers.ShareGroup,
		Acquire: consumers.AcquireBatchOptimized, Ack: consumers.AckImplicit, Style: consumers.StyleBlocking,
		Processing: consumers.Processing{Model: consumers.ModelNone}, Members: n, Workers: 1, MaxPollRecords: 10,
		DeliveryLimit: 5, CloseTimeout: 2 * time.Second}
	fctx, stop := context.WithCancel(ctx)
	fl, err := consumers.Start(fctx, c, rec)
	if err != nil {
		t.Fatal(err)
	}
	for rec.Ledger.Audit().CompletedOnce < records && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	runtime.GC()
	runtime.ReadMemStats(&running)
	stop()
	if err := fl.Wait(); err != nil {
		t.Fatal(err)
	}
	// The clients' goroutines end after Close returns: wait for them (up to 10 s).
	for end := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > g0+n/10 && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	runtime.GC()
	runtime.ReadMemStats(&stopped)
	if got := rec.Ledger.Audit().CompletedOnce; got < records {
		t.Fatalf("%d of %d records completed", got, records)
	}
	measured := (float64(running.HeapAlloc+running.StackInuse) - float64(stopped.HeapAlloc+stopped.StackInuse)) / n
	// The recorder lives on in both readings: the member's client, its
	// goroutines and its state are what is compared (the recorder's own
	// model is held against the heap in results.TestFootprintMatchesHeap).
	model := float64(memberClientBytes + (clientGoroutines+1)*goroutineBytes)
	t.Logf("a member's client and state hold %.0f KiB (heap + stacks, kfake); the model says %.0f KiB", measured/1024, model/1024)
	if measured > model || measured < model/5 {
		t.Errorf("measured %.0f KiB a member, model %.0f KiB: want the model within [1×, 5×] of the measurement", measured/1024, model/1024)
	}
}
