package results

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

func readIntervals(t *testing.T, b []byte) []*hdrhistogram.Histogram {
	t.Helper()
	r := hdrhistogram.NewHistogramLogReader(bytes.NewReader(b))
	var got []*hdrhistogram.Histogram
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("read: %v\n%s", err, b)
		}
		if h == nil {
			return got
		}
		got = append(got, h)
	}
}

// The header's StartTime is the log's start (seconds since the epoch), and
// every interval spans exactly 1 s from its start.
func TestIntervalLogStartTimeAndIntervalEnds(t *testing.T) {
	start := int64(1_700_000_123) * 1e9
	l := NewIntervalLog("completion", start)
	l.Record(start+5e8, 1e6)
	l.Record(start+1e9+5e8, 2e6)
	b, err := l.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`#\[StartTime: ([\d.]+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no StartTime header:\n%s", b)
	}
	if sec, err := strconv.ParseFloat(string(m[1]), 64); err != nil || sec != float64(start/1e9) {
		t.Errorf("StartTime %s, want %d", m[1], start/1e9)
	}
	got := readIntervals(t, b)
	if len(got) != 2 {
		t.Fatalf("%d intervals, want 2", len(got))
	}
	for i, h := range got {
		if h.StartTimeMs() != (start+int64(i)*1e9)/1e6 || h.EndTimeMs()-h.StartTimeMs() != 1000 {
			t.Errorf("interval %d: %d–%d ms, want a 1 s interval from %d", i, h.StartTimeMs(), h.EndTimeMs(), (start+int64(i)*1e9)/1e6)
		}
	}
}

// A shard that records one value a second closes each second's interval
// when the next second's value arrives: one record per interval.
func TestIntervalShardOneRecordPerSecond(t *testing.T) {
	start := int64(1_700_000_000) * 1e9
	l := NewIntervalLog("completion", start)
	s := l.Writer()
	for sec := range int64(6) {
		s.Record(start+sec*1e9+1e8, (sec+1)*1e6)
	}
	b, err := l.bytesWith([]*intervalPiece{s.piece()})
	if err != nil {
		t.Fatal(err)
	}
	got := readIntervals(t, b)
	if len(got) != 6 {
		t.Fatalf("%d intervals, want 6", len(got))
	}
	for i, h := range got {
		if h.TotalCount() != 1 || !h.ValuesAreEquivalent(h.Max(), int64(i+1)*1000) {
			t.Errorf("interval %d: count %d max %d µs, want 1 record of %d µs", i, h.TotalCount(), h.Max(), (i+1)*1000)
		}
	}
}

// A shard's piece that arrives after its interval was written goes into
// the first interval not yet written: the log stays in time order, no
// interval twice, nothing lost.
func TestIntervalLogLatePieceJoinsFirstUnwrittenInterval(t *testing.T) {
	start := int64(1_700_000_000) * 1e9
	l := NewIntervalLog("completion", start)
	a, late := l.Writer(), l.Writer()
	for sec := range int64(6) {
		a.Record(start+sec*1e9, 1e6) // seconds 0..5: 0, 1, 2 are written once A is in 5
	}
	late.Record(start+1e9+5e8, 9e6) // second 1, already written
	late.Record(start+6e9, 1e6)     // moves on: the second-1 piece is added now
	b, err := l.bytesWith([]*intervalPiece{a.piece(), late.piece()})
	if err != nil {
		t.Fatal(err)
	}
	got := readIntervals(t, b)
	var total int64
	for i, h := range got {
		total += h.TotalCount()
		if i > 0 && h.StartTimeMs() <= got[i-1].StartTimeMs() {
			t.Errorf("interval %d starts at %d, not after interval %d (%d)", i, h.StartTimeMs(), i-1, got[i-1].StartTimeMs())
		}
	}
	if total != 8 {
		t.Errorf("%d records in the log, want 8", total)
	}
	if len(got) != 7 || got[3].TotalCount() != 2 || !got[3].ValuesAreEquivalent(got[3].Max(), 9000) {
		t.Errorf("%d intervals; interval 3 %d records: want 7, and the late 9 ms record in interval 3 (the first unwritten)", len(got), got[min(3, len(got)-1)].TotalCount())
	}
}
