package advisor

import (
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

func TestVerifyScenario(t *testing.T) {
	in := Defaults()
	in.Rate, in.Partitions = 1000, 4
	in.Processing = scenarios.Processing{Model: "constant", Time: 10 * time.Millisecond}
	a, err := Advise(in)
	if err != nil {
		t.Fatal(err)
	}
	// The README example: 12 members, max.poll.records 533, 2000 locks, 30 s.
	if a.Members != 12 || a.MaxPollRecords != 533 {
		t.Fatalf("advice members %d mpr %d, want 12 and 533", a.Members, a.MaxPollRecords)
	}
	yaml, err := VerifyScenario(in, a, VerifyOptions{Warmup: 2 * time.Second, Duration: 5 * time.Second,
		Where: []string{"latency.completion_ms.p99 <= 500ms"}})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.LoadBytes("verify", yaml, nil, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, yaml)
	}
	type pt struct {
		typ          string
		members, mpr int
	}
	var got []pt
	for _, r := range sc.Runs {
		got = append(got, pt{string(r.ConsumerType), r.Members, r.MaxPollRecords})
		if r.Rate != 1200 || r.Partitions != 4 || r.Workers != 1 || r.Processing.Time != 10*time.Millisecond ||
			r.Warmup != 2*time.Second || r.Duration != 5*time.Second || r.RecordLocks() != 2000 || r.RecordLockDuration() != 30*time.Second {
			t.Errorf("run %+v: want rate 1200 (design rate), 4 partitions, 1 worker, 10ms, 2s+5s, 2000 locks, 30s", r)
		}
	}
	// members 12 ± round(12/4) = 3 at mpr 533; mpr 533 ÷ 2 and × 2 at 12 members; share and consumer.
	var want []pt
	for _, p := range [][2]int{{12, 533}, {9, 533}, {15, 533}, {12, 266}, {12, 1066}} {
		for _, typ := range []string{"share", "consumer"} {
			want = append(want, pt{typ, p[0], p[1]})
		}
	}
	if len(got) != len(want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("no run %+v in %v", w, got)
		}
	}
	rec := sc.Recommend
	if rec == nil || rec.Knob != "max_poll_records" || len(rec.Where) != 4 || rec.Where[1].Field != "audit.undelivered" || rec.Where[3].Field != "latency.completion_ms.p99" || rec.Where[3].Value != 500 {
		t.Errorf("recommend %+v", rec)
	}
}

func TestVerifyPointsClamp(t *testing.T) {
	got := VerifyPoints(Advice{Members: 1, MaxPollRecords: 1, ShareGroupMaxSize: 200})
	want := []VerifyPoint{{1, 1}, {2, 1}, {1, 2}}
	if len(got) != len(want) {
		t.Fatalf("points %v, want %v (duplicates after clamping dropped)", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("point %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestVerify(t *testing.T) {
	a := Advice{Members: 4, MaxPollRecords: 10, Ceiling: 400, ShareGroupMaxSize: 200}
	mk := func(id string, typ vocab.GroupType, members, mpr int, completed float64) runs.Record {
		r := runs.Record{RunID: id, ConsumerType: typ,
			Spec: &scenarios.RunSpec{ConsumerType: typ, Fleet: scenarios.Fleet{Members: members, MaxPollRecords: mpr}}}
		r.Throughput.CompletedPerSec, r.Throughput.OfferedPerSec = completed, 480
		return r
	}
	recs := []runs.Record{
		mk("s-4-10", "share", 4, 10, 390), mk("s-3-10", "share", 3, 10, 300), mk("s-5-10", "share", 5, 10, 470),
		mk("s-4-5", "share", 4, 5, 380), mk("s-4-20", "share", 4, 20, 392),
	}
	v, err := Verify(a, recs, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 390 of min(480 offered, 400 ceiling) = 0.975 ≥ 0.95: reached.
	if v.RunID != "s-4-10" || v.Efficiency != 390.0/400 || !v.Reached {
		t.Errorf("verified %+v", v)
	}
	var b strings.Builder
	v.WriteText(&b)
	for _, want := range []string{"share members=4: max_poll_records=20 (throughput.completed_per_sec 392)",
		"share max_poll_records=10: members=5 (throughput.completed_per_sec 470)", "ceiling reached (≥ 0.95): yes",
		"recommended max_poll_records=10: throughput.completed_per_sec 390 (qualifies); the best is +0.5% above it"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}
