package consumers

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkShareMembersFootprint is the memory a share-group fleet of n
// members holds while it consumes (issue 27.1): franz-go clients, the
// members' goroutines and their recorders, on kfake (not Kafka: the
// clients' buffers here hold what kfake sends, which is not what a broker
// sends; the per-member structure is the same). After the fleet has
// completed every record of a small backlog, it reports the live heap per
// member after a GC (heap-B/member) and the goroutines per member. A heap
// profile:
//
//	go test -run '^$' -bench ShareMembersFootprint -benchtime 1x -memprofile mem.out ./consumers
//	go tool pprof -sample_index=inuse_space -top mem.out
func BenchmarkShareMembersFootprint(b *testing.B) {
	for _, n := range []int{50, 200} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			var heap, goroutines float64
			for range b.N {
				heap, goroutines = shareFleetFootprint(b, n)
			}
			b.ReportMetric(heap, "heap-B/member")
			b.ReportMetric(goroutines, "goroutines/member")
		})
	}
}

func shareFleetFootprint(b *testing.B, n int) (heapPerMember, goroutinesPerMember float64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	f := newFakeRun(b, 8, 4*n, nil)
	f.c.Type, f.c.Members, f.c.Workers, f.c.MaxPollRecords = ShareGroup, n, 1, 10
	_, stop := f.start(b)
	deadline := time.Now().Add(2 * time.Minute)
	for !f.allDone() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !f.allDone() {
		b.Fatalf("%d members did not complete %d records in 2 minutes (kfake)", n, f.n)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	g1 := runtime.NumGoroutine()
	stop()
	return (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(n), float64(g1-g0) / float64(n)
}
