package runs

import "testing"

func TestShardsSkewFlag(t *testing.T) {
	s := &Shards{Count: 2, LimitMs: ClockSkewLimitMs, MaxUncertaintyMs: 3,
		PerShard: []ShardStats{{Shard: 0, UncertaintyMs: 3}, {Shard: 1, UncertaintyMs: 1}}}
	if f := s.SkewFlag(); f != nil {
		t.Fatalf("±3 ms under a 10 ms limit flagged: %v", f)
	}
	s.MaxUncertaintyMs, s.PerShard[1].UncertaintyMs = 12.5, 12.5
	f := s.SkewFlag()
	if f == nil || f.Code != "clock_skew" {
		t.Fatalf("±12.5 ms over a 10 ms limit not flagged clock_skew: %v", f)
	}
	if want := "shard 1's clock offset to the coordinator is known only to ±12.5 ms (limit 10 ms)"; f.Message[:len(want)] != want {
		t.Fatalf("message %q, want it to start %q", f.Message, want)
	}
	if (*Shards)(nil).SkewFlag() != nil {
		t.Fatal("a run in one process has no clock_skew flag")
	}
}
