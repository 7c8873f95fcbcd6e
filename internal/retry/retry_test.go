package retry

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDoRetriesUntilSuccess(t *testing.T) {
	n := 0
	err := Do(context.Background(), Policy{Wait: time.Millisecond}, func(context.Context) error {
		if n++; n < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("err %v after %d attempts, want nil after 3", err, n)
	}
}

func TestDoStopsOnPermanentAndAttempts(t *testing.T) {
	boom := errors.New("boom")
	n := 0
	err := Do(context.Background(), Policy{}, func(context.Context) error { n++; return Permanent(boom) })
	if err != boom || n != 1 {
		t.Errorf("permanent: %v after %d attempts, want boom unwrapped after 1", err, n)
	}
	n = 0
	err = Do(context.Background(), Policy{Attempts: 2}, func(context.Context) error { n++; return boom })
	if err != boom || n != 2 {
		t.Errorf("attempts: %v after %d attempts, want the last error after 2", err, n)
	}
}

func TestDoGivesUpWithTheCause(t *testing.T) {
	last := errors.New("still down")
	err := Do(context.Background(), Policy{Wait: 5 * time.Millisecond, Timeout: 30 * time.Millisecond},
		func(context.Context) error { return last })
	g, ok := errors.AsType[*GiveUpError](err)
	if !ok || !errors.Is(err, ErrTimeout) || g.Last != last || g.Attempts < 2 {
		t.Errorf("timeout: %#v, want a GiveUpError caused by ErrTimeout with the last error", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = Do(ctx, Policy{Wait: time.Hour, Timeout: time.Hour}, func(context.Context) error { return last })
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

func TestDoBoundsAttemptsAndBacksOff(t *testing.T) {
	var gaps []time.Duration
	prev := time.Now()
	n := 0
	err := Do(context.Background(), Policy{Wait: 2 * time.Millisecond, MaxWait: 8 * time.Millisecond, AttemptTimeout: time.Millisecond},
		func(ctx context.Context) error {
			if _, ok := ctx.Deadline(); !ok {
				return Permanent(errors.New("attempt without a deadline"))
			}
			now := time.Now()
			gaps = append(gaps, now.Sub(prev))
			prev = now
			if n++; n < 5 {
				return errors.New("again")
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	// Pauses 2, 4, 8, 8 ms: each at least its nominal length.
	for i, want := range []time.Duration{2, 4, 8, 8} {
		if gaps[i+1] < want*time.Millisecond {
			t.Errorf("pause %d: %v, want ≥ %v ms", i+1, gaps[i+1], want)
		}
	}
}

// Sleep at d ≤ 0 answers from the context alone: a cancelled context is
// always false (a timer that fired at once would race the Done channel).
func TestSleep(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(live)
	cancel()
	for _, tc := range []struct {
		ctx  context.Context
		d    time.Duration
		want bool
	}{
		{live, 0, true}, {live, -time.Second, true}, {live, time.Millisecond, true},
		{cancelled, 0, false}, {cancelled, -time.Second, false}, {cancelled, time.Hour, false},
	} {
		for range 100 { // the old copy's answer at d ≤ 0 varied from call to call
			if got := Sleep(tc.ctx, tc.d); got != tc.want {
				t.Fatalf("Sleep(ctx err %v, %v) = %v, want %v", tc.ctx.Err(), tc.d, got, tc.want)
			}
		}
	}
}
