package collectors

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// jitScrape is a scrape carrying the agent's compile-time counter (as the
// JMX exporter agent 1.0.1 writes it) and the process CPU.
func jitScrape(t *testing.T, at time.Time, compileSec, cpuSec float64) BrokerSample {
	t.Helper()
	body := "# HELP jvm_compilation_time_seconds_total The total time in seconds taken for HotSpot class compilation\n" +
		"# TYPE jvm_compilation_time_seconds_total counter\n" +
		"jvm_compilation_time_seconds_total " + fmtF(compileSec) + "\n" +
		"# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total " + fmtF(cpuSec) + "\n" +
		"# TYPE java_lang_memory_heapmemoryusage_used untyped\njava_lang_memory_heapmemoryusage_used 1.0E8\n"
	s, err := ParseBrokerMetrics(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	s.At = at
	return s
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// The compile time is read from the agent's counter, else from the
// Compilation MBean's TotalCompilationTime (ms); the agent's wins when both
// are there; a scrape with neither has none (HasJIT false).
func TestParseJITCompileTime(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       float64
		has        bool
	}{
		{"agent counter", "jvm_compilation_time_seconds_total 12.345\n", 12.345, true},
		{"MBean ms", "java_lang_compilation_totalcompilationtime 4200.0\n", 4.2, true},
		{"both: the agent's", "jvm_compilation_time_seconds_total 12.5\njava_lang_compilation_totalcompilationtime 99000.0\n", 12.5, true},
		{"neither", "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseBrokerMetricsAs(strings.NewReader("java_lang_memory_heapmemoryusage_used 1.0E8\n"+tc.body), NamingSharebench)
			if err != nil {
				t.Fatal(err)
			}
			if s.HasJIT() != tc.has || math.Abs(s.JITCompileSeconds-tc.want) > 1e-9 {
				t.Errorf("compile time %v s (has %v), want %v s (has %v)", s.JITCompileSeconds, s.HasJIT(), tc.want, tc.has)
			}
		})
	}
}

// The recorded scrape of a real 4.2.2 broker carries the agent's counter,
// read as it says; the older trimmed capture (broker-4.2.2-share.prom) does
// not, so its JIT figure is unavailable (TestBrokerNamings).
func TestParseJITCompileTimeRealScrape(t *testing.T) {
	s := parseFile(t, "broker-4.2.2-jit.prom", NamingAuto)
	if s.Naming != NamingSharebench || !s.HasJIT() || s.JITCompileSeconds != 7.507 || s.ProcessCPUSeconds != 12.32 {
		t.Errorf("naming %q, compile time %v s (has %v), cpu %v s; want sharebench, 7.507 s, 12.32 s", s.Naming, s.JITCompileSeconds, s.HasJIT(), s.ProcessCPUSeconds)
	}
}

// broker.jit_compile_s is the counter's increase between the scrapes
// nearest the window's edges, scaled to the window like broker CPU, summed
// over brokers; a broker without the series makes it unavailable, never a
// partial sum.
func TestSummarizeBrokerJIT(t *testing.T) {
	t0 := time.Unix(1000, 0)
	// Broker 1: scrapes 0.5 s before and after a 10 s window (span 11 s),
	// 2.2 s compiled across them: 0.2 compile-s/s × 10 s = 2.0 s.
	// Broker 2: scrapes on the edges, 0.3 s compiled: 0.3 s.
	b1 := []BrokerSample{jitScrape(t, t0.Add(-500*time.Millisecond), 10, 100), jitScrape(t, t0.Add(10500*time.Millisecond), 12.2, 105)}
	b2 := []BrokerSample{jitScrape(t, t0, 7, 50), jitScrape(t, t0.Add(10*time.Second), 7.3, 52)}
	m := SummarizeBroker([][]BrokerSample{b1, b2}, t0, t0.Add(10*time.Second), 1000, 2)
	if math.Abs(m.JITCompileSeconds-2.3) > 1e-9 || slices.Contains(m.Unavailable, "jit_compile_s") {
		t.Errorf("jit_compile_s %v (unavailable %v), want 2.3", m.JITCompileSeconds, m.Unavailable)
	}
	// A broker whose scrapes lack the series: unavailable, 0.
	bare := []BrokerSample{b2[0], b2[1]}
	for i := range bare {
		bare[i].figures &^= figJIT
	}
	m = SummarizeBroker([][]BrokerSample{b1, bare}, t0, t0.Add(10*time.Second), 1000, 2)
	if m.JITCompileSeconds != 0 || !slices.Contains(m.Unavailable, "jit_compile_s") {
		t.Errorf("one broker without compile time: jit_compile_s %v, unavailable %v; want 0 and listed", m.JITCompileSeconds, m.Unavailable)
	}
	if !slices.Contains(UnavailableLines(m.Naming, m.Unavailable, m.CPUSource), "broker JIT compilation: unavailable from this exporter (sharebench)") {
		t.Errorf("no console line for the missing compile time: %q", UnavailableLines(m.Naming, m.Unavailable, m.CPUSource))
	}
}

// JITCompiled sums each broker's first-to-last increase; JITRate reads the
// last window from the last scrape at least the window before the newest.
func TestJITCompiledAndRate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var b1, b2 []BrokerSample
	// Broker 1 compiles 1 s/s for 4 s, then nothing; broker 2 0.01 s/s throughout.
	for i := range 10 {
		at := t0.Add(time.Duration(i) * time.Second)
		b1 = append(b1, jitScrape(t, at, 20+math.Min(float64(i), 4), 0))
		b2 = append(b2, jitScrape(t, at, 5+0.01*float64(i), 0))
	}
	all := [][]BrokerSample{b1, b2}
	if sec, ok := JITCompiled(all); !ok || math.Abs(sec-(4+0.09)) > 1e-9 {
		t.Errorf("compiled %v (%v), want 4.09", sec, ok)
	}
	// Over scrapes 0–5 the window is 0→5: broker 1 compiled 4 s in 5 s.
	if r, ok := JITRate([][]BrokerSample{b1[:6], b2[:6]}, 5*time.Second); !ok || math.Abs(r-(0.8+0.01)) > 1e-9 {
		t.Errorf("rate over 0–5 s %v (%v), want 0.81", r, ok)
	}
	// Over scrapes up to 9 the window is 4→9: broker 1 flat.
	if r, ok := JITRate(all, 5*time.Second); !ok || math.Abs(r-0.01) > 1e-9 {
		t.Errorf("rate over 4–9 s %v (%v), want 0.01", r, ok)
	}
	// Less than a window of scrapes, or a broker without the series: no reading.
	if _, ok := JITRate([][]BrokerSample{b1[:5], b2[:5]}, 5*time.Second); ok {
		t.Error("a rate from 4 s of scrapes over a 5 s window")
	}
	bare := append([]BrokerSample(nil), b2...)
	bare[len(bare)-1].figures &^= figJIT
	if _, ok := JITRate([][]BrokerSample{b1, bare}, 5*time.Second); ok {
		t.Error("a rate with a broker lacking the series")
	}
	if _, ok := JITCompiled([][]BrokerSample{b1, bare}); ok {
		t.Error("a compiled total with a broker lacking the series")
	}
	if _, ok := JITCompiled(nil); ok {
		t.Error("a compiled total from no broker")
	}
}
