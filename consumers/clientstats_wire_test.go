package consumers

import "testing"

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
