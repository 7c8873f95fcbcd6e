package results

import (
	"bytes"
	"testing"
)

func TestSummarizeMillisKnownDistribution(t *testing.T) {
	// 1..10000 µs uniformly: p50 = 5 ms, p99 = 9.9 ms, max = 10 ms, within
	// the histogram's 3-significant-digit resolution (0.1 %).
	h := NewLatencyHistogram()
	for us := int64(1); us <= 10000; us++ {
		RecordNanos(h, us*1000)
	}
	p := SummarizeMillis(h)
	near := func(name string, got, want float64) {
		t.Helper()
		if d := got - want; d > want*0.001+0.001 || d < -want*0.001-0.001 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("p50", p.P50, 5)
	near("p90", p.P90, 9)
	near("p99", p.P99, 9.9)
	near("p99.9", p.P999, 9.99)
	near("max", p.Max, 10)
	near("mean", p.Mean, 5.0005)
	if p.Count != 10000 {
		t.Errorf("count %d", p.Count)
	}
}

func TestRecordNanosClampsInsteadOfDropping(t *testing.T) {
	h := NewLatencyHistogram()
	RecordNanos(h, -5)
	RecordNanos(h, int64(2*histHighestUS)*1000)
	if h.TotalCount() != 2 || h.Min() != 1 || h.Max() < histHighestUS {
		t.Fatalf("count %d min %d max %d", h.TotalCount(), h.Min(), h.Max())
	}
}

func TestMergedShardsEqualOneHistogram(t *testing.T) {
	one, a, b := NewLatencyHistogram(), NewLatencyHistogram(), NewLatencyHistogram()
	for i := int64(1); i <= 1000; i++ {
		RecordNanos(one, i*7919)
		if i%2 == 0 {
			RecordNanos(a, i*7919)
		} else {
			RecordNanos(b, i*7919)
		}
	}
	a.Merge(b)
	if SummarizeMillis(a) != SummarizeMillis(one) {
		t.Fatalf("merged %+v != single %+v", SummarizeMillis(a), SummarizeMillis(one))
	}
}

func TestPercentileTextIsHgrm(t *testing.T) {
	h := NewLatencyHistogram()
	RecordNanos(h, 1e6)
	b, err := PercentileText(h)
	if err != nil || !bytes.Contains(b, []byte("Value")) || !bytes.Contains(b, []byte("#[Mean")) {
		t.Fatalf("err %v text %q", err, b)
	}
}

func TestStampRoundTrip(t *testing.T) {
	st := Stamp{Run: RunTag("r1"), Producer: 3, Seq: 1 << 40, Intended: 1700000000123456789, Sent: 1700000000123999999}
	buf := make([]byte, 64)
	st.Put(buf)
	got, err := DecodeStamp(buf)
	if err != nil || got != st {
		t.Fatalf("got %+v err %v", got, err)
	}
	if _, err := DecodeStamp(buf[:StampSize-1]); err == nil {
		t.Fatal("short value decoded")
	}
	if _, err := DecodeStamp(make([]byte, 64)); err == nil {
		t.Fatal("unstamped value decoded")
	}
	if RunTag("r1") == RunTag("r2") {
		t.Fatal("run tags collide")
	}
}

// Below 2048 µs the histogram is exact: the millisecond figures are the
// recorded values to the microsecond.
func TestSummarizeMillisExactBelow2ms(t *testing.T) {
	h := NewLatencyHistogram()
	RecordNanos(h, 1_500_000)
	p := SummarizeMillis(h)
	if p.P50 != 1.5 || p.P9999 != 1.5 || p.Max != 1.5 || p.Mean != 1.5 {
		t.Errorf("percentiles %+v, want 1.5 ms", p)
	}
	txt, err := PercentileText(h)
	if err != nil || !bytes.Contains(txt, []byte("1.500")) {
		t.Errorf("hgrm %q %v: want the value in ms (1.500)", txt, err)
	}
}
