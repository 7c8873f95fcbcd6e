package results

import (
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkMemberRecorderFootprint is the recording state of a run with n
// consumer members (issue 27.1): each member's recorder, after every member
// has recorded deliveries and completions in the measurement window, as a
// run's members have. It reports the live heap per member after a GC
// (heap-B/member), which MemberRecorderBytes predicts, beside -benchmem's
// allocations. A heap profile of it:
//
//	go test -run '^$' -bench MemberRecorderFootprint -benchmem -memprofile mem.out ./results
//	go tool pprof -sample_index=inuse_space -top mem.out
func BenchmarkMemberRecorderFootprint(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			var perMember float64
			for range b.N {
				perMember = memberRecorderHeap(n)
			}
			b.ReportMetric(perMember, "heap-B/member")
		})
	}
}

// memberRecorderHeap builds a recorder with n members that each recorded 20
// records over two seconds, and returns the heap it holds per member.
func memberRecorderHeap(n int) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := benchRecorder(1, uint64(n)*20+1)
	ms := make([]*MemberRecorder, n)
	for i := range ms {
		ms[i] = r.MemberRecorder()
	}
	seq := uint64(0)
	for k := range 20 {
		for _, m := range ms {
			t := int64(k) * 100_000_000
			st := Stamp{Run: 1, Seq: seq, Intended: t, Sent: t + 10}
			seq++
			m.RecordPoll(1, t)
			m.RecordDelivery(st, 1, t+20, t+1e6)
			m.RecordCompletion(st, t+1e6, t+2e6+int64(k)*1000, false)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	// What a run would hold without members: the same recorder, no members.
	runtime.KeepAlive(r)
	runtime.KeepAlive(ms)
	return held / float64(n)
}
