package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/results/runs/runstest"
)

// The figures printed in report.html are run.json's.
func TestHTMLFiguresMatchRunJSON(t *testing.T) {
	s := runstest.Run("r02-share", "share", 0, 1000.7, 285.4)
	s.Outcomes.DeliveryCounts = []int64{25000, 12}
	dir := runstest.WriteCampaign(t, runstest.Run("r01-consumer", "consumer", 0, 379, 40566.8), s)
	camp, recs, err := runs.LoadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := HTML(dir, camp, recs)(&buf); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(buf.String())
	figures := parseFigures(t, page)
	for _, r := range recs {
		want := map[string]float64{
			"completed_per_sec": r.Throughput.CompletedPerSec, "produced_per_sec": r.Throughput.ProducedPerSec,
			"ceiling": r.Ceiling.RecordsPerSec, "efficiency": r.Ceiling.Efficiency,
			"completion_p50": r.Latency.CompletionMs.P50, "completion_p99": r.Latency.CompletionMs.P99,
			"delivery_p99": r.Latency.DeliveryMs.P99, "publish_p99": r.Latency.PublishMs.P99,
		}
		for name, v := range want {
			got, ok := figures[r.RunID+"/"+name]
			if !ok || !closeTo(got, v) {
				t.Errorf("%s %s: HTML shows %v (found %v), run.json has %v", r.RunID, name, got, ok, v)
			}
		}
		if figures[r.RunID+"/audit"] != 0 || !strings.Contains(page, AuditLine(r)) {
			t.Errorf("%s: audit line missing", r.RunID)
		}
	}
	for _, w := range []string{"share/consumer = 2.64x", "Does it scale?", "throughput over time", "r02-share: latency percentiles",
		"completion latency, all runs", "delivery count 2: 12", "ceiling (producer) 1000.0/s", `"members": 12`} {
		if !strings.Contains(page, w) {
			t.Errorf("report.html lacks %q", w)
		}
	}
	// The page opens with the headline, above the table; a row no run has is named under it.
	if h, table := strings.Index(page, `<pre class="headline" id="headline">`), strings.Index(page, `id="side-by-side"`); h < 0 || h > table ||
		!strings.Contains(page[h:table], "throughput: share 2.64× the consumer group") {
		t.Errorf("report.html: headline at %d, side-by-side at %d; want the headline first, with the ratio", h, table)
	}
	if !strings.Contains(page, `<p class="note" id="dropped-rows">Left out, no run has a value: `) {
		t.Error("report.html lacks the note naming the rows left out")
	}
	for _, banned := range []string{`src="http`, `href="http`, "url(http", "@import", "fetch(", "XMLHttpRequest", "not drawn"} {
		if strings.Contains(page, banned) {
			t.Errorf("report.html contains %q: it must be self-contained and complete", banned)
		}
	}
	if !strings.Contains(page, `data-library="uPlot" data-version="`+UPlotVersion+`"`) || !strings.Contains(page, "<noscript>") {
		t.Error("report.html lacks the inlined uPlot or the no-JavaScript note")
	}
	charts := pageCharts(t, buf.String())
	if n := strings.Count(page, "<figure class=\"chart\" data-chart="); n != len(charts) || n == 0 {
		t.Errorf("%d chart figures, %d charts in the JSON block", n, len(charts))
	}
	var doc struct{}
	// the markup around the scripts and styles must parse; their text is not XML
	markup := scriptRE.ReplaceAllString(buf.String(), "<script></script>")
	d := xml.NewDecoder(strings.NewReader(markup))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	if err := d.Decode(&doc); err != nil {
		t.Errorf("report.html does not parse: %v", err)
	}
}

var scriptRE = regexp.MustCompile(`(?s)<script([^>]*)>.*?</script>|<style>.*?</style>`)

var chartDataRE = regexp.MustCompile(`(?s)<script type="application/json" id="chart-data">(.*?)</script>`)

// pageCharts reads the charts' JSON block of a page.
func pageCharts(t *testing.T, page string) []chart {
	t.Helper()
	m := chartDataRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no chart-data block")
	}
	var out []chart
	if err := json.Unmarshal([]byte(m[1]), &out); err != nil {
		t.Fatalf("chart-data: %v\n%.500s", err, m[1])
	}
	return out
}

// chartByTitle finds a chart of the page; nil if none.
func chartByTitle(charts []chart, title string) *chart {
	for i := range charts {
		if charts[i].Title == title {
			return &charts[i]
		}
	}
	return nil
}

var figureRE = regexp.MustCompile(`data-run="([^"]+)" data-figure="([^"]+)">([^<]*)<`)

// parseFigures reads every data-figure cell as run/figure → number (0 when
// the cell is text).
func parseFigures(t *testing.T, page string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, m := range figureRE.FindAllStringSubmatch(page, -1) {
		v, _ := strconv.ParseFloat(m[3], 64)
		out[m[1]+"/"+m[2]] = v
	}
	if len(out) == 0 {
		t.Fatal("no data-figure cells in report.html")
	}
	return out
}

// closeTo: the HTML prints 1 decimal (3 for efficiency).
func closeTo(got, want float64) bool { return got-want < 0.051 && want-got < 0.051 }

func TestHTMLNotKafkaAndMissingFiles(t *testing.T) {
	r := runstest.Run("r01-share", "share", 0, 500, 10)
	r.Environment = runs.Environment{Provider: "kfake", KafkaVersion: "kfake"}
	r.Validity = runs.Validity{Flags: []runs.Flag{{Code: "not_kafka", Message: "numbers come from kfake"}}}
	var buf bytes.Buffer
	if err := HTML(t.TempDir(), runs.Campaign{Name: "fake"}, []runs.Record{r})(&buf); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`class="notkafka">NOT KAFKA: r01-share ran on kfake`, "<b>not_kafka</b>: numbers come from kfake",
		"not drawn: open", "timeseries.csv"} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("report.html lacks %q", w)
		}
	}
}

// The report opens in a real browser: headless chromium draws every chart
// (an events, gauges, sweep and max-rate campaign) without a JavaScript
// error, each with data points and a value in its legend on hover.
func TestHTMLRendersInChromium(t *testing.T) {
	browser := needChromium(t)
	consumer := runstest.Run("r01-consumer", "consumer", 0, 379, 40566.8)
	share := runstest.Run("r02-share", "share", 0, 1000.7, 285.4)
	consumer100 := runstest.Run("r03-consumer", "consumer", 0, 390, 30000)
	share100 := runstest.Run("r04-share", "share", 0, 990, 250)
	for i, r := range []*runs.Record{&consumer, &share, &consumer100, &share100} {
		spec := *r.Spec
		spec.MaxPollRecords = []int{10, 10, 100, 100}[i]
		r.Spec = &spec
	}
	share.Phases = runs.Phases{WarmupSec: 5, MeasureSec: 20, WindowStartSec: 3.5}
	share.Events = []runs.EventReport{{Event: runs.Event{Label: "join 1"}, StartSec: 6, EndSec: 8}}
	var calls []float64
	res, _ := runs.SearchMaxRate([]float64{100, 150, 200}, runs.MaxRateCriteria{CompletedRatio: 0.995, P99BoundMs: 500}, ceilingModel(160, &calls))
	share100.MaxRate = &res
	dir := runstest.WriteCampaign(t, consumer, share, consumer100, share100)
	// The share run again, with gauge columns: run folders are written
	// exclusively, so the fixture's one goes first.
	if err := os.RemoveAll(filepath.Join(dir, "runs", share.RunID)); err != nil {
		t.Fatal(err)
	}
	if err := runs.WriteRunDir(filepath.Join(dir, "runs", share.RunID), &share, runstest.Merged(285), gaugeFixture()); err != nil {
		t.Fatal(err)
	}
	camp, recs, err := runs.LoadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	if err := HTML(dir, camp, recs).WriteFile(page); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(page)
	t.Logf("report.html: %d bytes", st.Size())
	figs := checkInBrowser(t, browser, page)
	kinds := map[string]int{}
	for _, f := range figs {
		kinds[f.kind]++
	}
	// completion of all runs + 4 × (throughput, lag/in-flight, latency)
	// + CPU and memory of r02 + 3 sweep charts + 2 rate–latency curve
	// charts + 2 max-rate charts
	if want := (map[string]int{"percentile": 5, "time": 10, "category": 3, "xy": 4}); !reflect.DeepEqual(kinds, want) {
		t.Errorf("charts by kind %v, want %v", kinds, want)
	}
}
