package collectors

import (
	"fmt"
	"math"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// Naming is the metric naming of a broker metrics endpoint: which exporter
// configuration produced the scrape. ParseBrokerMetrics reads every naming
// by rewriting its series into this repository's names (infra/jmx_exporter.yaml)
// and records which run.json broker figures the naming can give.
type Naming string

const (
	// NamingAuto detects the naming from the exposition (detectNaming).
	NamingAuto Naming = "auto"
	// NamingSharebench is infra/jmx_exporter.yaml: JMX exporter agent, no
	// rules, names and label names in lower case.
	NamingSharebench Naming = "sharebench"
	// NamingStrimzi is Strimzi's default Kafka metrics rules (the
	// kafka-metrics ConfigMap of Strimzi's examples,
	// kafka_server_brokertopicmetrics_bytesin_total, jvm_memory_used_bytes ...).
	NamingStrimzi Naming = "strimzi"
	// NamingMSK is Amazon MSK open monitoring's JMX exporter (port 11001):
	// no rules, case kept (kafka_server_BrokerTopicMetrics_Count{name="BytesInPerSec"},
	// java_lang_Memory_HeapMemoryUsage_used).
	NamingMSK Naming = "msk"
	// NamingNode is a Prometheus node exporter (MSK open monitoring's port
	// 11002): the broker host's CPU (node_cpu_seconds_total), nothing else.
	NamingNode Naming = "node"
)

// Namings are the namings --metrics-url NAMING=URL accepts.
var Namings = []Naming{NamingAuto, NamingSharebench, NamingStrimzi, NamingMSK, NamingNode}

// ParseMetricsEndpoint splits a --metrics-url value, [NAMING=]URL, into the
// URL and its naming (auto without a prefix).
func ParseMetricsEndpoint(s string) (string, Naming, error) {
	scheme := strings.Index(s, "://")
	eq := strings.Index(s, "=")
	if eq < 0 || scheme >= 0 && eq > scheme {
		if scheme < 0 {
			return s, NamingAuto, fmt.Errorf("metrics endpoint %q: expected [NAMING=]http://HOST:PORT/metrics", s)
		}
		return s, NamingAuto, nil
	}
	n, url := Naming(strings.TrimSpace(s[:eq])), s[eq+1:]
	if !slices.Contains(Namings, n) {
		return url, NamingAuto, fmt.Errorf("metrics endpoint %q: unknown metrics naming %q: expected NAMING=URL with NAMING one of %s", s, n, namingList())
	}
	if !strings.Contains(url, "://") {
		return url, n, fmt.Errorf("metrics endpoint %q: expected %s=http://HOST:PORT/metrics", s, n)
	}
	return url, n, nil
}

func namingList() string {
	names := make([]string, len(Namings))
	for i, n := range Namings {
		names[i] = string(n)
	}
	return strings.Join(names, ", ")
}

// figure is a set of run.json broker figures (bits).
type figure uint32

const (
	figCPU          figure = 1 << iota // the JVM's process CPU
	figHostCPU                         // the broker host's CPU (node exporter)
	figHeap                            // heap used / committed
	figHeapAfterGC                     // heap after the last young GC
	figGC                              // GC count and time
	figShareCoord                      // share-coordinator writes
	figLockTimeouts                    // AcquisitionLockTimeoutPerSec
	figAcks                            // RecordAcknowledgementsPerSec
	figInFlight                        // InFlightMessageCount
	figRequests                        // RequestsPerSec by type
	figHandlerIdle                     // RequestHandlerAvgIdlePercent one-minute rate
	figBytes                           // BytesInPerSec / BytesOutPerSec
	figJIT                             // the JVM's JIT compilation time
	figAll          = 1<<iota - 1
	// figByPresence are the figures a scrape gives when it has their
	// series, whatever its naming (canonical).
	figByPresence = figHostCPU | figJIT
)

// figureGroups names each figure's run.json keys and its words for people,
// in run.json order.
var figureGroups = []struct {
	fig   figure
	label string
	keys  []string
}{
	{figCPU | figHostCPU, "broker CPU", []string{"cpu_percent_avg", "cpu_seconds", "cpu_seconds_per_million_records"}},
	{figHeap, "broker heap", []string{"heap_used_max_bytes", "heap_committed_max_bytes"}},
	{figHeapAfterGC, "broker heap after GC", []string{"heap_after_gc_max_bytes"}},
	{figGC, "broker GC", []string{"gc_time_percent", "gc_count"}},
	{figJIT, "broker JIT compilation", []string{"jit_compile_s"}},
	{figShareCoord, "share-coordinator writes", []string{"share_coordinator_write_rate_avg", "share_coordinator_write_latency_max_ms", "share_coordinator_writes_run"}},
	{figLockTimeouts, "acquisition lock timeouts", []string{"acquisition_lock_timeouts_total"}},
	{figAcks, "broker acknowledgements", []string{"acks_run"}},
	{figInFlight, "broker in-flight records", []string{"in_flight_messages_max"}},
	{figRequests, "broker request rates", []string{"requests_per_sec"}},
	{figHandlerIdle, "request handler idle", []string{"request_handler_idle_min"}},
	{figBytes, "broker bytes in/out", []string{"bytes_in_per_sec", "bytes_out_per_sec"}},
}

// namingFigures are the figures each naming can give. What a naming
// cannot give, and why:
//   - strimzi: no java.lang MBeans (heap after GC); no rule for the
//     share-coordinator-metrics MBean; RequestMetrics excluded by the rules;
//     RequestHandlerAvgIdlePercent only as its mean since the broker started.
//   - msk: the JVM's CPU only when the exporter has the OperatingSystem MBean
//     or the agent's process series (else take it from the node exporter).
//   - node: the host's CPU only.
//
// The figures in figByPresence (the host's CPU, JIT compilation time) come
// from whichever scrape has their series: the JIT time is the JVM series
// of the exporter agent (1.x), which no naming's rules decide.
var namingFigures = map[Naming]figure{
	NamingSharebench: figAll &^ figByPresence,
	NamingStrimzi:    figAll &^ (figByPresence | figHeapAfterGC | figShareCoord | figRequests | figHandlerIdle),
	NamingMSK:        figAll &^ (figByPresence | figCPU),
	NamingNode:       0,
}

// detectNaming tells the naming of a scrape by its characteristic series,
// or fails naming the namings it knows.
func detectNaming(fams map[string]*dto.MetricFamily) (Naming, error) {
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := fams[n]; ok {
				return true
			}
		}
		return false
	}
	switch {
	case has("kafka_server_brokertopicmetrics_count", "java_lang_memory_heapmemoryusage_used"):
		return NamingSharebench, nil
	case has("kafka_server_brokertopicmetrics_bytesin_total", "kafka_server_brokertopicmetrics_messagesin_total",
		"kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent"):
		return NamingStrimzi, nil
	case has("kafka_server_BrokerTopicMetrics_Count", "java_lang_Memory_HeapMemoryUsage_used"):
		return NamingMSK, nil
	case has("node_cpu_seconds_total"):
		return NamingNode, nil
	}
	for name := range fams { // a partial scrape of the default names (lower case)
		if (strings.HasPrefix(name, "java_lang_") || strings.HasPrefix(name, "kafka_")) && name == strings.ToLower(name) {
			return NamingSharebench, nil
		}
	}
	return "", fmt.Errorf("broker metrics: no series of a known naming (%s): name the exporter with --metrics-url NAMING=URL",
		strings.Join([]string{string(NamingSharebench), string(NamingStrimzi), string(NamingMSK), string(NamingNode)}, ", "))
}

// canonical rewrites the families of naming n into this repository's
// names, which ParseBrokerMetrics reads, and returns the figures the scrape
// gives.
func canonical(n Naming, fams map[string]*dto.MetricFamily) (map[string]*dto.MetricFamily, figure) {
	out := make(map[string]*dto.MetricFamily, len(fams))
	add := func(name string, m *dto.Metric, extra map[string]string, scale float64) {
		m = relabel(m, n == NamingMSK, extra, scale)
		f, ok := out[name]
		if !ok {
			f = &dto.MetricFamily{Name: &name}
			out[name] = f
		}
		f.Metric = append(f.Metric, m)
	}
	for name, fam := range fams {
		switch n {
		case NamingMSK:
			name = strings.ToLower(name)
		case NamingStrimzi:
			if to, extra, ok := strimziName(name); ok {
				for _, m := range fam.GetMetric() {
					if extra != nil || labelValue(m, "area") == "heap" { // JVM series: the heap area only
						add(to, m, extra, 1)
					}
				}
				continue
			}
		}
		if _, ok := out[name]; ok {
			for _, m := range fam.GetMetric() {
				add(name, m, nil, 1)
			}
			continue
		}
		if n == NamingMSK {
			for _, m := range fam.GetMetric() {
				add(name, m, nil, 1)
			}
			out[name].Type = fam.Type
			continue
		}
		out[name] = fam
	}
	gcFromCollectors(out)
	figs := namingFigures[n]
	if n == NamingMSK && hasAny(out, "java_lang_operatingsystem_processcputime", "process_cpu_seconds_total") {
		figs |= figCPU
	}
	if _, ok := out["node_cpu_seconds_total"]; ok {
		figs |= figHostCPU
	}
	if hasAny(out, "jvm_compilation_time_seconds_total", "java_lang_compilation_totalcompilationtime") {
		figs |= figJIT
	}
	return out, figs
}

// strimziName maps a Strimzi series name to this repository's, with the
// labels the default naming carries; extra nil: a JVM area series (heap only).
func strimziName(name string) (string, map[string]string, bool) {
	switch name {
	case "kafka_server_brokertopicmetrics_bytesin_total":
		return "kafka_server_brokertopicmetrics_count", map[string]string{"name": "BytesInPerSec"}, true
	case "kafka_server_brokertopicmetrics_bytesout_total":
		return "kafka_server_brokertopicmetrics_count", map[string]string{"name": "BytesOutPerSec"}, true
	case "kafka_server_sharegroupmetrics_recordacknowledgements_total":
		return "kafka_server_sharegroupmetrics_count", map[string]string{"name": "RecordAcknowledgementsPerSec"}, true
	case "kafka_server_sharepartitionmetrics_acquisitionlocktimeout_total":
		return "kafka_server_sharepartitionmetrics_count", map[string]string{"name": "AcquisitionLockTimeoutPerSec"}, true
	case "jvm_memory_used_bytes", "jvm_memory_bytes_used": // client_java 1.x, 0.x
		return "java_lang_memory_heapmemoryusage_used", nil, true
	case "jvm_memory_committed_bytes", "jvm_memory_bytes_committed":
		return "java_lang_memory_heapmemoryusage_committed", nil, true
	}
	// SharePartitionMetrics carry three key properties (group, topic,
	// partition); Strimzi's generic gauge rule takes two, so the group lands
	// in the name: ..._inflightmessagecount_group_<group>{topic=,partition=}.
	if name == "kafka_server_sharepartitionmetrics_inflightmessagecount" ||
		strings.HasPrefix(name, "kafka_server_sharepartitionmetrics_inflightmessagecount_group_") {
		return "kafka_server_sharepartitionmetrics_value", map[string]string{"name": "InFlightMessageCount"}, true
	}
	return "", nil, false
}

// gcFromCollectors reads GC counts and times from the GarbageCollector
// MBeans (java_lang_<collector>_collectioncount / _collectiontime ms) when
// the scrape has no agent JVM series (jvm_gc_collection_seconds).
func gcFromCollectors(fams map[string]*dto.MetricFamily) {
	if hasAny(fams, "jvm_gc_collection_seconds", "jvm_gc_collection_seconds_count") {
		return
	}
	for name, fam := range fams {
		gc, kind, ok := collectorSeries(name)
		if !ok {
			continue
		}
		to, scale := "jvm_gc_collection_seconds_count", 1.0
		if kind == "time" {
			to, scale = "jvm_gc_collection_seconds_sum", 1e-3
		}
		f, ok := fams[to]
		if !ok {
			f = &dto.MetricFamily{Name: &to}
			fams[to] = f
		}
		for _, m := range fam.GetMetric() {
			if !strings.EqualFold(labelValue(m, "type"), "GarbageCollector") {
				continue
			}
			f.Metric = append(f.Metric, relabel(m, false, map[string]string{"gc": gc}, scale))
		}
	}
}

// collectorSeries splits java_lang_<collector>_collection{count,time}.
func collectorSeries(name string) (string, string, bool) {
	rest, ok := strings.CutPrefix(name, "java_lang_")
	if !ok {
		return "", "", false
	}
	for _, kind := range []string{"count", "time"} {
		if gc, ok := strings.CutSuffix(rest, "_collection"+kind); ok {
			return gc, kind, true
		}
	}
	return "", "", false
}

// relabel copies m with its label names in lower case (lower), the extra
// labels added and its value scaled, as an untyped sample.
func relabel(m *dto.Metric, lower bool, extra map[string]string, scale float64) *dto.Metric {
	v := value(m)
	if m.Summary != nil && scale == 1 && extra == nil && !lower {
		return m
	}
	out := &dto.Metric{Summary: m.Summary}
	if m.Summary == nil {
		v *= scale
		out.Untyped = &dto.Untyped{Value: &v}
	}
	for _, p := range m.GetLabel() {
		name := p.GetName()
		if lower {
			name = strings.ToLower(name)
		}
		if name == "acktype" || strings.EqualFold(name, "ackType") {
			name = "acktype"
		}
		out.Label = append(out.Label, &dto.LabelPair{Name: &name, Value: p.Value})
	}
	for k, val := range extra {
		out.Label = append(out.Label, &dto.LabelPair{Name: &k, Value: &val})
	}
	return out
}

func labelValue(m *dto.Metric, name string) string {
	for _, p := range m.GetLabel() {
		if p.GetName() == name {
			return p.GetValue()
		}
	}
	return ""
}

func hasAny(fams map[string]*dto.MetricFamily, names ...string) bool {
	for _, n := range names {
		if _, ok := fams[n]; ok {
			return true
		}
	}
	return false
}

// hostCPUBusy sums node_cpu_seconds_total over every CPU and mode except
// idle, iowait and steal (time the host's CPUs were not running it), and
// counts the CPUs.
func hostCPUBusy(fams map[string]*dto.MetricFamily) (busy float64, cpus int) {
	fam, ok := fams["node_cpu_seconds_total"]
	if !ok {
		return 0, 0
	}
	seen := map[string]bool{}
	for _, m := range fam.GetMetric() {
		seen[labelValue(m, "cpu")] = true
		switch labelValue(m, "mode") {
		case "idle", "iowait", "steal":
			continue
		}
		if v := value(m); !math.IsNaN(v) {
			busy += v
		}
	}
	return busy, len(seen)
}

// Unavailable lists the run.json keys of the broker figures outside figs.
func (f figure) unavailable() []string {
	var out []string
	for _, g := range figureGroups {
		if f&g.fig == 0 {
			out = append(out, g.keys...)
		}
	}
	return out
}

// UnavailableLines are the console lines for a run's broker figures that
// its exporters cannot give, e.g. "broker CPU: unavailable from this
// exporter (strimzi)", and one saying when broker CPU is the hosts'.
func UnavailableLines(naming string, unavailable []string, cpuSource string) []string {
	var out []string
	for _, g := range figureGroups {
		if slices.Contains(unavailable, g.keys[0]) {
			out = append(out, fmt.Sprintf("%s: unavailable from this exporter (%s)", g.label, naming))
		}
	}
	if cpuSource == CPUSourceHost {
		out = append(out, "broker CPU: the broker hosts' CPU (node exporter), not the JVM's alone")
	}
	return out
}

// CPUSourceHost is results.BrokerMetrics.CPUSource when broker CPU comes
// from the node exporter.
const CPUSourceHost = "host"
