package collectors

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// exporterFilter keeps the families of a text exposition that a name[]
// filter of names lets through, as the Prometheus exporters do (a family by
// its name; a summary's _sum and _count with it).
func exporterFilter(t *testing.T, body []byte, names []string) string {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for name, f := range fams {
		if slices.Contains(names, name) {
			if _, err := expfmt.MetricFamilyToText(&b, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b.String()
}

// A scrape that asks only for sharebenchSeries parses to the same sample as
// the whole exposition, on every recorded scrape of the sharebench naming:
// the filter drops nothing a figure reads. Deleting a name from the list
// makes this fail on the scrape that has the family.
func TestNameFilterKeepsEverySample(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "broker-4.*.prom"))
	if len(paths) < 4 {
		t.Fatalf("found %d recorded scrapes of the sharebench naming", len(paths))
	}
	used := map[string]bool{}
	for _, p := range paths {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := ParseBrokerMetricsAs(strings.NewReader(string(body)), NamingSharebench)
		if err != nil {
			t.Fatal(err)
		}
		part, err := ParseBrokerMetricsAs(strings.NewReader(exporterFilter(t, body, sharebenchSeries)), NamingSharebench)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(whole, part) {
			t.Errorf("%s: the filtered scrape parses differently:\nwhole    %+v\nfiltered %+v", p, whole, part)
		}
		for _, n := range sharebenchSeries {
			if strings.Contains(string(body), "\n"+n) {
				used[n] = true
			}
		}
	}
	for _, n := range sharebenchSeries {
		if !used[n] && n != "java_lang_compilation_totalcompilationtime" && !strings.HasSuffix(n, "_write_total") {
			t.Errorf("%s is in the filter but in no recorded scrape: a name the parser does not read?", n)
		}
	}
}

// The scraper asks an endpoint of the sharebench naming for its series only
// (after detecting it, or when named), and an endpoint of another naming
// for everything.
func TestScraperFiltersTheSharebenchNaming(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "broker-4.2.2-share.prom"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	s := NewBrokerScraper([]string{srv.URL + "/metrics", "strimzi=" + srv.URL + "/metrics"}, 0)
	s.ScrapeAll(t.Context())
	s.ScrapeAll(t.Context())
	var filteredN, whole int
	for _, q := range queries {
		if strings.Contains(q, "name%5B%5D=kafka_server_brokertopicmetrics_count") {
			filteredN++
		} else if q == "" {
			whole++
		}
	}
	// auto: whole, then filtered; strimzi: whole twice
	if filteredN != 1 || whole != 3 {
		t.Errorf("queries %q: want 1 filtered (the auto endpoint's second) and 3 whole", queries)
	}
}
