package collectors

import (
	"bufio"
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Each series the parser picks is chosen by its name AND a label (or a
// second name test): exposition lines that satisfy only one of the two must
// not count. Every line below matches one half of one guard, so the parsed
// sample must be empty.
func TestParseBrokerMetricsGuardsNeedBothHalves(t *testing.T) {
	decoys := `# TYPE java_lang_g1_old_generation_lastgcinfo_memoryusageaftergc_used untyped
java_lang_g1_old_generation_lastgcinfo_memoryusageaftergc_used{key="G1 Old Gen",type="GarbageCollector"} 9.0E9
# TYPE java_lang_memory_young_pool_used untyped
java_lang_memory_young_pool_used{key="G1 Eden Space"} 8.0E9
# TYPE jvm_memory_pool_collection_used_bytes untyped
jvm_memory_pool_collection_used_bytes{pool="G1 Eden Space"} 7.0E9
# TYPE jvm_memory_pool_used_bytes untyped
jvm_memory_pool_used_bytes{pool="G1 Old Gen"} 6.0E9
# TYPE rpc_duration_seconds summary
rpc_duration_seconds{quantile="0.5"} 0.1
rpc_duration_seconds_sum 1000
rpc_duration_seconds_count 500
# TYPE kafka_server_sharegroupmetrics_count untyped
kafka_server_sharegroupmetrics_count{acktype="Accept",name="NotRecordAcknowledgements"} 1000
# TYPE kafka_server_sharegroupmetrics_meanrate untyped
kafka_server_sharegroupmetrics_meanrate{acktype="Accept",name="RecordAcknowledgementsPerSec"} 1000
# TYPE kafka_server_sharepartitionmetrics_count untyped
kafka_server_sharepartitionmetrics_count{name="FetchLockRatio",partition="0"} 1000
# TYPE kafka_server_sharepartitionmetrics_meanrate untyped
kafka_server_sharepartitionmetrics_meanrate{name="AcquisitionLockTimeoutPerSec",partition="0"} 1000
# TYPE kafka_server_sharepartitionmetrics_value untyped
kafka_server_sharepartitionmetrics_value{name="InFlightBatchMessageCount",partition="0"} 1000
# TYPE kafka_server_sharepartitionmetrics_max untyped
kafka_server_sharepartitionmetrics_max{name="InFlightMessageCount",partition="0"} 1000
# TYPE kafka_network_requestmetrics_count untyped
kafka_network_requestmetrics_count{name="ErrorsPerSec",request="ShareFetch"} 1000
# TYPE kafka_network_requestmetrics_meanrate untyped
kafka_network_requestmetrics_meanrate{name="RequestsPerSec",request="ShareFetch"} 1000
# TYPE kafka_server_kafkarequesthandlerpool_fiveminuterate untyped
kafka_server_kafkarequesthandlerpool_fiveminuterate{name="RequestHandlerAvgIdlePercent"} 0.123
# TYPE kafka_server_kafkarequesthandlerpool_oneminuterate untyped
kafka_server_kafkarequesthandlerpool_oneminuterate{name="RequestHandlerAvgIdlePercentOther"} 0.456
# TYPE kafka_server_brokertopicmetrics_meanrate untyped
kafka_server_brokertopicmetrics_meanrate{name="BytesInPerSec"} 1000
kafka_server_brokertopicmetrics_meanrate{name="BytesOutPerSec"} 1000
# TYPE kafka_server_brokertopicmetrics_count untyped
kafka_server_brokertopicmetrics_count{name="BytesInPerSec",topic="t"} 1000
kafka_server_brokertopicmetrics_count{name="BytesOutPerSec",topic="t"} 1000
kafka_server_brokertopicmetrics_count{name="MessagesInPerSec"} 1000
`
	s, err := ParseBrokerMetrics(strings.NewReader(decoys))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  float64
	}{
		{"heap after GC", s.HeapAfterGCBytes},
		{"GC count", s.GCCount},
		{"GC s", s.GCSeconds},
		{"lock timeouts", s.AcquisitionLockTimeouts},
		{"in flight", s.InFlightMessages},
		{"request handler idle", s.RequestHandlerIdle},
		{"bytes in", s.BytesIn},
		{"bytes out", s.BytesOut},
	} {
		if c.got != 0 {
			t.Errorf("%s = %v from series that match half a guard, want 0", c.name, c.got)
		}
	}
	if len(s.Acks) != 0 || len(s.Requests) != 0 {
		t.Errorf("acks %v requests %v from series that match half a guard, want none", s.Acks, s.Requests)
	}
}

// The real fixture holds other series of the same families: only the
// named ones count, and exactly the acknowledgement types, lock-timeout
// and in-flight series of the share partitions.
func TestParseBrokerMetricsFixtureFamiliesExactly(t *testing.T) {
	s := parseFixture(t)
	if len(s.Acks) != 4 {
		t.Errorf("acks %v: want exactly Accept, Release, Reject, Renew", s.Acks)
	}
	// The fixture's share partitions: AcquisitionLockTimeoutPerSec 0 and
	// 0, InFlightMessageCount 0 and 0, beside FetchLockRatio and
	// InFlightBatchMessageCount counts in the thousands.
	if s.AcquisitionLockTimeouts != 0 || s.InFlightMessages != 0 {
		t.Errorf("lock timeouts %v, in flight %v: want 0 and 0 (the fixture's values)", s.AcquisitionLockTimeouts, s.InFlightMessages)
	}
}

// An exporter's -Inf, like +Inf, reads as unknown (NaN), never as a value
// (the write latencies are the series kept when unknown).
func TestParseBrokerMetricsInfinityOfEitherSign(t *testing.T) {
	for _, v := range []string{"+Inf", "-Inf"} {
		s, err := ParseBrokerMetrics(strings.NewReader("kafka_server_share_coordinator_metrics_write_latency_max " + v + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsNaN(s.ShareCoordWriteLatencyMax) {
			t.Errorf("write latency max %s read as %v, want NaN", v, s.ShareCoordWriteLatencyMax)
		}
	}
}

// The scraper's defaults: interval 1 s for 0 or less; each request's
// timeout is the interval, at least 2 s and at most 5 s.
func TestNewBrokerScraperIntervalAndTimeout(t *testing.T) {
	for _, c := range []struct{ interval, wantInterval, wantTimeout time.Duration }{
		{0, time.Second, 2 * time.Second},
		{-time.Second, time.Second, 2 * time.Second},
		{time.Nanosecond, time.Nanosecond, 2 * time.Second},
		{time.Second, time.Second, 2 * time.Second},
		{3 * time.Second, 3 * time.Second, 3 * time.Second},
		{5 * time.Second, 5 * time.Second, 5 * time.Second},
		{10 * time.Second, 10 * time.Second, 5 * time.Second},
	} {
		s := NewBrokerScraper([]string{"http://x"}, c.interval)
		if s.interval != c.wantInterval || s.client.Timeout != c.wantTimeout {
			t.Errorf("interval %v: scraper interval %v timeout %v, want %v and %v", c.interval, s.interval, s.client.Timeout, c.wantInterval, c.wantTimeout)
		}
	}
}

// One URL is scraped (Start does nothing only without URLs), and a
// scraper keeps at most maxKeep samples per URL.
func TestBrokerScraperOneURLAndSampleBound(t *testing.T) {
	body, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(body) }))
	defer srv.Close()
	s := NewBrokerScraper([]string{srv.URL}, time.Second)
	s.maxKeep = 2
	mt := newManualTicker()
	s.Tick = mt.Ticker
	s.Start(context.Background())
	if s.loop == nil {
		t.Fatal("one URL: Start started no loop")
	}
	mt.tick(t, 3) // ≥ 3 scrapes
	s.Stop()
	if got := len(s.Samples()[0]); got != 2 {
		t.Errorf("kept %d samples, want maxKeep 2", got)
	}
	none := NewBrokerScraper(nil, time.Second)
	none.Start(context.Background())
	if none.loop != nil {
		t.Error("no URLs: Start started a loop")
	}
}

// A body is read up to 32 MiB: a series past that is not seen.
func TestBrokerScrapeReadsAtMost32MiB(t *testing.T) {
	var b strings.Builder
	b.WriteString("# TYPE kafka_server_brokertopicmetrics_count untyped\n")
	b.WriteString(`kafka_server_brokertopicmetrics_count{name="BytesInPerSec"} 1` + "\n")
	// Comment lines up to exactly 32 MiB, so the limit cuts at a line end.
	const limit = 32 << 20
	pad := "# " + strings.Repeat("x", 1021) + "\n" // 1 KiB comment lines
	for b.Len()+len(pad) <= limit {
		b.WriteString(pad)
	}
	if rest := limit - b.Len(); rest > 0 {
		b.WriteString("#" + strings.Repeat("y", rest-2) + "\n")
	}
	if b.Len() != limit {
		t.Fatalf("padding to %d bytes, not %d", b.Len(), limit)
	}
	b.WriteString(`kafka_server_brokertopicmetrics_count{name="BytesOutPerSec"} 2` + "\n")
	body := b.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(body)) }))
	defer srv.Close()
	s := NewBrokerScraper([]string{srv.URL}, time.Second)
	// The read limit is under test, not the client timeout (2 s here): parsing
	// 32 MiB takes longer than that under -race on a loaded 2-core host.
	s.client.Timeout = time.Minute
	sample, err := s.scrape(context.Background(), srv.URL, NamingAuto)
	if err != nil {
		t.Fatal(err)
	}
	if sample.BytesIn != 1 || sample.BytesOut != 0 {
		t.Errorf("bytes in %v out %v: want 1 and 0 (the series after 32 MiB unread)", sample.BytesIn, sample.BytesOut)
	}
}

// fixtureSum sums a series' values over the fixture's lines that carry
// every given label, read as plain text (independent of the parser).
func fixtureSum(t *testing.T, path, series string, labels ...string) float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sum float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, series+"{") {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(line, l)
		}
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
		sum += v
	}
	return sum
}
