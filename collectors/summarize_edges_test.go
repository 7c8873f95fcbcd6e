package collectors

import (
	"context"
	"math"
	"testing"
	"time"
)

// sampleAt is a broker scrape at t0+sec with counters from base plus the
// given deltas applied by the caller.
func sampleAt(t0 time.Time, sec float64, base BrokerSample) BrokerSample {
	s := base
	s.At = t0.Add(time.Duration(sec * float64(time.Second)))
	s.Acks = map[string]float64{}
	for k, v := range base.Acks {
		s.Acks[k] = v
	}
	s.Requests = map[string]float64{}
	for k, v := range base.Requests {
		s.Requests[k] = v
	}
	return s
}

// Two brokers over a 10 s window, every counter starting from a non-zero
// total (a broker that ran before the window): the window figures are the
// differences over the span, summed over brokers (rates) or averaged (the
// GC share), never sums or ratios of the totals themselves.
func TestSummarizeBrokerTwoBrokersFromNonZeroTotals(t *testing.T) {
	t0 := time.Unix(5000, 0)
	base := BrokerSample{ProcessCPUSeconds: 100, GCSeconds: 10, GCCount: 17, BytesIn: 1e6, BytesOut: 2e6,
		ShareCoordWrites: 500, AcquisitionLockTimeouts: 40,
		Acks: map[string]float64{"Accept": 1000}, Requests: map[string]float64{"Fetch": 1952}, RequestHandlerIdle: 0.9}
	a1, b1 := sampleAt(t0, 0, base), sampleAt(t0, 10, base)
	b1.ProcessCPUSeconds += 5
	b1.GCSeconds += 0.2
	b1.GCCount += 3
	b1.BytesIn += 1000
	b1.BytesOut += 3000
	b1.ShareCoordWrites += 50
	b1.AcquisitionLockTimeouts += 7
	b1.Requests["Fetch"] += 100
	b1.RequestHandlerIdle = 0.7
	a2, b2 := sampleAt(t0, 0, base), sampleAt(t0, 10, base)
	b2.ProcessCPUSeconds += 3
	b2.GCSeconds += 0.6
	b2.GCCount += 1
	b2.BytesIn += 500
	b2.BytesOut += 1000
	b2.ShareCoordWrites += 30
	b2.AcquisitionLockTimeouts += 2
	b2.Requests["Fetch"] += 300
	m := SummarizeBroker([][]BrokerSample{{a1, b1}, {a2, b2}}, t0, t0.Add(10*time.Second), 400, 4)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"cpu seconds", m.CPUSeconds, 8},          // (5 + 3) CPU s over 10 s
		{"cpu % of 4 cores", m.CPUPercentAvg, 20}, // 0.8 cores of 4
		{"cpu s per million", m.CPUSecondsPerMillionRecords, 8 / 400.0 * 1e6},
		{"gc %", m.GCTimePercent, 100 * (0.02 + 0.06) / 2}, // mean of the brokers' shares
		{"gc count", m.GCCount, 4},
		{"fetch/s", m.RequestsPerSec["Fetch"], 40},
		{"bytes in/s", m.BytesInPerSec, 150},
		{"bytes out/s", m.BytesOutPerSec, 400},
		{"share coordinator writes over the run", m.ShareCoordinatorWritesRun, 80},
		{"share coordinator writes/s", m.ShareCoordinatorWriteRateAvg, 8},
		{"lock timeouts over the run", m.AcquisitionLockTimeoutsTotal, 9},
		{"handler idle min", m.RequestHandlerIdleMin, 0.7},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if len(m.RequestsPerSec) != 1 {
		t.Errorf("requests %v: want the one type Fetch", m.RequestsPerSec)
	}
}

// Without a window (one scrape per broker) the window figures stay 0: no
// 0/0 GC share, no +Inf idle minimum; no requests gives no request map.
func TestSummarizeBrokerNoWindowLeavesWindowFiguresZero(t *testing.T) {
	t0 := time.Unix(5000, 0)
	s := sampleAt(t0, 0, BrokerSample{GCSeconds: 1, RequestHandlerIdle: 0.5})
	m := SummarizeBroker([][]BrokerSample{{s}}, t0, t0.Add(10*time.Second), 100, 2)
	if m.GCTimePercent != 0 || m.RequestHandlerIdleMin != 0 || m.CPUPercentAvg != 0 || m.WindowSec != 0 {
		t.Errorf("window figures without a window: %+v", m)
	}
	if m.RequestsPerSec != nil || m.AcksRun != nil {
		t.Errorf("requests %v acks %v: want nil maps", m.RequestsPerSec, m.AcksRun)
	}
}

// cores and completed: 0 leaves the figure 0 (not +Inf), 1 is a real divisor.
func TestSummarizeBrokerCoresAndCompletedEdges(t *testing.T) {
	t0 := time.Unix(5000, 0)
	a, b := sampleAt(t0, 0, BrokerSample{}), sampleAt(t0, 10, BrokerSample{ProcessCPUSeconds: 2})
	m0 := SummarizeBroker([][]BrokerSample{{a, b}}, t0, t0.Add(10*time.Second), 0, 0)
	if m0.CPUPercentAvg != 0 || m0.CPUSecondsPerMillionRecords != 0 || m0.CPUSeconds != 2 {
		t.Errorf("cores 0, completed 0: %+v", m0)
	}
	m1 := SummarizeBroker([][]BrokerSample{{a, b}}, t0, t0.Add(10*time.Second), 1, 1)
	if m1.CPUPercentAvg != 20 || m1.CPUSecondsPerMillionRecords != 2e6 {
		t.Errorf("cores 1, completed 1: cpu %% %v, per million %v; want 20 and 2e6", m1.CPUPercentAvg, m1.CPUSecondsPerMillionRecords)
	}
}

// A sub-second window counts; scrapes out of time order (the end's nearest
// before the start's) give no window.
func TestSummarizeBrokerSpanGuards(t *testing.T) {
	t0 := time.Unix(5000, 0)
	a, b := sampleAt(t0, 0, BrokerSample{}), sampleAt(t0, 0.5, BrokerSample{ProcessCPUSeconds: 0.25})
	if m := SummarizeBroker([][]BrokerSample{{a, b}}, t0, t0.Add(500*time.Millisecond), 0, 1); m.WindowSec != 0.5 || m.CPUPercentAvg != 50 {
		t.Errorf("0.5 s window: window %v s, cpu %v %%; want 0.5 and 50", m.WindowSec, m.CPUPercentAvg)
	}
	late, early := sampleAt(t0, 10, BrokerSample{ProcessCPUSeconds: 5}), sampleAt(t0, 0, BrokerSample{})
	if m := SummarizeBroker([][]BrokerSample{{late, early}}, t0, t0.Add(10*time.Second), 0, 1); m.WindowSec != 0 || m.CPUSeconds != 0 {
		t.Errorf("scrapes out of order: window %v s, cpu %v s; want no window", m.WindowSec, m.CPUSeconds)
	}
}

// A window edge exactly between two scrapes takes the earlier one.
func TestSummarizeBrokerNearestTieTakesTheEarlier(t *testing.T) {
	t0 := time.Unix(5000, 0)
	ss := []BrokerSample{sampleAt(t0, 0, BrokerSample{}), sampleAt(t0, 2, BrokerSample{ProcessCPUSeconds: 1})}
	if got := nearest(ss, t0.Add(time.Second)); got != 0 {
		t.Errorf("nearest to the midpoint: %d, want 0 (the earlier)", got)
	}
	m := SummarizeBroker([][]BrokerSample{ss}, t0.Add(time.Second), t0.Add(2*time.Second), 0, 1)
	if m.WindowSec != 2 {
		t.Errorf("window %v s, want 2 (from the earlier scrape of the tie)", m.WindowSec)
	}
}

// The lag sampler's defaults: 1 s for an interval of 0 or less, the given
// interval otherwise (even 1 ns); each reading is bounded by the interval,
// at least 2 s.
func TestLagSamplerIntervalAndReadTimeout(t *testing.T) {
	fn := func(context.Context) (int64, error) { return 0, nil }
	for _, c := range []struct{ in, want time.Duration }{{0, time.Second}, {-1, time.Second}, {time.Nanosecond, time.Nanosecond}} {
		if got := NewLagSampler(fn, c.in).interval; got != c.want {
			t.Errorf("interval %v → %v, want %v", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ interval, want time.Duration }{{time.Second, 2 * time.Second}, {3 * time.Second, 3 * time.Second}} {
		var left time.Duration
		l := NewLagSampler(func(ctx context.Context) (int64, error) {
			dl, _ := ctx.Deadline()
			left = time.Until(dl)
			return 1, nil
		}, c.interval)
		l.sample(context.Background())
		if left > c.want || left < c.want-500*time.Millisecond {
			t.Errorf("interval %v: a reading may take %v, want %v", c.interval, left, c.want)
		}
	}
}

// The sampler keeps at most maxSamples readings.
func TestLagSamplerKeepsAtMostMaxSamples(t *testing.T) {
	l := NewLagSampler(func(context.Context) (int64, error) { return 1, nil }, time.Second)
	for range maxSamples + 1 {
		l.sample(context.Background())
	}
	if got := len(l.Samples()); got != maxSamples {
		t.Errorf("kept %d readings, want %d", got, maxSamples)
	}
}

// The reading nearest the window end is the lag at window end: the first
// reading when it is nearest, the earlier of two equally near.
func TestSummarizeLagNearestReading(t *testing.T) {
	t0 := time.Unix(0, 0)
	ss := []LagSample{{t0, 5}, {t0.Add(time.Second), 50}, {t0.Add(2 * time.Second), 7}}
	if got := SummarizeLag(ss, 0, t0.Add(100*time.Millisecond)); got.AtWindowEnd != 5 {
		t.Errorf("window end next to the first reading: %d, want 5", got.AtWindowEnd)
	}
	if got := SummarizeLag(ss, 0, t0.Add(1500*time.Millisecond)); got.AtWindowEnd != 50 {
		t.Errorf("window end between readings 2 and 3: %d, want 50 (the earlier)", got.AtWindowEnd)
	}
	if got := SummarizeLag(nil, 2, t0); got.AtWindowEnd != 0 || got.Samples != 0 || got.Errors != 2 {
		t.Errorf("no readings: %+v", got)
	}
}
