package collectors

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

const dashboardPath = "../infra/grafana/sharebench.json"

// seriesNames lists the series names a family exposes (a summary or
// histogram also exposes _count and _sum).
func seriesNames(fams map[string]*dto.MetricFamily, into map[string]bool) {
	for name, f := range fams {
		into[name] = true
		if t := f.GetType(); t == dto.MetricType_SUMMARY || t == dto.MetricType_HISTOGRAM {
			into[name+"_count"], into[name+"_sum"] = true, true
		}
	}
}

// knownMetricNames are the harness registry's names (a run in progress, lag
// read) and the names a 4.2.2 broker's JMX exporter serves (testdata).
func knownMetricNames(t *testing.T) map[string]bool {
	t.Helper()
	h := NewHarnessMetrics()
	h.Begin(LiveRun{RunID: "r01", ConsumerType: "share", Recorder: liveRecorder()})
	lag := NewLagSampler(func(context.Context) (int64, error) { return 1, nil }, time.Hour)
	lag.Start(context.Background())
	defer lag.Stop()
	for _, ok := lag.Latest(); !ok; _, ok = lag.Latest() {
		time.Sleep(time.Millisecond)
	}
	h.SetLag(lag)
	harness, err := h.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	hf := map[string]*dto.MetricFamily{}
	for _, f := range harness {
		hf[f.GetName()] = f
	}
	seriesNames(hf, names)
	f, err := os.Open("testdata/broker-4.2.2-share.prom")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	broker, err := p.TextToMetricFamilies(f)
	if err != nil {
		t.Fatal(err)
	}
	seriesNames(broker, names)
	return names
}

var (
	promStrings   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers  = regexp.MustCompile(`\{[^}]*\}`)
	promRanges    = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping  = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent     = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?`)
	promNumber    = regexp.MustCompile(`\b\d+(?:\.\d+)?(?:e\d+)?\b`)
	promKeywords  = map[string]bool{"and": true, "or": true, "unless": true, "bool": true, "offset": true, "by": true, "without": true}
	dashboardExpr = regexp.MustCompile(`\$\{?\w+\}?`)
)

// metricNamesIn returns the metric names a PromQL expression selects: the
// identifiers left once strings, label matchers, ranges, grouping clauses,
// numbers, keywords and function calls are taken out.
func metricNamesIn(expr string) []string {
	e := dashboardExpr.ReplaceAllString(expr, "1m") // Grafana variables
	e = promStrings.ReplaceAllString(e, `""`)
	e = promMatchers.ReplaceAllString(e, " ")
	e = promRanges.ReplaceAllString(e, " ")
	e = promGrouping.ReplaceAllString(e, " ")
	e = promNumber.ReplaceAllString(e, " ")
	var out []string
	for _, m := range promIdent.FindAllStringSubmatch(e, -1) {
		name := strings.TrimRight(strings.TrimSuffix(strings.TrimSpace(m[0]), "("), " ")
		if m[1] != "" || promKeywords[name] {
			continue // a function or aggregation, or a keyword
		}
		out = append(out, name)
	}
	return out
}

func TestMetricNamesIn(t *testing.T) {
	got := metricNamesIn(`sum by (acktype) (rate(kafka_x_count{job=~"$kafka_job",name="A"}[$__rate_interval])) / 1e9 * 100 + on (instance) foo_bar unless baz`)
	if strings.Join(got, ",") != "kafka_x_count,foo_bar,baz" {
		t.Fatalf("names %v", got)
	}
}

// The Grafana dashboard parses, and every expression selects only metrics
// that exist: the harness's (this package's registry) or a 4.2.2 broker's.
func TestGrafanaDashboardUsesKnownMetrics(t *testing.T) {
	b, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string `json:"title"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	known := knownMetricNames(t)
	used := map[string]bool{}
	exprs := 0
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs++
			names := metricNamesIn(tg.Expr)
			if len(names) == 0 {
				t.Errorf("panel %q: %q selects no metric", p.Title, tg.Expr)
			}
			for _, n := range names {
				used[n] = true
				if !known[n] {
					t.Errorf("panel %q: %q: metric %s is neither the harness's nor a 4.2.2 broker's", p.Title, tg.Expr, n)
				}
			}
		}
	}
	for _, want := range []string{"sharebench_records_completed_total", "sharebench_lag_records", "sharebench_records_released_total",
		"java_lang_operatingsystem_processcputime", "java_lang_memory_heapmemoryusage_used", "kafka_server_share_coordinator_metrics_write"} {
		if !used[want] {
			t.Errorf("the dashboard does not chart %s", want)
		}
	}
	t.Logf("%d panels, %d expressions, %d metrics", len(dash.Panels), exprs, len(used))
}
