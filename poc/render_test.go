package poc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/vocab"
)

// rendered is a share-group decision with a user-written profile name
// that tries to inject a script.
func rendered(t *testing.T) Decision {
	t.Helper()
	p := taskQueue()
	p.Name = "<script>alert(1)</script>"
	recs := append(sweep(), rec("r05-partitioncap-consumer", "partitioncap", vocab.ConsumerGroup, 400, 900),
		rec("r06-partitioncap-share", "partitioncap", vocab.ShareGroup, 1000, 60))
	plan := planOf("settings_sweep", "partition_cap")
	plan.LeftOut = []string{"head_of_line: 2m, left 1m of the 4m budget <b>"}
	d := Decide(p, plan, recs, false)
	if d.Verdict != VerdictShareGroup {
		t.Fatalf("verdict %s", d.Verdict)
	}
	return d
}

func allEvidence(d Decision) []Evidence {
	var out []Evidence
	for _, fs := range [][]Finding{d.Restrictions, d.Reasons, d.Cost} {
		for _, f := range fs {
			out = append(out, f.Evidence...)
		}
	}
	for _, s := range d.Settings {
		out = append(out, s.Evidence...)
	}
	return out
}

func TestMarkdown(t *testing.T) {
	d := rendered(t)
	md := d.Markdown()
	if !strings.HasPrefix(md, "# Proof of concept: &lt;script&gt;alert(1)&lt;/script&gt;\n\n**Verdict: share_group.**") {
		t.Errorf("the headline does not come first, or the name is not escaped:\n%s", md[:200])
	}
	if strings.Contains(md, "<script>") || strings.Contains(md, "<b>") {
		t.Error("user text reaches decision.md unescaped")
	}
	ev := allEvidence(d)
	if len(ev) < 10 {
		t.Fatalf("only %d pieces of evidence", len(ev))
	}
	for _, e := range ev {
		if !strings.Contains(md, e.Link()) {
			t.Errorf("decision.md lacks %s", e.Link())
		}
	}
	if l := ev[0].Link(); !strings.HasPrefix(l, "[run r0") || !strings.Contains(l, "](report.html#run-r0") || !strings.Contains(l, "/run.json`)") {
		t.Errorf("link %s", l)
	}
	// Every line of a list is followed by its evidence or what it rests on.
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "- **") || strings.HasPrefix(line, "- `") {
			if !strings.Contains(line, "Evidence: [run ") && !strings.HasSuffix(line, "(from the profile's answers)") && !strings.HasSuffix(line, "(from the plan and the profile)") {
				t.Errorf("a line without its basis: %s", line)
			}
		}
	}
	if !strings.Contains(md, "- **head\\_of\\_line** (not measured): Not measured: the plan left it out (head\\_of\\_line: 2m, left 1m of the 4m budget &lt;b&gt;).") {
		t.Errorf("the left-out reason is not marked not measured:\n%s", md)
	}
	if !strings.Contains(d.HTMLSection(), "<strong>head_of_line</strong> (not measured)") {
		t.Error("the HTML section does not mark the left-out reason not measured")
	}
	for _, h := range []string{"## Stage 1: restrictions", "## Stage 2: reasons", "## Settings", "## Cost", "## Left out"} {
		if !strings.Contains(md, h+"\n") {
			t.Errorf("decision.md lacks %s", h)
		}
	}
}

func TestHTMLSection(t *testing.T) {
	d := rendered(t)
	h := d.HTMLSection()
	if strings.Contains(h, "<script>") || strings.Contains(h, "<b>") || !strings.Contains(h, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("user text reaches the HTML unescaped:\n%s", h)
	}
	for _, e := range allEvidence(d) {
		if !strings.Contains(h, `<a href="#`+e.Anchor+`">`+e.Text()+`</a> (<code>`+e.Path+`</code>)`) {
			t.Errorf("the HTML section lacks the link %s", e.Text())
		}
	}
	if !strings.HasPrefix(h, `<section class="poc-decision" id="poc-decision">`) || !strings.HasSuffix(h, "</section>\n") {
		t.Errorf("not one section:\n%s", h)
	}
	d.NotKafka = true
	if !strings.Contains(d.HTMLSection(), "NOT KAFKA") || !strings.Contains(d.Markdown(), "**NOT KAFKA**") {
		t.Error("no NOT KAFKA banner")
	}
}

func TestWriteJSON(t *testing.T) {
	d := rendered(t)
	d.SchemaVersion = 0
	path := filepath.Join(t.TempDir(), "decision.json")
	if err := d.WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back Decision
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.SchemaVersion != 1 || back.Verdict != VerdictShareGroup || len(back.Reasons) != len(d.Reasons) {
		t.Errorf("read back %+v", back)
	}
}

// TestDecisionJSONHasNoDSN: the dsn is never written out.
func TestDecisionJSONHasNoDSN(t *testing.T) {
	p := taskQueue()
	p.Destination = &ProfileDestination{DSN: "postgres://u:hunter2@db/x"}
	b, err := json.Marshal(Plan{Profile: p})
	if err != nil || strings.Contains(string(b), "hunter2") {
		t.Errorf("%s %v", b, err)
	}
}

// TestEvidenceLink: the link reads as the manual shows it, and a run id
// cannot break out of its brackets.
func TestEvidenceLink(t *testing.T) {
	e := Evidence{RunID: "r03-share", Figure: "throughput.completed_per_sec", Value: 812.04, Path: "runs/r03-share/run.json", Anchor: "run-r03-share"}
	if got, want := e.Link(), "[run r03-share: throughput.completed_per_sec = 812](report.html#run-r03-share) (`runs/r03-share/run.json`)"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	e.RunID = "x](javascript:alert(1))<b>"
	if got := e.Link(); !strings.Contains(got, `x\](javascript`) || strings.Contains(got, "<b>") {
		t.Errorf("escaped badly: %s", got)
	}
}

// A setting that was not verified or not measured rests on the plan, not
// on the profile's answers, in both renderings.
func TestSettingBasis(t *testing.T) {
	d := Decision{Profile: "p", Verdict: VerdictShareGroup, Settings: []Setting{
		{Name: "verified at the peak", Value: "not verified", Why: "no sweep"},
		{Name: "group.share.delivery.count.limit", Value: "5", Why: "the profile's delivery limit"},
	}}
	md, page := d.Markdown(), d.HTMLSection()
	for _, want := range []string{"`verified at the peak` = not verified: no sweep. (from the plan and the profile)", "= 5: the profile's delivery limit. (from the profile's answers)"} {
		if !strings.Contains(md, want) {
			t.Errorf("decision.md lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(page, "no sweep. (from the plan and the profile)") || !strings.Contains(page, "delivery limit. (from the profile&#39;s answers)") {
		t.Errorf("the HTML section's bases:\n%s", page)
	}
}
