package campaign

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/blocks"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// The scaler through a whole run on kfake (not Kafka): a spike in the
// rate_schedule drives a share group from 1 member out, the actions reach
// events[] and the autoscale block, and every record is still audited.
func TestAutoscaleRunOnKfake(t *testing.T) {
	ctx, cl := startKfake(t)
	s := baseSpec()
	s.ConsumerType, s.Members, s.Partitions, s.Workers = vocab.ShareGroup, 1, 2, 1
	s.Processing.Time = 10 * time.Millisecond // 100 records/s per member
	s.Warmup, s.Duration = time.Second, 8*time.Second
	s.RateSchedule = []scenarios.RateStep{{Duration: 2 * time.Second, From: 50, To: 50},
		{Duration: 3 * time.Second, From: 600, To: 600, Spike: true}, {Duration: 3 * time.Second, From: 50, To: 50}}
	s.Rate = 600
	s.Autoscale = &scenarios.Autoscale{Signal: blocks.SignalLag, Threshold: 100, InBelow: 10, Window: time.Second,
		OutAfter: time.Second, InAfter: 2 * time.Second, Cooldown: time.Second, Step: 2, Min: 1, Max: 5, Poll: 500 * time.Millisecond,
		Remove: scenarios.ActionLeave, FlapWindow: 3 * time.Second}
	m, err := RunOne(ctx, cl, s, "kfake-autoscale", testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	r := m.Record
	a := r.Autoscale
	if a == nil || a.ScaleOuts < 1 || a.PeakReplicas < 3 || len(a.Decisions) < 10 {
		t.Fatalf("autoscale block %+v", a)
	}
	if a.MaxReplicas != 5 || a.Cap.Replicas != 200 {
		t.Errorf("bound %d cap %+v, want 5 and group.share.max.size 200", a.MaxReplicas, a.Cap)
	}
	scaled := 0
	for _, e := range r.Events {
		if e.Action == scenarios.ActionJoin && len(e.Members) > 0 {
			scaled++
		}
	}
	if scaled != a.ScaleOuts {
		t.Errorf("%d join events, %d scale-outs", scaled, a.ScaleOuts)
	}
	if r.Throughput.OfferedPerSec != (100+1800+150)/8.0 {
		t.Errorf("offered %v, want the schedule's mean %v", r.Throughput.OfferedPerSec, (100+1800+150)/8.0)
	}
	if !r.Audit.Balanced || r.Audit.Lost != 0 {
		t.Errorf("audit %+v", r.Audit)
	}
}
