package results

import (
	"runtime"
	"sync"
	"testing"
)

// A member's workers record deliveries at the same time. After an idle gap
// the first of them to record sees the gap and the others see nanoseconds:
// the longest gap must stay the idle one, with its own start, whatever the
// interleaving.
func TestLongestIdleGapUnderConcurrentDeliveries(t *testing.T) {
	const last, gap, workers = int64(1_000_000), int64(5_000), 8
	for round := range 2000 {
		var l memberLife
		l.lastDelivery.Store(last)
		var start, done sync.WaitGroup
		start.Add(1)
		for k := range workers {
			done.Go(func() {
				start.Wait()
				runtime.Gosched()
				l.noteDelivery(last + gap + int64(k))
			})
		}
		start.Done()
		done.Wait()
		if got := l.idleStart.Load(); got != last {
			t.Fatalf("round %d: idle gap starts at %d, want the delivery before the gap, %d (idle %d ns)",
				round, got, last, l.idleNs.Load())
		}
		if got := l.idleNs.Load(); got < gap || got >= gap+workers {
			t.Fatalf("round %d: longest idle gap %d ns, want the idle gap, %d to %d", round, got, gap, gap+workers-1)
		}
	}
}
