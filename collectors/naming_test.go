package collectors

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func parseFile(t *testing.T, name string, n Naming) BrokerSample {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ParseBrokerMetricsAs(f, n)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// window summarizes two scrapes per endpoint 10 s apart, the second with
// every cumulative counter moved on.
func window(ss ...BrokerSample) (out [][]BrokerSample) {
	t0 := time.Unix(1000, 0)
	for _, a := range ss {
		a.At = t0
		b := a
		b.At = t0.Add(10 * time.Second)
		if a.HostCPUs > 0 { // a node exporter
			b.HostCPUSeconds += 8
		} else {
			b.ProcessCPUSeconds += 5
		}
		b.InFlightMessages += 10
		b.GCSeconds += 0.2
		b.GCCount += 4
		b.JITCompileSeconds += 0.5
		b.BytesIn += 1e6
		b.ShareCoordWrites += 100
		b.Acks = map[string]float64{"Accept": a.Acks["Accept"] + 1000}
		out = append(out, []BrokerSample{a, b})
	}
	return out
}

// Each naming's recorded exposition is detected, read into the same
// figures, and the figures it cannot give are listed as unavailable (and
// read 0), never left as a silent 0.
func TestBrokerNamings(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		file        string
		naming      Naming
		unavailable []string
		cpuSource   string
	}{
		{"broker-4.2.2-share.prom", NamingSharebench, []string{"jit_compile_s"}, ""}, // trimmed before the JIT series was read: broker-4.2.2-jit.prom has it
		{"broker-strimzi-share.prom", NamingStrimzi, []string{"heap_after_gc_max_bytes", "jit_compile_s", "share_coordinator_write_rate_avg",
			"share_coordinator_write_latency_max_ms", "share_coordinator_writes_run", "requests_per_sec", "request_handler_idle_min"}, ""},
		{"broker-msk-jmx.prom", NamingMSK, []string{"cpu_percent_avg", "cpu_seconds", "cpu_seconds_per_million_records", "jit_compile_s"}, ""},
		{"broker-msk-node.prom", NamingNode, []string{"heap_used_max_bytes", "heap_committed_max_bytes", "heap_after_gc_max_bytes",
			"gc_time_percent", "gc_count", "jit_compile_s", "share_coordinator_write_rate_avg", "share_coordinator_write_latency_max_ms",
			"share_coordinator_writes_run", "acquisition_lock_timeouts_total", "acks_run", "in_flight_messages_max",
			"requests_per_sec", "request_handler_idle_min", "bytes_in_per_sec", "bytes_out_per_sec"}, CPUSourceHost},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			s := parseFile(t, tc.file, NamingAuto)
			if s.Naming != tc.naming {
				t.Fatalf("detected %q, want %q", s.Naming, tc.naming)
			}
			if forced := parseFile(t, tc.file, tc.naming); forced.figures != s.figures {
				t.Errorf("forced naming gives figures %b, detected %b", forced.figures, s.figures)
			}
			m := SummarizeBroker(window(s), t0, t0.Add(10*time.Second), 1000, 4)
			if m.Naming != string(tc.naming) || !slices.Equal(m.Unavailable, tc.unavailable) || m.CPUSource != tc.cpuSource {
				t.Errorf("naming %q, unavailable %v, cpu source %q; want %q, %v, %q", m.Naming, m.Unavailable, m.CPUSource, tc.naming, tc.unavailable, tc.cpuSource)
			}
			filled := map[string]bool{
				"cpu_seconds": m.CPUSeconds > 0, "heap_used_max_bytes": m.HeapUsedMaxBytes > 0, "heap_committed_max_bytes": m.HeapCommittedMaxBytes > 0,
				"heap_after_gc_max_bytes": m.HeapAfterGCMaxBytes > 0, "gc_time_percent": m.GCTimePercent > 0, "gc_count": m.GCCount > 0,
				"share_coordinator_writes_run": m.ShareCoordinatorWritesRun > 0, "share_coordinator_write_latency_max_ms": m.ShareCoordinatorWriteLatencyMaxMs > 0,
				"acks_run": m.AcksRun["Accept"] > 0, "in_flight_messages_max": m.InFlightMessagesMax > 0,
				"requests_per_sec": len(m.RequestsPerSec) > 0, "request_handler_idle_min": m.RequestHandlerIdleMin > 0,
				"bytes_in_per_sec": m.BytesInPerSec > 0, "jit_compile_s": m.JITCompileSeconds > 0,
			}
			for key, ok := range filled {
				if want := !slices.Contains(tc.unavailable, key); ok != want {
					t.Errorf("%s filled = %v, want %v", key, ok, want)
				}
			}
			lines := UnavailableLines(m.Naming, m.Unavailable, m.CPUSource)
			if slices.Contains(tc.unavailable, "cpu_seconds") && !slices.Contains(lines, "broker CPU: unavailable from this exporter ("+string(tc.naming)+")") {
				t.Errorf("no CPU line in %q", lines)
			}
			if slices.Contains(tc.unavailable, "jit_compile_s") && !slices.Contains(lines, "broker JIT compilation: unavailable from this exporter ("+string(tc.naming)+")") {
				t.Errorf("no JIT line in %q", lines)
			}
			if len(tc.unavailable) == 0 && len(lines) != 0 {
				t.Errorf("lines for a complete naming: %q", lines)
			}
		})
	}
}

// The figures read from each naming match what the exposition says.
func TestBrokerNamingValues(t *testing.T) {
	st := parseFile(t, "broker-strimzi-share.prom", NamingAuto)
	for name, c := range map[string][2]float64{
		"cpu": {st.ProcessCPUSeconds, 10.6}, "heap": {st.HeapUsedBytes, 1.8999792e8}, "committed": {st.HeapCommitted, 1.073741824e9},
		"gc count": {st.GCCount, 10}, "gc s": {st.GCSeconds, 0.552}, "accept": {st.Acks["Accept"], 3823}, "release": {st.Acks["Release"], 1},
		"in flight": {st.InFlightMessages, 93 + 46}, "bytes in": {st.BytesIn, 152252}, "bytes out": {st.BytesOut, 78734},
	} {
		if c[0] != c[1] {
			t.Errorf("strimzi %s = %v, want %v", name, c[0], c[1])
		}
	}
	msk := parseFile(t, "broker-msk-jmx.prom", NamingAuto)
	for name, c := range map[string][2]float64{
		"heap": {msk.HeapUsedBytes, 2.66800592e8}, "after gc": {msk.HeapAfterGCBytes, 2.10669568e8 + 6030032},
		"gc count": {msk.GCCount, 61}, "gc s": {msk.GCSeconds, 2.783}, "writes": {msk.ShareCoordWrites, 407},
		"accept": {msk.Acks["Accept"], 5501}, "in flight": {msk.InFlightMessages, 33 + 88}, "share fetch": {msk.Requests["ShareFetch"], 417},
		"idle": {msk.RequestHandlerIdle, 0.9596840778479241}, "bytes in": {msk.BytesIn, 371517},
	} {
		if c[0] != c[1] {
			t.Errorf("msk %s = %v, want %v", name, c[0], c[1])
		}
	}
	node := parseFile(t, "broker-msk-node.prom", NamingAuto)
	if node.HostCPUs != 2 || node.HostCPUSeconds <= 0 {
		t.Errorf("node exporter: %d CPUs, %v busy seconds", node.HostCPUs, node.HostCPUSeconds)
	}
}

// MSK's two endpoints together fill every figure: the JVM's from the JMX
// exporter, CPU from the node exporter (the hosts' CPU, said so); with the
// OperatingSystem MBean the JVM's CPU wins.
func TestBrokerNamingMSKBothEndpoints(t *testing.T) {
	t0 := time.Unix(1000, 0)
	jmx, node := parseFile(t, "broker-msk-jmx.prom", NamingAuto), parseFile(t, "broker-msk-node.prom", NamingAuto)
	m := SummarizeBroker(window(jmx, node), t0, t0.Add(10*time.Second), 1000, 64)
	// The JIT compile time is the agent's JVM series, which neither recorded MSK scrape has.
	if m.Naming != "msk+node" || !slices.Equal(m.Unavailable, []string{"jit_compile_s"}) || m.CPUSource != CPUSourceHost {
		t.Fatalf("naming %q, unavailable %v, cpu source %q", m.Naming, m.Unavailable, m.CPUSource)
	}
	if m.CPUSeconds != 8 || m.CPUPercentAvg != 40 { // 0.8 busy CPUs of the host's 2
		t.Errorf("host cpu %v s, %v %%", m.CPUSeconds, m.CPUPercentAvg)
	}
	body, _ := os.ReadFile(filepath.Join("testdata", "broker-msk-jmx.prom"))
	withOS, err := ParseBrokerMetrics(strings.NewReader(string(body) + "java_lang_OperatingSystem_ProcessCpuTime 2.138E10\n"))
	if err != nil {
		t.Fatal(err)
	}
	if withOS.ProcessCPUSeconds != 21.38 {
		t.Errorf("ProcessCpuTime read as %v s", withOS.ProcessCPUSeconds)
	}
	m = SummarizeBroker(window(withOS, node), t0, t0.Add(10*time.Second), 1000, 4)
	if m.CPUSource != "" || m.CPUSeconds != 5 || !slices.Equal(m.Unavailable, []string{"jit_compile_s"}) {
		t.Errorf("JVM CPU: source %q, %v s, unavailable %v", m.CPUSource, m.CPUSeconds, m.Unavailable)
	}
}

// --metrics-url [NAMING=]URL: a known prefix is taken, an unknown one is
// refused naming the known ones; a URL's own '=' is not a prefix.
func TestParseMetricsEndpoint(t *testing.T) {
	for in, want := range map[string][2]string{
		"http://b-1:11001/metrics":         {"http://b-1:11001/metrics", "auto"},
		"strimzi=http://k-0:9404/metrics":  {"http://k-0:9404/metrics", "strimzi"},
		"msk=http://b-1:11001/metrics":     {"http://b-1:11001/metrics", "msk"},
		"node=http://b-1:11002/metrics":    {"http://b-1:11002/metrics", "node"},
		"http://h:9404/metrics?name[]=a=b": {"http://h:9404/metrics?name[]=a=b", "auto"},
		"sharebench=http://127.0.0.1:1/m":  {"http://127.0.0.1:1/m", "sharebench"},
	} {
		u, n, err := ParseMetricsEndpoint(in)
		if err != nil || u != want[0] || string(n) != want[1] {
			t.Errorf("%q: %q %q %v, want %q %q", in, u, n, err, want[0], want[1])
		}
	}
	for in, msg := range map[string]string{
		"prometheus=http://h:9404/metrics": `unknown metrics naming "prometheus"`,
		"strimzi=h:9404":                   "expected strimzi=http://",
		"h:9404/metrics":                   "expected [NAMING=]http://",
	} {
		if _, _, err := ParseMetricsEndpoint(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", in, err, msg)
		}
	}
	if _, err := ParseBrokerMetrics(strings.NewReader("# TYPE x counter\nx 1\n")); err == nil || !strings.Contains(err.Error(), "NAMING=URL") {
		t.Errorf("unknown exposition: %v", err)
	}
}
