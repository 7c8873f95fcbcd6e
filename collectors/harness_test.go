package collectors

import (
	"context"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/results"
)

// liveRecorder is a recorder mid-run: 10 records produced, 8 delivered (one
// of them a redelivery), 5 completed, 1 released, 1 rejected; the window is
// open now.
func liveRecorder() *results.Recorder {
	clock := results.NewClock()
	now := clock.Now()
	r := results.NewRecorder(clock, 1, results.NewLedger(1, 10), results.NewSeries(now, 10))
	r.SetWindow(results.Window{Start: now - int64(time.Second), End: now + int64(time.Hour)})
	p, m := r.ProducerRecorder(), r.MemberRecorder()
	for i := range uint64(10) {
		st := results.Stamp{Run: 1, Seq: i, Intended: now, Sent: now}
		p.RecordAck(st, now)
		if i < 7 {
			m.RecordDelivery(st, 1, now, now)
		}
	}
	m.RecordDelivery(results.Stamp{Run: 1, Seq: 6}, 2, now, now)
	for i := range uint64(5) {
		m.RecordCompletion(results.Stamp{Run: 1, Seq: i}, now, now, false)
	}
	m.RecordRelease(results.Stamp{Run: 1, Seq: 5}, now, false)
	m.RecordReject(results.Stamp{Run: 1, Seq: 6}, now)
	// Destination writes: 4 of 3 ms and 1 failed after 8 ms (20 ms in all).
	for range 4 {
		m.RecordDestinationWrite(int64(3*time.Millisecond), int64(time.Millisecond), false)
	}
	m.RecordDestinationWrite(int64(8*time.Millisecond), 0, true)
	return r
}

func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// metricValue returns the value of the series of family name whose labels
// include want.
func metricValue(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	for _, m := range fams[name].GetMetric() {
		l := labels(m)
		ok := true
		for k, v := range want {
			ok = ok && l[k] == v
		}
		if ok {
			return value(m), true
		}
	}
	return 0, false
}

// The served counters are the recorder's, labelled with the run; lag is
// the sampler's last reading; the phase follows the window.
func TestHarnessMetricsServeRecorderCounters(t *testing.T) {
	h := NewHarnessMetrics()
	srv, err := h.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rec := liveRecorder()
	h.Begin(LiveRun{RunID: "r02-share", ConsumerType: "share", OfferedPerSec: 1000, Recorder: rec, Warmup: time.Second})
	lag := NewLagSampler(func(context.Context) (int64, error) { return 1234, nil }, time.Hour)
	lag.Start(context.Background())
	defer lag.Stop()
	for _, ok := lag.Latest(); !ok; _, ok = lag.Latest() {
		time.Sleep(time.Millisecond)
	}
	h.SetLag(lag)

	fams := scrape(t, srv.URL())
	run := map[string]string{"run_id": "r02-share", "consumer_type": "share"}
	c, m := rec.Counts(), rec.Merge()
	for name, want := range map[string]int64{
		"sharebench_records_produced_total":         m.Acked,
		"sharebench_records_delivered_total":        m.Delivered,
		"sharebench_records_completed_total":        m.Completed,
		"sharebench_records_redelivered_total":      m.Redelivered,
		"sharebench_records_released_total":         m.Released,
		"sharebench_records_rejected_total":         m.Rejected,
		"sharebench_in_flight_records":              c.InFlight(),
		"sharebench_lag_records":                    1234,
		"sharebench_destination_writes_total":       4,
		"sharebench_destination_write_errors_total": 1,
	} {
		got, ok := metricValue(fams, name, run)
		if !ok || got != float64(want) {
			t.Errorf("%s = %v (found %v), recorder says %d", name, got, ok, want)
		}
	}
	if got, _ := metricValue(fams, "sharebench_destination_write_seconds_total", run); math.Abs(got-0.020) > 1e-9 {
		t.Errorf("sharebench_destination_write_seconds_total = %v, want 0.020 (mean write 4 ms over 5 writes)", got)
	}
	if m.Acked != 10 || m.Delivered != 8 || m.Completed != 5 || m.Redelivered != 1 || c.InFlight() != 1 {
		t.Errorf("fixture counts: %+v", c)
	}
	if fams["sharebench_records_completed_total"].GetType() != dto.MetricType_COUNTER {
		t.Error("completed is not a counter")
	}
	for _, p := range Phases {
		want := 0.0
		if p == "measure" {
			want = 1
		}
		if got, ok := metricValue(fams, "sharebench_phase", map[string]string{"run_id": "r02-share", "phase": p}); !ok || got != want {
			t.Errorf("phase %s = %v (found %v), want %v", p, got, ok, want)
		}
	}
	if _, ok := fams["sharebench_process_resident_memory_bytes"]; !ok {
		t.Error("no harness process metrics")
	}

	h.End()
	fams = scrape(t, srv.URL())
	if got, _ := metricValue(fams, "sharebench_phase", map[string]string{"phase": "done"}); got != 1 {
		t.Error("after End the phase is not done")
	}
}

func TestHarnessMetricsLoopbackOnly(t *testing.T) {
	h := NewHarnessMetrics()
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:9464", "nonsense"} {
		if s, err := h.Listen(addr); err == nil {
			s.Close()
			t.Errorf("%s: served, want a loopback-only error", addr)
		}
	}
	// No run yet: the endpoint answers with the process metrics only.
	s, err := h.Listen("localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := scrape(t, s.URL())["sharebench_records_completed_total"]; ok {
		t.Error("run counters before any run")
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

// The metrics' labels are masked like every other outgoing byte: a run id
// holding a registered secret or URL userinfo is served masked.
func TestHarnessMetricsLabelsMasked(t *testing.T) {
	const secret = "LabelPw77x"
	redact.AddSecret(secret)
	h := NewHarnessMetrics()
	srv, err := h.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, id := range []string{"r01-share-v" + secret, "r01-share-http://bob:UrlLabelPw@h/"} {
		h.Begin(LiveRun{RunID: id, ConsumerType: "share", OfferedPerSec: 10, Recorder: liveRecorder()})
		for name, fam := range scrape(t, srv.URL()) {
			for _, m := range fam.GetMetric() {
				for _, l := range m.GetLabel() {
					if v := l.GetValue(); strings.Contains(v, secret) || strings.Contains(v, "UrlLabelPw") {
						t.Errorf("%s label %s = %q holds a secret", name, l.GetName(), v)
					}
				}
			}
		}
		if _, ok := metricValue(scrape(t, srv.URL()), "sharebench_offered_records_per_second", map[string]string{"run_id": redact.Text(id)}); !ok {
			t.Errorf("no series labelled with the masked run id %q", redact.Text(id))
		}
	}
}
