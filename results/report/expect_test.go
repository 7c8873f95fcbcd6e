package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/results/runs/runstest"
)

func TestExpectationsRendered(t *testing.T) {
	outs := []runs.ExpectationOutcome{
		{Name: "share keeps up", Claim: "share / consumer throughput.completed_per_sec ≥ 2", Met: true,
			Measured: []runs.Measured{{Run: "r02-share/r01-consumer", Value: 2.6351, Met: true}}},
		{Name: "consumer at ceiling", Claim: "consumer runs: ceiling.efficiency in [0.9, 1.05]", Met: false,
			Measured: []runs.Measured{{Run: "r01-consumer", Value: 0.81}}, Detail: "why"},
	}
	var con bytes.Buffer
	_ = Expectations(outs)(&con)
	for _, w := range []string{
		"expectations: 1 of 2 met",
		"  MET      share keeps up: share / consumer throughput.completed_per_sec ≥ 2: measured r02-share/r01-consumer 2.635",
		"  NOT MET  consumer at ceiling: consumer runs: ceiling.efficiency in [0.9, 1.05]: measured r01-consumer 0.81 ✗ (why)",
	} {
		if !strings.Contains(con.String(), w) {
			t.Errorf("console lacks %q:\n%s", w, con.String())
		}
	}
	var md bytes.Buffer
	camp := runs.Campaign{Name: "fixture", Expectations: outs}
	if err := Markdown(camp, []runs.Record{runstest.Run("r01-consumer", "consumer", 0, 380, 4e4)})(&md); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"## Expectations",
		"- **MET** share keeps up: share / consumer throughput.completed_per_sec ≥ 2: measured r02-share/r01-consumer 2.635",
		"- **NOT MET** consumer at ceiling:",
	} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("summary.md lacks %q:\n%s", w, md.String())
		}
	}
	var none bytes.Buffer
	_ = Expectations(nil)(&none)
	if none.Len() != 0 {
		t.Errorf("no expectations printed %q", none.String())
	}
}

// report.html carries the run verdict and the expectations as summary.md
// does: a NOT MET claim (exit status 3) is on the page a reviewer opens,
// with the problem named; a passing campaign says it passed; names are
// escaped; an incomplete campaign states no verdict.
func TestHTMLCarriesExpectationsAndVerdict(t *testing.T) {
	outs := []runs.ExpectationOutcome{
		{Name: "no record lost", Claim: "all runs: audit.lost ≤ 0", Met: true,
			Measured: []runs.Measured{{Run: "r01-consumer", Value: 0, Met: true}}},
		{Name: "<script>alert(1)</script> speed-up", Claim: "share / consumer throughput.completed_per_sec ≥ 100", Met: false,
			Measured: []runs.Measured{{Run: "r02-share/r01-consumer", Value: 2.5}}},
	}
	recs := []runs.Record{runstest.Run("r01-consumer", "consumer", 0, 380, 4e4), runstest.Run("r02-share", "share", 0, 950, 2e4)}
	render := func(camp runs.Campaign) (page, md string) {
		var h, m bytes.Buffer
		if err := HTML("", camp, recs)(&h); err != nil {
			t.Fatal(err)
		}
		if err := Markdown(camp, recs)(&m); err != nil {
			t.Fatal(err)
		}
		return h.String(), m.String()
	}
	page, md := render(runs.Campaign{Name: "fixture", Status: runs.StatusComplete, Expectations: outs})
	for _, w := range []string{
		`<div class="run-verdict failed" id="run-verdict">Run verdict: FAILED, 1 problem(s) (sharebench run exits 3 on them; --no-fail exits 0)`,
		`<li>expectation &#34;&lt;script&gt;alert(1)&lt;/script&gt; speed-up&#34; NOT MET (share / consumer throughput.completed_per_sec ≥ 100): r02-share/r01-consumer measured 2.5</li>`,
		`<h2 id="expectations">Expectations</h2>`, "<p>expectations: 1 of 2 met</p>",
		`<span class="met">MET</span> no record lost: all runs: audit.lost ≤ 0: measured r01-consumer 0`,
		`<span class="notmet">NOT MET</span> &lt;script&gt;alert(1)&lt;/script&gt; speed-up: share / consumer throughput.completed_per_sec ≥ 100: measured r02-share/r01-consumer 2.5 ✗`,
	} {
		if !strings.Contains(page, w) {
			t.Errorf("report.html lacks %q", w)
		}
	}
	if strings.Contains(page, "<script>alert(1)") {
		t.Error("report.html holds the raw <script> of an expectation name")
	}
	for _, w := range []string{"**Run verdict: FAILED, 1 problem(s)", "expectations: 1 of 2 met.", "- **NOT MET** &lt;script&gt;alert(1)&lt;/script&gt; speed-up"} {
		if !strings.Contains(md, w) {
			t.Errorf("summary.md lacks %q:\n%s", w, md)
		}
	}

	page, md = render(runs.Campaign{Name: "fixture", Status: runs.StatusComplete, Expectations: outs[:1]})
	want := "Run verdict: passed: no record lost, every audit balanced, all 1 expectation(s) met"
	if !strings.Contains(page, `<div class="run-verdict" id="run-verdict">`+want) || !strings.Contains(md, "**"+want+"**") {
		t.Errorf("a passing campaign does not say %q", want)
	}
	if strings.Contains(page, "FAILED") {
		t.Error("a passing campaign's page says FAILED")
	}

	page, md = render(runs.Campaign{Name: "fixture", Status: runs.StatusInterrupted, Expectations: outs})
	if strings.Contains(page, "Run verdict") || strings.Contains(md, "Run verdict") {
		t.Error("an interrupted campaign states a run verdict")
	}
}

// A campaign folder with a run.json that cannot be read (here truncated)
// never reads as passed: report.html and summary.md state a FAILED
// verdict naming the skipped run, over the runs that could be read.
func TestVerdictNamesUnreadableRuns(t *testing.T) {
	dir := runstest.WriteCampaign(t, runstest.Run("r01-consumer", "consumer", 0, 380, 4e4), runstest.Run("r02-share", "share", 0, 950, 2e4))
	if err := os.WriteFile(filepath.Join(dir, "runs", "r02-share", "run.json"), []byte(`{"schema_version": 1, "run_id": "r02-`), 0o644); err != nil {
		t.Fatal(err)
	}
	camp, recs, err := runs.LoadCampaign(dir)
	if err != nil || len(recs) != 1 || len(camp.Skipped) != 1 {
		t.Fatalf("load: %v, %d runs, skipped %v", err, len(recs), camp.Skipped)
	}
	if _, err := WriteFiles(dir, camp, recs); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"report.html", "summary.md"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		if strings.Contains(page, "Run verdict: passed") {
			t.Errorf("%s: a campaign with an unreadable run says it passed", f)
		}
		for _, w := range []string{"Run verdict: FAILED, 1 problem(s)", "a record that cannot be read is never a pass", "unreadable run record", "run r02-share skipped"} {
			if !strings.Contains(page, w) {
				t.Errorf("%s lacks %q", f, w)
			}
		}
	}
}

// A skipped claim (no run of its client) is printed SKIPPED with its
// reason, counted apart in the headline, and leaves a passing verdict
// passing.
func TestSkippedExpectationRendered(t *testing.T) {
	outs := []runs.ExpectationOutcome{
		{Name: "no loss (client java)", Claim: "all where client=java runs: audit.lost ≤ 0", Met: true,
			Measured: []runs.Measured{{Run: "r01-consumer", Value: 0, Met: true}}},
		{Name: "renewed (client librdkafka)", Claim: "share where client=librdkafka, renew=auto runs: audit.duplicates ≤ 0",
			Skipped: true, Detail: "skipped: no share where client=librdkafka, renew=auto run in this campaign: client librdkafka refuses these runs: RENEW"},
	}
	var con bytes.Buffer
	_ = Expectations(outs)(&con)
	for _, w := range []string{
		"expectations: 1 of 1 met, 1 skipped (no run to check)",
		"  SKIPPED  renewed (client librdkafka): share where client=librdkafka, renew=auto runs: audit.duplicates ≤ 0: measured nothing measured (skipped: no share where",
	} {
		if !strings.Contains(con.String(), w) {
			t.Errorf("console lacks %q:\n%s", w, con.String())
		}
	}
	var md bytes.Buffer
	camp := runs.Campaign{Name: "fixture", Status: runs.StatusComplete, Expectations: outs}
	if err := Markdown(camp, []runs.Record{runstest.Run("r01-consumer", "consumer", 0, 380, 4e4)})(&md); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"- **SKIPPED** renewed (client librdkafka)", "all 1 expectation(s) met, 1 skipped (no run to check)"} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("summary.md lacks %q:\n%s", w, md.String())
		}
	}
}

// A run flagged destination_unreconciled (runs.VerdictFlags) fails the run
// verdict: report.html and summary.md say FAILED and name the flag, never
// "passed" beside it.
func TestVerdictCountsDestinationFlags(t *testing.T) {
	r := runstest.Run("r02-share", "share", 0, 950, 2e4)
	r.Validity.Flag(&runs.Flag{Code: runs.CodeDestinationUnreconciled, Message: "the destination table does not reconcile with the ledger: 3 missing"})
	camp := runs.Campaign{Name: "fixture", Status: runs.StatusComplete}
	var h, m bytes.Buffer
	if err := HTML("", camp, []runs.Record{r})(&h); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(camp, []runs.Record{r})(&m); err != nil {
		t.Fatal(err)
	}
	for name, page := range map[string]string{"report.html": h.String(), "summary.md": m.String()} {
		if strings.Contains(page, "Run verdict: passed") {
			t.Errorf("%s says passed beside destination_unreconciled", name)
		}
		for _, w := range []string{"Run verdict: FAILED, 1 problem(s)", "run r02-share: validity flag destination_unreconciled: the destination table does not reconcile with the ledger: 3 missing"} {
			if !strings.Contains(page, w) {
				t.Errorf("%s lacks %q", name, w)
			}
		}
	}
}
