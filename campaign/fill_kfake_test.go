package campaign

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/vocab"
)

// stallProduce makes the kfake cluster (not Kafka) hold every produce
// request until the test ends: a backlog fill that never completes.
func stallProduce(t *testing.T, cl interface{ Fake() *kfake.Cluster }) {
	t.Helper()
	fake := cl.Fake()
	done := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(done) }) })
	fake.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		fake.KeepControl()
		fake.SleepControl(func() { <-done })
		return nil, nil, false
	})
}

// A backlog fill is bounded by drain_timeout (what the dry run states):
// a fill that cannot finish fails the run within its bound plus the
// bounded flush, naming the bound and how much was acknowledged.
func TestBacklogFillIsBounded(t *testing.T) {
	ctx, cl := startKfake(t)
	stallProduce(t, cl.(interface{ Fake() *kfake.Cluster }))
	s := backlogSpec(vocab.ShareGroup, 1000)
	s.Members, s.DrainTimeout = 1, 2*time.Second
	start := time.Now()
	_, err := RunOne(ctx, cl, s, "kfake-fill-bound", testLog(t))
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "backlog fill: 0 of 1000 records acknowledged when its bound, drain_timeout 2s, passed") {
		t.Fatalf("err %v, want the fill's bound named", err)
	}
	if strings.Contains(err.Error(), "%!") {
		t.Errorf("malformed message: %v", err)
	}
	// setup + 2 s fill + ≤ 2 s flush, with room for a loaded host; the
	// unbounded fill ran until killed.
	if took > 45*time.Second {
		t.Errorf("the bounded fill took %v", took)
	}
}

// An interrupt during the fill is the interruption: the run returns
// context.Canceled (exit status 130 in the CLI), never a short backlog
// handed on to the consumers, whose end would read "%!w(<nil>)".
func TestBacklogFillInterrupted(t *testing.T) {
	ctx, cl := startKfake(t)
	stallProduce(t, cl.(interface{ Fake() *kfake.Cluster }))
	s := backlogSpec(vocab.ConsumerGroup, 1000)
	s.Members, s.DrainTimeout = 1, time.Minute
	rctx, cancel := context.WithCancel(ctx)
	log := &signalOn{want: "filling a backlog", do: cancel}
	start := time.Now()
	_, err := RunOne(rctx, cl, s, "kfake-fill-interrupt", log)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if strings.Contains(log.String(), "starting the consumers") || strings.Contains(log.String(), "forming a group") {
		t.Errorf("the interrupted fill went on to the consumers:\n%s", log.String())
	}
	if took := time.Since(start); took > 45*time.Second {
		t.Errorf("the interrupt took %v to end the run", took)
	}
}

// A fleet that ended on its own with no error is said in words; one that
// ended because the run was interrupted is the interruption.
func TestConsumersStoppedNeverPrintsNilVerb(t *testing.T) {
	live := context.Background()
	if err := consumersStopped(live, "during drain", nil); err == nil || strings.Contains(err.Error(), "%!") ||
		err.Error() != "consumers stopped during drain: every member ended without an error" {
		t.Errorf("nil from a live run: %v", err)
	}
	boom := errors.New("boom")
	if err := consumersStopped(live, "during drain", boom); !errors.Is(err, boom) {
		t.Errorf("a failure is wrapped: %v", err)
	}
	done, cancel := context.WithCancel(live)
	cancel()
	for _, e := range []error{nil, context.Canceled} {
		if err := consumersStopped(done, "before the group formed", e); err != context.Canceled {
			t.Errorf("interrupted, fleet %v: %v, want context.Canceled", e, err)
		}
	}
	if err := consumersStopped(done, "during drain", boom); !errors.Is(err, boom) {
		t.Errorf("a real failure during an interrupt is kept: %v", err)
	}
}

// signalOn is a log that calls do once when a line holds want.
type signalOn struct {
	mu   sync.Mutex
	buf  strings.Builder
	want string
	do   func()
	once sync.Once
}

func (w *signalOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf.Write(p)
	hit := strings.Contains(w.buf.String(), w.want)
	w.mu.Unlock()
	if hit {
		w.once.Do(w.do)
	}
	return len(p), nil
}

func (w *signalOn) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
