package runs

import (
	"math"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
)

// Hand-computed expectations for every bound formula.

func TestFetchWaitRate(t *testing.T) {
	for _, tc := range []struct {
		name       string
		m          MemberBrokers
		wait, r, p float64
		workers    int
		want       float64
	}{
		// 500 records per cycle, 2 empty brokers × 5 s: 500 ÷ 10 s.
		{"franz-go 3 brokers 1 busy", MemberBrokers{Brokers: 3, Busy: 1}, 5000, 500, 0, 1, 50},
		// Java's 500 ms: 500 ÷ 1 s.
		{"java 3 brokers 1 busy", MemberBrokers{Brokers: 3, Busy: 1}, 500, 500, 0, 1, 500},
		// 2 brokers, 1 busy: 500 ÷ 5 s.
		{"2 brokers 1 busy", MemberBrokers{Brokers: 2, Busy: 1}, 5000, 500, 0, 1, 100},
		// processing adds 100 × 10 ms ÷ 2 = 0.5 s to a 1 s wait: 100 ÷ 1.5 s.
		{"processing in the cycle", MemberBrokers{Brokers: 2, Busy: 1}, 1000, 100, 10, 2, 100 / 1.5},
		// fetch_max_wait 100 ms: 500 ÷ 0.2 s.
		{"fetch_max_wait 100ms", MemberBrokers{Brokers: 3, Busy: 1}, 100, 500, 0, 1, 2500},
		{"no busy broker", MemberBrokers{Brokers: 2, Busy: 0}, 5000, 500, 0, 1, 0},
		// every broker busy: the worker rate 2 × 1000 ÷ 10.
		{"all busy", MemberBrokers{Brokers: 2, Busy: 2}, 5000, 500, 10, 2, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FetchWaitRate(tc.m, tc.wait, 0, tc.r, tc.p, 1, tc.workers); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("FetchWaitRate = %v, want %v", got, tc.want)
			}
		})
	}
	if got := FetchWaitRate(MemberBrokers{Brokers: 1, Busy: 1}, 5000, 0, 500, 0, 1, 1); !math.IsInf(got, 1) {
		t.Errorf("one busy broker, free processing: %v, want +Inf", got)
	}
}

// TrickleRate reduces to FetchWaitRate when every broker either has records
// waiting (+Inf) or none ever (0), and keeps up with a layout whose waits do
// not fill a fetch.
func TestTrickleRateReducesToFetchWaitRate(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name       string
		rates      []float64
		m          MemberBrokers
		wait, r, p float64
		workers    int
	}{
		{"3 brokers 1 busy", []float64{inf, 0, 0}, MemberBrokers{Brokers: 3, Busy: 1}, 5000, 500, 0, 1},
		{"processing in the cycle", []float64{0, inf}, MemberBrokers{Brokers: 2, Busy: 1}, 1000, 100, 10, 2},
		{"fetch_max_wait 100ms", []float64{0, inf, 0}, MemberBrokers{Brokers: 3, Busy: 1}, 100, 500, 0, 1},
		{"all busy", []float64{inf, inf}, MemberBrokers{Brokers: 2, Busy: 2}, 5000, 500, 10, 2},
	} {
		for _, rtt := range []float64{0, 15} {
			got := TrickleRate(tc.rates, tc.wait, rtt, tc.r, tc.p, 1, tc.workers)
			want := FetchWaitRate(tc.m, tc.wait, rtt, tc.r, tc.p, 1, tc.workers)
			if math.Abs(got-want) > 1e-6*want {
				t.Errorf("%s, round trip %v ms: TrickleRate %v, FetchWaitRate %v", tc.name, rtt, got, want)
			}
		}
	}
}

// A hot broker at 1,000 records/s and two quiet ones at 2 records/s each,
// r = 100, no processing, fetch.max.wait 500 ms. The hot broker fills a
// fetch (λ·C ≥ 100 once C ≥ 0.1 s), so n_hot = 100; a quiet broker holds
// 2·C records on average and, when it has none, holds the fetch for
// (1 − e^(−2·0.5)) ÷ 2 = 0.316 s. C = 2·e^(−2C)·0.316: solved, C ≈ 0.328 s
// (each quiet broker empty with probability e^(−0.656) = 0.52), and the
// member takes (100 + 2·2·0.328) ÷ 0.328 ≈ 309 records/s of the 1,004
// offered. Without the trickle (FetchWaitRate, 2 empty brokers): 100 ÷ 1 s.
func TestTrickleRateHotAndQuiet(t *testing.T) {
	got := TrickleRate([]float64{1000, 2, 2}, 500, 0, 100, 0, 1, 1)
	c := 0.3
	for range 100 { // C = 2·e^(−2C)·(1 − e^(−1))/2
		c = 2 * math.Exp(-2*c) * (1 - math.Exp(-1)) / 2
	}
	want := (100 + 2*2*c) / c
	if math.Abs(got-want) > 1e-3*want || got < 300 || got > 318 {
		t.Errorf("TrickleRate = %v, want %v (C = %.3f s)", got, want, c)
	}
	// keeping up: quiet brokers at 50/s each fill fetches of 100 in under
	// 2 s, the member takes what arrives
	if got := TrickleRate([]float64{50, 50}, 500, 0, 100, 0, 1, 1); math.Abs(got-100) > 1e-6 {
		t.Errorf("a layout that keeps up: %v, want the 100 records/s that arrive", got)
	}
	// processing bounds it: 1 worker at 10 ms a record is 100 records/s
	if got := TrickleRate([]float64{1000}, 500, 0, 100, 10, 1, 1); math.Abs(got-100) > 1e-6 {
		t.Errorf("worker-bound: %v, want 100", got)
	}
}

// Every visit of a cycle pays the round trip. 3 brokers, 1 busy, w_max
// 500 ms, a round trip of 20 ms, 10 records a fetch at 1 ms on 1 worker:
// the cycle is 2 × 500 + 3 × 20 + 10 × 1 = 1,070 ms, so 10 ÷ 1.07 s =
// 9.35 records/s. One always-busy broker with a 10 ms round trip and 10
// records at 1 ms: a 20 ms cycle, 500 records/s.
func TestFetchRoundTripInTheCycle(t *testing.T) {
	if got, want := FetchWaitRate(MemberBrokers{Brokers: 3, Busy: 1}, 500, 20, 10, 1, 1, 1), 10*1000/1070.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("FetchWaitRate = %v, want %v", got, want)
	}
	if got := TrickleRate([]float64{math.Inf(1)}, 500, 10, 10, 1, 1, 1); math.Abs(got-500) > 1e-6 {
		t.Errorf("TrickleRate, one busy broker = %v, want 500", got)
	}
	// the round trip only slows a cycle down
	for _, rtt := range []float64{1, 5, 26} {
		if with, without := TrickleRate([]float64{273.6, 8.4}, 500, rtt, 10, 1, 1, 1), TrickleRate([]float64{273.6, 8.4}, 500, 0, 10, 1, 1, 1); with >= without {
			t.Errorf("round trip %v ms: %v records/s, not below %v without it", rtt, with, without)
		}
	}
}

// The round trip is read from the fetch rows that count their empty
// responses: the smallest mean of the responses with records, over brokers
// with at least 20 of them. Broker 2 (582 fetches, 18.4 % empty at 501.2
// ms, 113.7 ms mean) gives (113.7 − 0.184 × 501.2) ÷ 0.816 = 26.3 ms;
// broker 1's quiet fetches are held longer; the Java row (no empty count),
// an untimed row and a broker with 10 fetches are not read.
func TestFetchRoundTripMs(t *testing.T) {
	rows := []RequestFigure{
		{Broker: 1, Kind: "ShareFetch", Count: 433, EmptyShare: 0.411, EmptyMeanMs: 501.3, MeanMs: 268.1},
		{Broker: 2, Kind: "ShareFetch", Count: 582, EmptyShare: 0.184, EmptyMeanMs: 501.2, MeanMs: 113.7},
		{Broker: 2, Kind: "ShareAcknowledge", Count: 600, MeanMs: 1.5},
		{Broker: 3, Kind: "ShareFetch", Count: 10, MeanMs: 2},
		{Broker: 4, Kind: "ShareFetch+ShareAcknowledge responses (java client metrics)", Count: 500, MeanMs: 3, Unavailable: unavailableNoEmpty},
		{Broker: 5, Kind: "ShareFetch", Count: 500, Untimed: true},
	}
	want := (113.7 - 0.184*501.2) / (1 - 0.184)
	if got := FetchRoundTripMs(rows); math.Abs(got-want) > 1e-9 || got < 26 || got > 27 {
		t.Errorf("FetchRoundTripMs = %v, want %v", got, want)
	}
	if got := FetchRoundTripMs(rows[3:]); got != 0 {
		t.Errorf("no readable row: %v, want 0", got)
	}
}

// The fetch-wait bound against three layouts measured on 3 real brokers,
// twice (Kafka 4.2.2, franz-go, docs/lab/2026-12-07-fetch-wait-layouts-on-3-brokers.md):
// each member's shares of the offered rate and each broker's ShareFetch
// timings as run.json recorded them, max_poll_records 10, 1 ms on 1
// worker, fetch.max.wait 500 ms. The hot-key layout completed 110.6
// records/s: without the round trip the bound said 162 (0.68); with it,
// 117 (0.94). The other two were held by their producers (300 and 400/s).
// In the second campaign the round trip was 36–40 ms on a busier host.
func TestFetchWaitBoundOnMeasuredLayouts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rate     float64
		shares   [][]float64
		fetches  []RequestFigure
		measured float64
	}{
		{"6 partitions, 2 members, skew 2", 300,
			[][]float64{{0.0268, 0.0931}, {0.7124, 0.1676}},
			[]RequestFigure{{Broker: 1, Kind: "ShareFetch", Count: 901, MeanMs: 6.34},
				{Broker: 2, Kind: "ShareFetch", Count: 1097, EmptyShare: 0.0046, EmptyMeanMs: 501.9, MeanMs: 31.19},
				{Broker: 3, Kind: "ShareFetch", Count: 196, EmptyShare: 0.0051, EmptyMeanMs: 500.9, MeanMs: 17.09}}, 300.15},
		{"9 partitions, 3 members, 90 % on 1 key", 300,
			[][]float64{{0.014, 0.014}, {0.028, 0.912}, {0.007, 0.014, 0.011}},
			[]RequestFigure{{Broker: 1, Kind: "ShareFetch", Count: 433, EmptyShare: 0.4111, EmptyMeanMs: 501.3, MeanMs: 268.1},
				{Broker: 2, Kind: "ShareFetch", Count: 582, EmptyShare: 0.1838, EmptyMeanMs: 501.2, MeanMs: 113.7},
				{Broker: 3, Kind: "ShareFetch", Count: 247, EmptyShare: 0.4615, EmptyMeanMs: 501.4, MeanMs: 279.7}}, 110.6},
		{"6 partitions, 4 members, skew 1", 400,
			[][]float64{{0.3061}, {0.4762}, {0.0816}, {0.1361}},
			[]RequestFigure{{Broker: 1, Kind: "ShareFetch", Count: 2248, EmptyShare: 0.0004, EmptyMeanMs: 502.6, MeanMs: 9.43},
				{Broker: 2, Kind: "ShareFetch", Count: 1791, EmptyShare: 0.0011, EmptyMeanMs: 502.5, MeanMs: 26.79},
				{Broker: 3, Kind: "ShareFetch", Count: 2601, EmptyShare: 0.0004, EmptyMeanMs: 502.9, MeanMs: 7.44}}, 400.1},
		// the same scenario again, other assignments: without the round
		// trip these two read 0.69 and 0.73 of the bound
		{"6 partitions, 2 members, skew 2, again", 300,
			[][]float64{{0.1013, 0.6705}, {0.0419, 0.1863}},
			[]RequestFigure{{Broker: 1, Kind: "ShareFetch", Count: 377, EmptyShare: 0.3024, EmptyMeanMs: 503.1, MeanMs: 183.42},
				{Broker: 2, Kind: "ShareFetch", Count: 674, EmptyShare: 0.0905, EmptyMeanMs: 503.0, MeanMs: 78.69},
				{Broker: 3, Kind: "ShareFetch", Count: 296, EmptyShare: 0.1993, EmptyMeanMs: 503.3, MeanMs: 130.97}}, 207.65},
		{"9 partitions, 3 members, 90 % on 1 key, again", 300,
			[][]float64{{0.014, 0.011, 0.001}, {0.007, 0.013, 0.011}, {0.912, 0.014, 0.017}},
			[]RequestFigure{{Broker: 1, Kind: "ShareFetch", Count: 330, EmptyShare: 0.2636, EmptyMeanMs: 501.5, MeanMs: 161.88},
				{Broker: 2, Kind: "ShareFetch", Count: 332, EmptyShare: 0.4699, EmptyMeanMs: 501.6, MeanMs: 290.81},
				{Broker: 3, Kind: "ShareFetch", Count: 331, EmptyShare: 0.5438, EmptyMeanMs: 502.0, MeanMs: 311.60}}, 59.8},
	} {
		rtt := FetchRoundTripMs(tc.fetches)
		bound := 0.0
		for _, sh := range tc.shares {
			rates := make([]float64, len(sh))
			for i, x := range sh {
				rates[i] = x * tc.rate
			}
			bound += TrickleRate(rates, 500, rtt, 10, 1, 1, 1)
		}
		if predicted := math.Min(bound, tc.rate); tc.measured < 0.75*predicted || tc.measured > 1.25*predicted {
			t.Errorf("%s: measured %.1f records/s, predicted %.1f (round trip %.1f ms): not within 25 %%", tc.name, tc.measured, predicted, rtt)
		}
	}
}

func TestUsefulShare(t *testing.T) {
	for _, tc := range []struct {
		name       string
		a, p, l, b float64
		w          int
		want       float64
	}{
		{"fits", 50, 500, 30000, 0, 1, 1},
		// 100 × 500 ms on 1 worker: 60 finish inside 30 s.
		{"100 of 500 ms under 30 s", 100, 500, 30000, 0, 1, 0.6},
		// 10 s in the client first: floor(20 s ÷ 0.5 s) = 40.
		{"buffered 10 s", 100, 500, 30000, 10000, 1, 0.4},
		// 2 workers: 2 × 60 ≥ 100.
		{"two workers fit", 100, 500, 30000, 0, 2, 1},
		{"lock shorter than one attempt", 10, 500, 400, 0, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := UsefulShare(tc.a, tc.p, tc.l, tc.b, tc.w); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("UsefulShare = %v, want %v", got, tc.want)
			}
		})
	}
}

// The measured buffered time holds the wait for the record's own earlier
// waves; ClientWaitMs takes the median record's off, so a blocking member
// (no prefetch) that waited only for its own acquisition's waves gets b 0,
// and a prefetched acquisition keeps what it waited for the previous one.
func TestClientWaitMs(t *testing.T) {
	for _, tc := range []struct {
		name           string
		buffered, a, p float64
		w              int
		want           float64
	}{
		// Measured on Kafka 4.2.2 (docs/lab/README.md, lock expiry):
		// 100 × 500 ms on 1 worker, buffered p50 20,644 ms < 49.5 × 500.
		{"own waves only", 20644, 100, 500, 1, 0},
		{"exactly the median wave wait", 24750, 100, 500, 1, 0},
		// Prefetched: 10 s for the previous acquisition on top.
		{"prefetched 10 s", 34750, 100, 500, 1, 10000},
		// 4 workers: 25 waves, the median record waits 12 × 500 ms.
		{"four workers", 8000, 100, 500, 4, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClientWaitMs(tc.buffered, tc.a, tc.p, tc.w); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("ClientWaitMs = %v, want %v", got, tc.want)
			}
		})
	}
	// The bound on the measured run: useful share 0.6 of 16 × 2 records/s
	// = 19.2, where b = the raw p50 gave floor((30 − 20.6) ÷ 0.5) = 18 of
	// 100 and 5.76 records/s against a measured 17.5.
	c := ComputeCeiling(CeilingInput{Share: true, Members: 16, Workers: 1, Partitions: 1, ProcessingMs: 500, ProducerRate: 1000,
		RecordLocks: 2000, RecordsPerAcquisition: 100, LockDurationMs: 30000, BufferedMs: 20644})
	if c.Bound != BoundLockExpiry || math.Abs(c.UsefulShare-0.6) > 1e-9 || math.Abs(c.RecordsPerSec-19.2) > 1e-9 {
		t.Errorf("ceiling %+v: want lock_expiry at 0.6 × 32 = 19.2 records/s", c)
	}
}

func TestCeilingBounds(t *testing.T) {
	base := CeilingInput{Share: true, Members: 1, Workers: 1, Partitions: 3, ProducerRate: 3000}
	for _, tc := range []struct {
		name  string
		in    func(CeilingInput) CeilingInput
		bound Bound
		rate  float64
	}{
		{"fetch waits: the issue's 3-broker case", func(c CeilingInput) CeilingInput {
			c.FetchWait = &FetchWaitInput{MaxWaitMs: 5000, RecordsPerFetch: 500, Members: []MemberBrokers{{Brokers: 3, Busy: 1}}}
			return c
		}, "fetch_waits", 50},
		{"fetch waits: 2 members, the busy one alone on its broker", func(c CeilingInput) CeilingInput {
			c.Members, c.ProcessingMs = 2, 1
			c.FetchWait = &FetchWaitInput{MaxWaitMs: 5000, RecordsPerFetch: 500, Members: []MemberBrokers{{Brokers: 2, Busy: 0}, {Brokers: 1, Busy: 1}}}
			return c
		}, "workers", 2000},
		{"fetch waits: 2 members, the busy one on 2 brokers", func(c CeilingInput) CeilingInput {
			c.Members, c.ProcessingMs = 2, 1
			c.FetchWait = &FetchWaitInput{MaxWaitMs: 5000, RecordsPerFetch: 500, Members: []MemberBrokers{{Brokers: 2, Busy: 1}, {Brokers: 1, Busy: 0}}}
			return c
		}, "fetch_waits", 500 / 5.5},
		// batch_optimized: ceil(2000 ÷ 550) = 4 holders × 2 partitions × 1000 ÷ 20 ms.
		{"batch_optimized holders", func(c CeilingInput) CeilingInput {
			c.Members, c.Partitions, c.ProcessingMs, c.RecordLocks = 40, 2, 20, 2000
			c.RecordsPerAcquisition, c.BatchOptimized = 550, true
			return c
		}, "locks", 400},
		// record_limit: floor(2000 ÷ 550) = 3 holders.
		{"record_limit holders", func(c CeilingInput) CeilingInput {
			c.Members, c.Partitions, c.ProcessingMs, c.RecordLocks = 40, 2, 20, 2000
			c.RecordsPerAcquisition = 550
			return c
		}, "locks", 300},
		// 4 members × 1 worker × 2/s = 8/s, 60 % useful: 4.8/s.
		{"lock expiry", func(c CeilingInput) CeilingInput {
			c.Members, c.ProcessingMs, c.RecordsPerAcquisition, c.LockDurationMs = 4, 500, 100, 30000
			return c
		}, "lock_expiry", 4.8},
		{"producer", func(c CeilingInput) CeilingInput { c.ProcessingMs = 0.1; return c }, "producer", 3000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ComputeCeiling(tc.in(base))
			if c.Bound != tc.bound || math.Abs(c.RecordsPerSec-tc.rate) > 1e-6 {
				t.Errorf("ceiling %v (%s), want %v (%s)", c.RecordsPerSec, c.Bound, tc.rate, tc.bound)
			}
		})
	}
}

func TestJudgeBound(t *testing.T) {
	fw := Ceiling{RecordsPerSec: 50, Bound: "fetch_waits", FetchMembers: []MemberBrokers{{Brokers: 3, Busy: 1}}}
	req := []RequestFigure{{Broker: 2, Kind: "ShareFetch", Count: 10, EmptyShare: 1, EmptyMeanMs: 5000}}
	for _, tc := range []struct {
		name     string
		c        Ceiling
		measured float64
		sat      Saturation
		held     Bound
	}{
		{"near the bound", fw, 48, Saturation{HandlerIdleMin: 0.9, Requests: req}, "fetch_waits"},
		{"far below, quiet broker", fw, 10, Saturation{HandlerIdleMin: 0.9}, "unexplained"},
		{"far below, busy host", fw, 10, Saturation{HandlerIdleMin: 0.9, HostCPUPercent: 99}, "host_saturation"},
		{"far below, handlers busy", fw, 10, Saturation{HandlerIdleMin: 0.05}, "broker_saturation"},
		{"far below, broker CPU", fw, 10, Saturation{HandlerIdleMin: -1, BrokerCPUPercent: 95}, "broker_saturation"},
		{"no handler figure is not saturation", fw, 10, Saturation{HandlerIdleMin: -1}, "unexplained"},
		// lock_expiry: completions include the redone work: 8/s counts at 4.8 × 1/0.6.
		{"lock expiry counts redone completions", Ceiling{RecordsPerSec: 4.8, Bound: "lock_expiry", UsefulShare: 0.6}, 8, Saturation{HandlerIdleMin: -1}, "lock_expiry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.c.Judge(tc.measured, tc.sat)
			if got.Held != tc.held || got.Move != Move(tc.held) || got.Move == "" {
				t.Errorf("held %q move %q, want %q", got.Held, got.Move, tc.held)
			}
		})
	}
	got := fw.Judge(48, Saturation{Requests: req})
	if want := "members' brokers with records/brokers [1/3]; broker 2: 100% of 10 ShareFetch empty, 5000 ms each"; got.Evidence != want {
		t.Errorf("evidence %q, want %q", got.Evidence, want)
	}
	if Move("fetch_waits") != "acquire_mode batch_optimized, or members ≥ partitions, or fetch_max_wait 100ms" {
		t.Errorf("fetch_waits move: %q", Move("fetch_waits"))
	}
	for _, b := range Bounds {
		if Move(b) == "" {
			t.Errorf("bound %q has no move", b)
		}
	}
}

func TestRequestFigures(t *testing.T) {
	tm := results.RequestTimings{}
	k := results.RequestKey{Broker: 1, Kind: "ShareFetch"}
	tm.Observe(k, 5*time.Second, false)
	tm.ObserveEmpty(k, 5*time.Second)
	tm.Observe(k, 10*time.Millisecond, false)
	other := results.RequestTimings{}
	other.Observe(k, 5*time.Second, false)
	other.ObserveEmpty(k, 5*time.Second)
	other.Observe(results.RequestKey{Broker: 0, Kind: "ShareAcknowledge"}, 2*time.Millisecond, true)
	tm.Merge(other)
	f := RequestFigures(tm, 10)
	if len(f) != 2 || f[0].Kind != "ShareAcknowledge" || f[0].Errors != 1 {
		t.Fatalf("rows %+v", f)
	}
	s := f[1]
	// 3 fetches in 10 s, 2 of them empty at 5 s each; 10.01 s summed.
	if s.Count != 3 || math.Abs(s.PerSec-0.3) > 1e-9 || math.Abs(s.EmptyShare-2.0/3) > 1e-9 ||
		s.EmptyMeanMs != 5000 || math.Abs(s.WaitSec-10.01) > 1e-9 || s.MaxMs != 5000 {
		t.Errorf("ShareFetch figure %+v", s)
	}
	if back := results.RequestTimingsFromRows(tm.Rows()); back[k] != tm[k] {
		t.Errorf("rows round trip: %+v vs %+v", back[k], tm[k])
	}
}
