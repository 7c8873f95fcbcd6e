package collectors

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sharebench/sharebench/internal/redact"
)

// BrokerSample is what one scrape of one broker's JMX exporter endpoint
// says: the figures sharebench reads, picked by series name from the
// agent's default export (infra/jmx_exporter.yaml). Cumulative counters are
// totals since the broker started; a series the broker does not (yet)
// export stays 0 (SharePartitionMetrics appear only once a share group has
// fetched, RequestsPerSec once a request of that type arrived).
type BrokerSample struct {
	At time.Time

	// ProcessCPUSeconds is the JVM's user+system CPU time
	// (process_cpu_seconds_total, else OperatingSystem ProcessCpuTime).
	ProcessCPUSeconds float64
	// ProcessCPULoad is OperatingSystem ProcessCpuLoad (0–1 of all cores).
	ProcessCPULoad float64
	HeapUsedBytes  float64 // java.lang:type=Memory HeapMemoryUsage.used
	HeapCommitted  float64 // HeapMemoryUsage.committed
	// HeapAfterGCBytes is the heap in use right after the last young
	// collection (its LastGcInfo, summed over the heap pools), or the G1
	// Old Gen CollectionUsage when that is larger.
	HeapAfterGCBytes float64
	GCCount          float64 // collections, all collectors
	GCSeconds        float64 // collection time, all collectors
	// JITCompileSeconds is the JVM's JIT compilation time since it started
	// (the agent's jvm_compilation_time_seconds_total, else the
	// java.lang:type=Compilation MBean's TotalCompilationTime in ms): the
	// time each compiler thread spent compiling, summed over the threads.
	// Meaningful only when the scrape has one of them (HasJIT).
	JITCompileSeconds float64

	ShareCoordWrites          float64 // share-coordinator-metrics write-total
	ShareCoordWriteRate       float64 // write-rate (per second, Kafka's 30 s window)
	ShareCoordWriteLatencyAvg float64 // write-latency-avg, ms (NaN before the first write)
	ShareCoordWriteLatencyMax float64 // write-latency-max, ms
	ShareCoordThreadIdle      float64 // thread-idle-ratio-avg
	ShareGroups               float64 // group-coordinator share-group-count, all states
	ConsumerGroups            float64 // group-coordinator consumer-group-count, all states

	// Acks are RecordAcknowledgementsPerSec counts by ackType (Accept,
	// Release, Reject, Renew).
	Acks map[string]float64
	// AcquisitionLockTimeouts sums AcquisitionLockTimeoutPerSec counts
	// over every share partition.
	AcquisitionLockTimeouts float64
	// InFlightMessages sums InFlightMessageCount over every share partition.
	InFlightMessages float64
	// Requests are RequestsPerSec counts by request type, over versions.
	Requests map[string]float64
	// RequestHandlerIdle is KafkaRequestHandlerPool
	// RequestHandlerAvgIdlePercent's one-minute rate (0–1).
	RequestHandlerIdle float64
	BytesIn            float64 // BrokerTopicMetrics BytesInPerSec count
	BytesOut           float64 // BrokerTopicMetrics BytesOutPerSec count
	// SharePartition are the KIP-1103 figures (sharepartition.go).
	SharePartition SharePartitionSample

	// Naming is the exporter naming the scrape was read with (naming.go).
	Naming Naming
	// HostCPUSeconds is the broker host's busy CPU time and HostCPUs its
	// CPUs (node exporter node_cpu_seconds_total; 0 without one).
	HostCPUSeconds float64
	HostCPUs       int
	// figures are the run.json figures this naming can give.
	figures figure
}

// HasJIT reports whether the scrape gave the JVM's JIT compilation time.
func (s BrokerSample) HasJIT() bool { return s.figures&figJIT != 0 }

// heapPool reports whether a memory pool name is a heap pool.
func heapPool(name string) bool {
	for _, p := range []string{"Eden", "Survivor", "Old Gen", "Tenured"} {
		if strings.Contains(name, p) {
			return true
		}
	}
	return false
}

// ParseBrokerMetrics reads one scrape in the Prometheus text format, of a
// naming detected from its series.
func ParseBrokerMetrics(r io.Reader) (BrokerSample, error) {
	return ParseBrokerMetricsAs(r, NamingAuto)
}

// ParseBrokerMetricsAs reads one scrape of the given naming (NamingAuto:
// detected), rewritten into this repository's names (naming.go).
func ParseBrokerMetricsAs(r io.Reader, naming Naming) (BrokerSample, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return BrokerSample{}, fmt.Errorf("broker metrics: parse: %w", err)
	}
	if naming == NamingAuto || naming == "" {
		if naming, err = detectNaming(fams); err != nil {
			return BrokerSample{}, err
		}
	}
	s := BrokerSample{Acks: map[string]float64{}, Requests: map[string]float64{}, Naming: naming}
	fams, s.figures = canonical(naming, fams)
	s.HostCPUSeconds, s.HostCPUs = hostCPUBusy(fams)
	var osCPUNanos, oldGenCollection, jitMs float64
	haveProcessCPU, haveAgentJIT := false, false
	for name, fam := range fams {
		for _, m := range fam.GetMetric() {
			v := value(m)
			if math.IsNaN(v) && m.Summary == nil && !strings.HasPrefix(name, "kafka_server_share_coordinator_metrics_write_latency") {
				continue
			}
			l := labels(m)
			switch {
			case name == "process_cpu_seconds_total":
				s.ProcessCPUSeconds, haveProcessCPU = v, true
			case name == "java_lang_operatingsystem_processcputime":
				osCPUNanos = v
			case name == "java_lang_operatingsystem_processcpuload":
				s.ProcessCPULoad = v
			case name == "java_lang_memory_heapmemoryusage_used":
				s.HeapUsedBytes = v
			case name == "java_lang_memory_heapmemoryusage_committed":
				s.HeapCommitted = v
			case strings.HasSuffix(name, "_lastgcinfo_memoryusageaftergc_used") && strings.Contains(name, "young"):
				if heapPool(l["key"]) {
					s.HeapAfterGCBytes += v
				}
			case name == "jvm_memory_pool_collection_used_bytes" && strings.Contains(l["pool"], "Old Gen"):
				oldGenCollection = v
			case name == "jvm_compilation_time_seconds_total":
				s.JITCompileSeconds, haveAgentJIT = v, true
			case name == "java_lang_compilation_totalcompilationtime":
				jitMs = v
			case name == "jvm_gc_collection_seconds" && m.Summary != nil: // a summary family
				s.GCCount += float64(m.Summary.GetSampleCount())
				s.GCSeconds += m.Summary.GetSampleSum()
			case name == "jvm_gc_collection_seconds_count": // untyped exposition
				s.GCCount += v
			case name == "jvm_gc_collection_seconds_sum":
				s.GCSeconds += v
			case name == "kafka_server_share_coordinator_metrics_write", name == "kafka_server_share_coordinator_metrics_write_total":
				s.ShareCoordWrites = v
			case name == "kafka_server_share_coordinator_metrics_write_rate":
				s.ShareCoordWriteRate = v
			case name == "kafka_server_share_coordinator_metrics_write_latency_avg":
				s.ShareCoordWriteLatencyAvg = v
			case name == "kafka_server_share_coordinator_metrics_write_latency_max":
				s.ShareCoordWriteLatencyMax = v
			case name == "kafka_server_share_coordinator_metrics_thread_idle_ratio_avg":
				s.ShareCoordThreadIdle = v
			case name == "kafka_server_group_coordinator_metrics_share_group_count":
				s.ShareGroups += v
			case name == "kafka_server_group_coordinator_metrics_consumer_group_count":
				s.ConsumerGroups += v
			case name == "kafka_server_sharegroupmetrics_count" && l["name"] == "RecordAcknowledgementsPerSec":
				s.Acks[l["acktype"]] += v
			case name == "kafka_server_sharepartitionmetrics_count" && l["name"] == "AcquisitionLockTimeoutPerSec":
				s.AcquisitionLockTimeouts += v
			case name == "kafka_server_sharepartitionmetrics_value" && l["name"] == "InFlightMessageCount":
				s.InFlightMessages += v
			case name == "kafka_network_requestmetrics_count" && l["name"] == "RequestsPerSec":
				s.Requests[l["request"]] += v
			case name == "kafka_server_kafkarequesthandlerpool_oneminuterate" && l["name"] == "RequestHandlerAvgIdlePercent":
				s.RequestHandlerIdle = v
			case name == "kafka_server_brokertopicmetrics_count" && l["name"] == "BytesInPerSec" && l["topic"] == "":
				s.BytesIn = v
			case name == "kafka_server_brokertopicmetrics_count" && l["name"] == "BytesOutPerSec" && l["topic"] == "":
				s.BytesOut = v
			}
		}
	}
	if !haveProcessCPU {
		s.ProcessCPUSeconds = osCPUNanos / 1e9
	}
	if !haveAgentJIT {
		s.JITCompileSeconds = jitMs / 1e3
	}
	s.HeapAfterGCBytes = max(s.HeapAfterGCBytes, oldGenCollection)
	s.SharePartition = parseSharePartition(fams)
	return s, nil
}

// value is a sample's reading; an infinite one (an exporter may write +Inf)
// reads as unknown (NaN), like a missing one, so it can never reach a sum,
// an average or run.json as infinity.
func value(m *dto.Metric) float64 {
	v := math.NaN()
	switch {
	case m.Gauge != nil:
		v = m.Gauge.GetValue()
	case m.Counter != nil:
		v = m.Counter.GetValue()
	case m.Untyped != nil:
		v = m.Untyped.GetValue()
	}
	if math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}

func labels(m *dto.Metric) map[string]string {
	l := make(map[string]string, len(m.GetLabel()))
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}

// BrokerScraper scrapes every broker's metrics endpoint at a fixed interval
// in the background. Failed scrapes are counted, never fatal.
type BrokerScraper struct {
	urls     []string
	namings  []Naming // per URL ([NAMING=]URL; auto without a prefix)
	interval time.Duration
	// Tick and Now replace the wall clock (tests); nil: RealTicker, time.Now.
	Tick    Ticker
	Now     func() time.Time
	client  *http.Client
	maxKeep int

	mu      sync.Mutex
	samples [][]BrokerSample // per URL, in time order
	errors  int
	lastErr string

	loop *periodic
	cost CPUMeter // the scrapes' own CPU on the harness (selfcost.go)
}

// CPU is the harness CPU the scrapes and their parsing took (CPUMeter).
func (s *BrokerScraper) CPU() *CPUMeter {
	if s == nil {
		return nil
	}
	return &s.cost
}

// maxSamples bounds the samples kept per broker (a 1 s interval keeps 18 h).
const maxSamples = 1 << 16

// NewBrokerScraper returns a scraper of urls every interval (default 1 s);
// each request times out after the interval (at least 2 s, at most 5 s).
func NewBrokerScraper(urls []string, interval time.Duration) *BrokerScraper {
	if interval <= 0 {
		interval = time.Second
	}
	namings := make([]Naming, len(urls))
	urls = slices.Clone(urls)
	for i, u := range urls {
		urls[i], namings[i], _ = ParseMetricsEndpoint(u) // validated by the CLI; a bad one fails its scrapes
	}
	return &BrokerScraper{
		urls: urls, namings: namings, interval: interval, maxKeep: maxSamples,
		client:  &http.Client{Timeout: min(max(interval, 2*time.Second), 5*time.Second)},
		samples: make([][]BrokerSample, len(urls)),
	}
}

// Start scrapes once at once, then every interval, until Stop or ctx ends.
// With no URLs it does nothing.
func (s *BrokerScraper) Start(ctx context.Context) {
	if len(s.urls) == 0 {
		return
	}
	s.loop = startPeriodic(ctx, s.interval, s.Tick, s.ScrapeAll)
}

// Stop ends the background loop, takes one final scrape (so counters cover
// everything up to now) and returns.
func (s *BrokerScraper) Stop() {
	if s.loop == nil {
		return
	}
	s.loop.stop()
	s.loop = nil
	ctx, cancel := context.WithTimeout(context.Background(), s.client.Timeout)
	defer cancel()
	s.ScrapeAll(ctx)
}

// ScrapeAll scrapes every URL once, in parallel.
func (s *BrokerScraper) ScrapeAll(ctx context.Context) {
	var wg sync.WaitGroup
	for i, u := range s.urls {
		wg.Go(func() {
			var sample BrokerSample
			var err error
			s.mu.Lock()
			naming := s.namings[i]
			s.mu.Unlock()
			s.cost.Measure(func() { sample, err = s.scrape(ctx, u, naming) })
			s.mu.Lock()
			defer s.mu.Unlock()
			if err == nil && s.namings[i] == NamingAuto {
				s.namings[i] = sample.Naming // detected: later scrapes ask for what it reads
			}
			if err != nil {
				if ctx.Err() == nil {
					s.errors++
					s.lastErr = err.Error()
				}
				return
			}
			if len(s.samples[i]) < s.maxKeep { // in time order: a window edge's scrape may overlap the loop's
				ss := s.samples[i]
				at, _ := slices.BinarySearchFunc(ss, sample.At, func(x BrokerSample, t time.Time) int { return x.At.Compare(t) })
				s.samples[i] = slices.Insert(ss, at, sample)
			}
		})
	}
	wg.Wait()
}

func (s *BrokerScraper) scrape(ctx context.Context, url string, naming Naming) (BrokerSample, error) {
	shown := redact.URL(url) // errors end up in reports: never the credentials
	if naming == NamingSharebench {
		url = filtered(url) // namefilter.go: only the series the parser reads
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return BrokerSample{}, fmt.Errorf("broker metrics %s: %s", shown, redact.Text(err.Error()))
	}
	at := now(s.Now)
	resp, err := s.client.Do(req)
	if err != nil {
		return BrokerSample{}, fmt.Errorf("broker metrics %s: %s", shown, redact.Text(err.Error()))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return BrokerSample{}, fmt.Errorf("broker metrics %s: HTTP %s", shown, resp.Status)
	}
	sample, err := ParseBrokerMetricsAs(io.LimitReader(resp.Body, 32<<20), naming)
	if err != nil {
		return BrokerSample{}, fmt.Errorf("%s: %w", shown, err)
	}
	sample.At = at
	return sample, nil
}

// Samples returns a copy of the samples kept per URL.
func (s *BrokerScraper) Samples() [][]BrokerSample {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]BrokerSample, len(s.samples))
	for i, ss := range s.samples {
		out[i] = append([]BrokerSample(nil), ss...)
	}
	return out
}

// Errors returns the number of failed scrapes and the last failure.
func (s *BrokerScraper) Errors() (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errors, s.lastErr
}
