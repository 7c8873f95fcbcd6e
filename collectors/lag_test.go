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

// The reading's timeout follows the broker's answer times: 4 × the slowest
// of the last 8 answers, between max(interval, 2 s) and 30 s; a timed-out
// reading doubles it. The reading gets that timeout as its deadline.
func TestLagTimeoutFollowsAnswerTimes(t *testing.T) {
	var gotDeadline time.Duration
	var answer func(ctx context.Context) error
	l := NewLagSampler(func(ctx context.Context) (int64, error) {
		dl, _ := ctx.Deadline()
		gotDeadline = time.Until(dl)
		return 7, answer(ctx)
	}, time.Second)
	answer = func(context.Context) error { return nil }
	l.sample(context.Background())
	if gotDeadline > 2*time.Second || gotDeadline < 1900*time.Millisecond {
		t.Errorf("first reading's timeout %v, want the 2 s floor", gotDeadline)
	}
	for _, tc := range []struct {
		took         time.Duration
		ok, timedOut bool
		want         time.Duration
	}{
		{100 * time.Millisecond, true, false, 2 * time.Second},  // 4 × 100 ms under the floor
		{1500 * time.Millisecond, true, false, 6 * time.Second}, // 4 × the slowest
		{200 * time.Millisecond, true, false, 6 * time.Second},  // the slowest of the last 8 still counts
		{0, false, true, 12 * time.Second},                      // timed out: doubled
		{0, false, true, 24 * time.Second},
		{0, false, true, 30 * time.Second},  // capped
		{0, false, false, 30 * time.Second}, // an error that is no timeout leaves it
		{9 * time.Second, true, false, 30 * time.Second},
	} {
		l.answered(tc.took, tc.ok, tc.timedOut)
		if got := l.nextTimeout(); got != tc.want {
			t.Errorf("after %v (ok %v, timed out %v): timeout %v, want %v", tc.took, tc.ok, tc.timedOut, got, tc.want)
		}
	}
	for range lagAnswerWindow { // eight fast answers push the slow ones out
		l.answered(300*time.Millisecond, true, false)
	}
	if got := l.nextTimeout(); got != 2*time.Second {
		t.Errorf("after 8 answers of 300 ms: timeout %v, want 2 s (4 × 300 ms is under the floor)", got)
	}
	// The reading runs under the current timeout; a failed one is a gap.
	l.answered(0, false, true)
	answer = func(ctx context.Context) error { return errors.New("REQUEST_TIMED_OUT") }
	l.sample(context.Background())
	if gotDeadline < 3900*time.Millisecond || gotDeadline > 4*time.Second {
		t.Errorf("reading's timeout %v, want 4 s", gotDeadline)
	}
	if s := l.Summary(time.Now()); len(l.Gaps()) != 1 || s.Errors != 1 || s.Samples != 1 || s.TimeoutMaxMs != 4000 {
		t.Errorf("gaps %v summary %+v: want one gap, one sample, timeout max 4000 ms", l.Gaps(), s)
	}
}

// The printed lag figures are missing only when no reading can give them:
// none at all, or none near the window's end. Gaps elsewhere are no
// missing figure.
func TestMissingLag(t *testing.T) {
	end := time.Unix(100, 0)
	at := func(s float64) LagSample {
		return LagSample{At: end.Add(time.Duration(s * float64(time.Second))), Lag: 1}
	}
	for name, tc := range map[string]struct {
		samples []LagSample
		want    string
	}{
		"none":             {nil, "lag.max lag.at_window_end"},
		"near the end":     {[]LagSample{at(-30), at(-4)}, ""},
		"just after":       {[]LagSample{at(-30), at(3)}, ""},
		"nothing near end": {[]LagSample{at(-30), at(-6)}, "lag.at_window_end"},
	} {
		if got := strings.Join(MissingLag(tc.samples, end, 5*time.Second), " "); got != tc.want {
			t.Errorf("%s: missing %q, want %q", name, got, tc.want)
		}
	}
}

// Kafka 4.1 gives no share lag: end − start offset fills it in where both
// are known; an unknown start offset (no share-partition state) or a
// failed partition stays unknown.
func TestLagFromStartOffsets(t *testing.T) {
	parts := []PartitionLag{{0, -1, nil}, {1, -1, nil}, {2, 5, nil}, {3, -1, errors.New("NOT_LEADER")}, {4, -1, nil}}
	start := map[int32]int64{0: 100, 1: -1, 2: 0, 3: 10, 4: 50}
	end := map[int32]int64{0: 130, 1: 40, 2: 99, 3: 20, 4: 50}
	got := LagFromStartOffsets(parts, start, end)
	for i, want := range []int64{30, -1, 5, -1, 0} {
		if got[i].Lag != want {
			t.Errorf("partition %d: lag %d, want %d", i, got[i].Lag, want)
		}
	}
	if parts[0].Lag != -1 {
		t.Error("LagFromStartOffsets changed its input")
	}
	if _, err := TotalLag("t", got); err == nil || !strings.Contains(err.Error(), "partition 1") {
		t.Errorf("partition 1 has no start offset: want unknown naming it, got %v", err)
	}
}
