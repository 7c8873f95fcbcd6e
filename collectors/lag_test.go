package collectors

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A partition whose offsets failed or whose lag is -1 makes the total
// unknown (an error naming it), never a partial sum: with partition 1
// dropped, 0 + 0 would read "no backlog".
func TestTotalLagUnknownPartitionIsNotZero(t *testing.T) {
	ok := []PartitionLag{{0, 5, nil}, {1, 7, nil}, {2, 0, nil}}
	if got, err := TotalLag("t", ok); err != nil || got != 12 {
		t.Fatalf("all known: %d %v, want 12", got, err)
	}
	for name, parts := range map[string][]PartitionLag{
		"error":         {{0, 0, nil}, {1, 0, errors.New("NOT_LEADER")}, {2, 0, nil}},
		"lag -1":        {{0, 0, nil}, {1, -1, nil}, {2, 0, nil}},
		"no partitions": nil,
	} {
		got, err := TotalLag("t", parts)
		if err == nil {
			t.Errorf("%s: total %d, want unknown (an error)", name, got)
			continue
		}
		if parts != nil && !strings.Contains(err.Error(), "partition 1") {
			t.Errorf("%s: error %q does not name partition 1", name, err)
		}
	}
	// The sampler counts such a reading as failed: the summary has no
	// sample, so no lag and no drain estimate can come from it.
	l := NewLagSampler(func(context.Context) (int64, error) {
		return TotalLag("t", []PartitionLag{{0, -1, nil}})
	}, time.Second)
	l.sample(context.Background())
	if s := l.Summary(time.Now()); s.Samples != 0 || s.Errors != 1 || !strings.Contains(s.LastError, "unknown") {
		t.Errorf("summary %+v, want 0 samples and 1 error", s)
	}
}

// SummarizeLag at its edges: no readings, one reading; the default interval.
func TestSummarizeLagEdges(t *testing.T) {
	if s := SummarizeLag(nil, 2, time.Unix(5, 0)); s.Samples != 0 || s.AtWindowEnd != 0 || s.Max != 0 || s.Errors != 2 {
		t.Errorf("no readings: %+v", s)
	}
	if s := SummarizeLag([]LagSample{{time.Unix(1, 0), 42}}, 0, time.Unix(100, 0)); s.AtWindowEnd != 42 || s.Max != 42 || s.Samples != 1 {
		t.Errorf("one reading: %+v", s)
	}
	for _, d := range []time.Duration{0, -time.Second} {
		if l := NewLagSampler(nil, d); l.interval != time.Second {
			t.Errorf("interval %v: default %v, want 1s", d, l.interval)
		}
	}
	if l := NewLagSampler(nil, time.Millisecond); l.interval != time.Millisecond {
		t.Errorf("interval 1ms kept as %v", l.interval)
	}
}

// A share-partition without state because its log never held a record is
// lag 0, known; one whose log holds records and whose lag is -1 stays
// unknown, and so does one the offsets do not cover.
func TestKnownEmptyPartitionIsZeroOthersStayUnknown(t *testing.T) {
	parts := []PartitionLag{{0, 40, nil}, {1, -1, nil}, {2, -1, nil}}
	got, err := TotalLag("t", KnownEmpty(parts, map[int32]bool{1: true, 2: true}))
	if err != nil || got != 40 {
		t.Fatalf("empty partitions 1, 2: %d %v, want 40", got, err)
	}
	if _, err := TotalLag("t", KnownEmpty(parts, map[int32]bool{1: true})); err == nil || !strings.Contains(err.Error(), "partition 2") {
		t.Errorf("partition 2 holds records: want unknown naming it, got %v", err)
	}
	failed := []PartitionLag{{0, -1, errors.New("NOT_LEADER")}}
	if _, err := TotalLag("t", KnownEmpty(failed, map[int32]bool{0: true})); err == nil {
		t.Error("a partition whose offsets failed must stay unknown even with an empty log")
	}
	if parts[1].Lag != -1 {
		t.Error("KnownEmpty changed its input")
	}
}
