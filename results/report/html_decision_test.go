package report

import (
	"bytes"
	"html/template"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/results/runs/runstest"
)

// A decision section goes to the top of report.html as its renderer wrote
// it: escaped once (by its renderer), not again; without one the page has
// no section.
func TestHTMLWithDecisionAtTheTopEscapedOnce(t *testing.T) {
	dir := runstest.WriteCampaign(t, runstest.Run("r01-consumer", "consumer", 0, 379, 400))
	camp, recs, err := runs.LoadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	section := `<section id="decision"><p>share &amp; consumer &lt;both&gt;</p></section>`
	var buf bytes.Buffer
	if err := HTMLWithDecision(dir, camp, recs, template.HTML(section))(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	at := strings.Index(page, section)
	if at < 0 || at > strings.Index(page, `id="side-by-side"`) || at < strings.Index(page, "<h1>") {
		t.Fatalf("section at %d (h1 %d, side-by-side %d)", at, strings.Index(page, "<h1>"), strings.Index(page, `id="side-by-side"`))
	}
	buf.Reset()
	if err := HTML(dir, camp, recs)(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `id="decision"`) {
		t.Error("a page without a decision has a decision section")
	}
}
