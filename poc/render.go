package poc

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"

	"github.com/sharebench/sharebench/results/runs"
)

// WriteJSON writes the decision as decision.json (atomically, redacted:
// runs.WriteJSON), schema version 1.
func (d Decision) WriteJSON(path string) error {
	if d.SchemaVersion == 0 {
		d.SchemaVersion = 1
	}
	return runs.WriteJSON(path, d)
}

// Link is the evidence as a Markdown link into report.html, followed by
// the run.json path: "[run r03-share: throughput.completed_per_sec = 812](report.html#run-r03-share) (runs/r03-share/run.json)".
func (e Evidence) Link() string {
	return fmt.Sprintf("[%s](report.html#%s) (`%s`)", linkEscape.Replace(e.Text()), e.Anchor, strings.ReplaceAll(e.Path, "`", "'"))
}

// linkEscape keeps a link's text inside its brackets and free of HTML;
// run ids and figure paths keep their underscores as written.
var linkEscape = strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "&", "&amp;", "`", "\\`")

// Text is the evidence in words: "run r03-share: throughput.completed_per_sec = 812".
func (e Evidence) Text() string {
	return fmt.Sprintf("run %s: %s = %s", e.RunID, e.Figure, num1(e.Value))
}

// mdEscape escapes the characters Markdown (and the HTML it may carry)
// would read as markup, so text from a profile or a run reads as written.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '#', '|', '!':
			b.WriteRune('\\')
			b.WriteRune(r)
		case '\n', '\r':
			b.WriteRune(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mark says where a finding stands: applies, does not apply, not
// measured; a cost finding is only measured or not.
func (f Finding) mark(cost bool) string {
	switch {
	case strings.HasPrefix(f.Says, "Not measured"):
		return "not measured"
	case cost:
		return "measured"
	case f.Applies:
		return "applies"
	}
	return "does not apply"
}

// basis is what a finding without run evidence rests on.
func (d Decision) basis(f Finding) string {
	switch {
	case len(f.Evidence) > 0:
		return ""
	case strings.HasPrefix(f.Says, "Not measured"), strings.HasPrefix(f.Says, "Does not arise"):
		return "the plan and the profile"
	}
	return "the profile's answers"
}

// basis is what a setting without run evidence rests on: the plan when
// it was not measured or verified, the profile otherwise.
func (s Setting) basis() string {
	switch {
	case len(s.Evidence) > 0:
		return ""
	case strings.HasPrefix(s.Value, "not "):
		return "the plan and the profile"
	}
	return "the profile's answers"
}

// Markdown renders decision.md: the headline first, then stage 1, stage 2,
// the settings, the cost and what was left out. Every sentence is followed
// by the evidence it rests on (a link into report.html and the run.json
// path), or says that it rests on the profile or the plan.
func (d Decision) Markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Proof of concept: %s\n\n", mdEscape(d.Profile))
	if d.NotKafka {
		p("> **NOT KAFKA**: no verdict.\n\n")
	}
	p("**Verdict: %s.** %s\n\n", d.Verdict, mdEscape(d.Headline))
	findings := func(title string, fs []Finding) {
		p("## %s\n\n", title)
		if len(fs) == 0 {
			p("None.\n\n")
			return
		}
		for _, f := range fs {
			p("- **%s** (%s): %s", mdEscape(f.Key), f.mark(title == "Cost"), mdEscape(f.Says))
			d.mdEvidence(&b, f.Evidence, d.basis(f))
		}
		p("\n")
	}
	findings("Stage 1: restrictions", d.Restrictions)
	findings("Stage 2: reasons", d.Reasons)
	p("## Settings\n\n")
	for _, s := range d.Settings {
		p("- `%s` = %s: %s.", mdEscape(s.Name), mdEscape(s.Value), mdEscape(strings.TrimSuffix(s.Why, ".")))
		d.mdEvidence(&b, s.Evidence, s.basis())
	}
	p("\n")
	findings("Cost", d.Cost)
	if len(d.Problems) > 0 {
		p("## Problems\n\n")
		for _, s := range d.Problems {
			p("- %s\n", mdEscape(s))
		}
		p("\n")
	}
	p("## Left out\n\n")
	if len(d.LeftOut) == 0 {
		p("Nothing: every planned experiment fitted the budget.\n")
	}
	for _, s := range d.LeftOut {
		p("- %s\n", mdEscape(s))
	}
	return b.String()
}

func (d Decision) mdEvidence(b *strings.Builder, ev []Evidence, basis string) {
	if len(ev) == 0 {
		fmt.Fprintf(b, " (from %s)\n", basis)
		return
	}
	links := make([]string, len(ev))
	for i, e := range ev {
		links[i] = e.Link()
	}
	fmt.Fprintf(b, " Evidence: %s.\n", strings.Join(links, "; "))
}

// htmlSection is the decision at the top of report.html; html/template
// escapes every value.
var htmlSection = template.Must(template.New("decision").Funcs(template.FuncMap{
	"basis":        func(d Decision, f Finding) string { return d.basis(f) },
	"settingBasis": func(s Setting) string { return s.basis() },
	"mark":         func(f Finding, title string) string { return f.mark(title == "Cost") },
	"why":          func(s string) string { return strings.TrimSuffix(s, ".") },
	"section": func(d Decision, title string, f []Finding) findingsSection {
		return findingsSection{D: d, Title: title, F: f}
	},
}).Parse(`<section class="poc-decision" id="poc-decision">
<h2>Proof of concept: {{.Profile}}</h2>
{{if .NotKafka}}<div class="run-verdict failed" id="poc-not-kafka">NOT KAFKA: no verdict</div>
{{end}}<p class="poc-verdict"><strong>Verdict: {{.Verdict}}.</strong> {{.Headline}}</p>
{{define "evidence"}}{{if .}} Evidence: {{range $i, $e := .}}{{if $i}}; {{end}}<a href="#{{$e.Anchor}}">{{$e.Text}}</a> (<code>{{$e.Path}}</code>){{end}}.{{end}}{{end}}
{{define "findings"}}{{$d := .D}}<h3>{{.Title}}</h3>
<ul>
{{range .F}}<li><strong>{{.Key}}</strong> ({{mark . $.Title}}): {{.Says}}{{if .Evidence}}{{template "evidence" .Evidence}}{{else}} (from {{basis $d .}}){{end}}</li>
{{else}}<li>None.</li>
{{end}}</ul>
{{end}}{{template "findings" (section . "Stage 1: restrictions" .Restrictions)}}{{template "findings" (section . "Stage 2: reasons" .Reasons)}}<h3>Settings</h3>
<ul>
{{range .Settings}}<li><code>{{.Name}}</code> = {{.Value}}: {{why .Why}}.{{if .Evidence}}{{template "evidence" .Evidence}}{{else}} (from {{settingBasis .}}){{end}}</li>
{{end}}</ul>
{{template "findings" (section . "Cost" .Cost)}}{{with .Problems}}<h3>Problems</h3>
<ul>
{{range .}}<li>{{.}}</li>
{{end}}</ul>
{{end}}<h3>Left out</h3>
<ul>
{{range .LeftOut}}<li>{{.}}</li>
{{else}}<li>Nothing: every planned experiment fitted the budget.</li>
{{end}}</ul>
</section>
`))

// findingsSection is one list of findings for the template.
type findingsSection struct {
	D     Decision
	Title string
	F     []Finding
}

// HTMLSection is the decision as a self-contained HTML fragment, every
// value escaped, for the top of report.html (the same content as
// Markdown; the evidence links point at the runs' sections, #run-<id>).
func (d Decision) HTMLSection() string {
	var b bytes.Buffer
	if err := htmlSection.Execute(&b, d); err != nil {
		panic(fmt.Sprintf("poc: decision template: %v", err)) // the template is fixed; TestRender runs it
	}
	return b.String()
}
