package consumers

import (
	"reflect"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sharebench/sharebench/results"
)

// Client statistics survive their encoding, and merging two agents' gives
// the counts and extremes of both.
func TestClientStatsWireAndMerge(t *testing.T) {
	a, b := NewClientStats(), NewClientStats()
	for _, v := range []int64{10, 20, 30} {
		_ = a.Buffered.RecordValue(v)
		_ = a.PerAcquisition.RecordValue(v)
	}
	_ = b.Buffered.RecordValue(5000)
	_ = b.PerResponse.RecordValue(7)
	enc, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeClientStats(enc)
	if err != nil {
		t.Fatal(err)
	}
	sum := NewClientStats()
	sum.Merge(a)
	sum.Merge(got)
	if sum.Buffered.TotalCount() != 4 || sum.Buffered.Max() < 4990 || sum.Buffered.Min() != 10 {
		t.Errorf("buffered: count %d min %d max %d, want 4, 10, ~5000", sum.Buffered.TotalCount(), sum.Buffered.Min(), sum.Buffered.Max())
	}
	if sum.PerAcquisition.TotalCount() != 3 || sum.PerResponse.TotalCount() != 1 || sum.PerResponse.Max() != 7 {
		t.Errorf("per acquisition %d, per response %d (max %d)", sum.PerAcquisition.TotalCount(), sum.PerResponse.TotalCount(), sum.PerResponse.Max())
	}
	if _, err := DecodeClientStats([]byte("{")); err == nil {
		t.Error("malformed statistics decoded")
	}
}

// Every field of ClientStats travels: each histogram gets its own value,
// the request timings a row, and all come back after Encode and
// DecodeClientStats; a field added to ClientStats but not to the codec
// fails here (a field of a new kind fails until the test fills it).
func TestClientStatsWireCarriesEveryField(t *testing.T) {
	s := NewClientStats()
	v := reflect.ValueOf(s)
	for i := range v.NumField() {
		switch f := v.Field(i).Interface().(type) {
		case *hdrhistogram.Histogram:
			_ = f.RecordValue(int64(100 * (i + 1)))
		case results.RequestTimings:
			f.Observe(results.RequestKey{Broker: 2, Kind: "ShareFetch"}, 3*time.Millisecond, false)
			f.ObserveEmpty(results.RequestKey{Broker: 2, Kind: "ShareFetch"}, time.Millisecond)
		default:
			t.Fatalf("ClientStats.%s: no value for a %T", v.Type().Field(i).Name, f)
		}
	}
	enc, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeClientStats(enc)
	if err != nil {
		t.Fatal(err)
	}
	g := reflect.ValueOf(got)
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		switch want := v.Field(i).Interface().(type) {
		case *hdrhistogram.Histogram:
			h := g.Field(i).Interface().(*hdrhistogram.Histogram)
			if h == nil || h.TotalCount() != 1 || h.Max() != want.Max() {
				t.Errorf("%s: got %v, want one value near %d", name, h, want.Max())
			}
		case results.RequestTimings:
			if w, d := want.Rows(), g.Field(i).Interface().(results.RequestTimings).Rows(); !reflect.DeepEqual(w, d) {
				t.Errorf("%s: got %+v, want %+v", name, d, w)
			}
		}
	}
}
