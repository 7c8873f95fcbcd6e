package results

import (
	"testing"
	"time"
)

// ping simulates one offset ping: the agent sends at sendNs (its clock), the
// request takes out ns, the coordinator (clock = agent clock + offset)
// answers at once, the reply takes back ns.
func ping(sendNs, offset, out, back int64) OffsetSample {
	return OffsetSample{SendNs: sendNs, RemoteNs: sendNs + out + offset, RecvNs: sendNs + out + back}
}

func TestEstimateOffsetWithinUncertainty(t *testing.T) {
	delays := [][2]int64{ // out, back
		{0, 0}, {1, 0}, {0, 1}, {500, 500}, {1_000_001, 0}, {0, 1_000_001},
		{3, 7_000_000}, {7_000_000, 3}, {250_000, 750_001}, {40_000_000, 40_000_000},
	}
	for _, off := range []int64{-5e9, 0, 5e9, 123_456_789} {
		for _, d := range delays {
			est, unc, err := EstimateOffset([]OffsetSample{ping(1_700_000_000_000_000_000, off, d[0], d[1])})
			if err != nil {
				t.Fatal(err)
			}
			rtt := d[0] + d[1]
			if want := (rtt + 1) / 2; unc != want {
				t.Errorf("offset %d, delays %v: uncertainty %d, want ⌈rtt/2⌉ = %d", off, d, unc, want)
			}
			if est < off-unc || est > off+unc {
				t.Errorf("offset %d, delays %v: estimate %d ± %d misses the injected offset", off, d, est, unc)
			}
			if d[0] == d[1] && est != off {
				t.Errorf("offset %d, symmetric delays %v: estimate %d, want exact", off, d, est)
			}
		}
	}
}

// TestEstimateOffsetPicksMinimumRTT: of several pings the one with the
// smallest round trip decides, whatever its position.
func TestEstimateOffsetPicksMinimumRTT(t *testing.T) {
	const off = -5e9
	samples := []OffsetSample{
		ping(1e12, off, 9_000_000, 1_000_000), // rtt 10 ms, estimate +4 ms off
		ping(2e12, off, 100, 300),             // rtt 400 ns: the one
		ping(3e12, off, 1, 5_000_000),         // rtt 5 ms, estimate −2.5 ms off
	}
	est, unc, err := EstimateOffset(samples)
	if err != nil {
		t.Fatal(err)
	}
	if unc != 200 || est != off-100 {
		t.Errorf("estimate %d ± %d, want %d ± 200 (the 400-ns ping)", est, unc, int64(off-100))
	}
}

func TestEstimateOffsetErrors(t *testing.T) {
	if _, _, err := EstimateOffset(nil); err == nil {
		t.Error("no samples: want an error")
	}
	if _, _, err := EstimateOffset([]OffsetSample{ping(0, 0, 1, 1), {SendNs: 100, RemoteNs: 50, RecvNs: 99}}); err == nil {
		t.Error("negative round trip: want an error")
	}
}

func TestNewClockOffset(t *testing.T) {
	for _, off := range []int64{-5e9, 0, 5e9} {
		base := NewClock()
		c := NewClockOffset(off)
		a := base.Now()
		b := c.Now()
		z := base.Now()
		// b was read between a and z on the base clock, shifted by off; the
		// two clocks' epochs may differ by the wall clock's resolution.
		const slack = int64(time.Millisecond)
		if b < a+off-slack || b > z+off+slack {
			t.Errorf("offset %d: clock read %d, want within [%d, %d]", off, b, a+off, z+off)
		}
		prev := c.Now()
		for range 1000 {
			n := c.Now()
			if n < prev {
				t.Fatalf("offset %d: clock went back from %d to %d", off, prev, n)
			}
			prev = n
		}
	}
}
