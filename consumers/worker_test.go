package consumers

import (
	"testing"
	"time"
)

// A worker that goes straight on is busy for the model's time per record:
// a late wake-up within maxCarry is taken off the next attempt. A wait
// longer than that (a poll, no records) is real and starts a fresh attempt,
// and so does a new batch.
func TestWorkerClockCarriesLateWakeUps(t *testing.T) {
	const d = 10 * time.Millisecond
	ms := int64(time.Millisecond)
	w := &worker{}
	if end := w.begin(0, d); end != 10*ms {
		t.Fatalf("first attempt ends %d, want %d", end, 10*ms)
	}
	// woke 0.3 ms late: the next attempt still ends 10 ms after the last was due
	if end := w.begin(10*ms+300_000, d); end != 20*ms {
		t.Errorf("after a 0.3 ms late wake-up: end %d, want %d", end, 20*ms)
	}
	// woke exactly maxCarry late: still carried
	if end := w.begin(20*ms+int64(maxCarry), d); end != 30*ms {
		t.Errorf("at maxCarry late: end %d, want %d", end, 30*ms)
	}
	// waited 5 ms (a poll): the wait is real, the attempt starts now
	if end := w.begin(35*ms, d); end != 45*ms {
		t.Errorf("after a 5 ms wait: end %d, want %d", end, 45*ms)
	}
	// a new batch: idle resets the clock even right at the due end
	w.idle()
	if end := w.begin(45*ms+100_000, d); end != 55*ms+100_000 {
		t.Errorf("after idle: end %d, want %d", end, 55*ms+100_000)
	}
	// over 100 attempts each woken 0.25 ms late, the busy time is 100·d
	w = &worker{}
	now := int64(0)
	var end int64
	for range 100 {
		end = w.begin(now, d)
		now = end + 250_000 // the sleep overshoots by 0.25 ms
	}
	if want := int64(100 * d); end != want {
		t.Errorf("100 attempts end at %d, want %d (100·d)", end, want)
	}
}

// Without processing an attempt ends at once and reads no clock (end 0),
// and it leaves the worker's clock as it was.
func TestWorkerWithoutProcessing(t *testing.T) {
	w := &worker{due: 7}
	if end := w.end(nil, 0); end != 0 || w.due != 7 { // a nil clock: reading it would panic
		t.Errorf("end %d, due %d; want 0 and 7", end, w.due)
	}
	if !w.sleep(t.Context(), nil, 0) {
		t.Error("an attempt of 0 did not finish")
	}
}
