package report

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"io"
	"path/filepath"

	"github.com/sharebench/sharebench/results/runs"
)

// A Reporter writes one rendering of a campaign's results. Every renderer
// of this package is a function that takes what it renders and returns a
// Reporter.
type Reporter func(io.Writer) error

// WriteFile writes the rendering to path, redacted and atomically
// (runs.WriteFileAtomic): a reader never sees half a report.
func (r Reporter) WriteFile(path string) error {
	var b bytes.Buffer
	if err := r(&b); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return runs.WriteFileAtomic(path, b.Bytes())
}

// Markdown is summary.md: the side-by-side table, a verdict per
// consumer/share pair, completion-latency percentiles, the audit and the
// validity flags in words; short enough for a pull-request comment.
func Markdown(camp runs.Campaign, recs []runs.Record) Reporter {
	return func(w io.Writer) error {
		if err := redactAll(&camp, &recs); err != nil {
			return err
		}
		return writeMarkdown(w, camp, recs)
	}
}

// HTML is report.html: one self-contained file (the uPlot chart library,
// the page script and the charts' data inline, nothing fetched) from the
// run records and the .hgrm and timeseries.csv files under
// dir/runs/<run-id>/ (dir "" leaves the charts that need them out).
// An incomplete campaign (Campaign.Incomplete) gets a banner at the top
// of the body, a resumed one (Campaign.ResumedNote) a note.
func HTML(dir string, camp runs.Campaign, recs []runs.Record) Reporter {
	return HTMLWithDecision(dir, camp, recs, "")
}

// HTMLWithDecision is HTML with a proof of concept's decision section
// (poc.Decision.HTMLSection, HTML its renderer escaped) at the top of the
// page, below the title; "" is none.
func HTMLWithDecision(dir string, camp runs.Campaign, recs []runs.Record, decision template.HTML) Reporter {
	if err := redactAll(&camp, &recs); err != nil {
		return func(io.Writer) error { return err }
	}
	var div []byte
	if banner := camp.Incomplete(); banner != "" {
		div = append(div, "\n"+`<p class="incomplete" style="background:#fdd;border:2px solid #c00;padding:.5em;font-weight:bold">`+
			html.EscapeString(banner)+"</p>"...)
	}
	if note := camp.ResumedNote(); note != "" {
		div = append(div, "\n"+`<p class="resumed" style="border:1px solid #888;padding:.5em">`+html.EscapeString(note)+"</p>"...)
	}
	if div == nil {
		return func(w io.Writer) error { return writeHTML(w, dir, camp, recs, decision) }
	}
	return func(w io.Writer) error {
		var b bytes.Buffer
		if err := writeHTML(&b, dir, camp, recs, decision); err != nil {
			return err
		}
		page := b.Bytes()
		if i := bytes.Index(page, []byte("<body>")); i >= 0 {
			at := i + len("<body>")
			page = append(page[:at:at], append(div, page[at:]...)...)
		}
		_, err := w.Write(page)
		return err
	}
}

// CSV is runs.csv: one row per run with the summary figures.
func CSV(recs []runs.Record) Reporter {
	return func(w io.Writer) error {
		if err := redactAll(&recs); err != nil {
			return err
		}
		return writeCSV(w, recs)
	}
}

// Console is the console's side-by-side table, the runs as columns, then
// each run's validity flags.
func Console(recs []runs.Record) Reporter {
	return func(w io.Writer) error {
		if err := redactAll(&recs); err != nil {
			return err
		}
		return sideBySide(w, recs)
	}
}

// Events prints one line per event of every run that had events.
func Events(recs []runs.Record) Reporter {
	return func(w io.Writer) error {
		if err := redactAll(&recs); err != nil {
			return err
		}
		writeEvents(w, recs)
		writeAutoscale(w, recs)
		return nil
	}
}

// Expectations prints the scenario's expectations for the console, one
// line each.
func Expectations(outs []runs.ExpectationOutcome) Reporter {
	return func(w io.Writer) error {
		if err := redactAll(&outs); err != nil {
			return err
		}
		writeExpectations(w, outs)
		return nil
	}
}

// MaxRate prints every max-rate run's step table and found rate.
func MaxRate(recs []runs.Record) Reporter {
	return func(w io.Writer) error {
		if err := redactAll(&recs); err != nil {
			return err
		}
		return writeMaxRate(w, recs)
	}
}

// Recommendations prints the campaign's recommendations.
func Recommendations(recs []runs.Recommendation) Reporter {
	return func(w io.Writer) error {
		if err := redactAll(&recs); err != nil {
			return err
		}
		writeRecommendations(w, recs)
		return nil
	}
}

// Compare is the comparison as Markdown: a table per matched run spec, then
// the unmatched runs and the verdict.
func Compare(c runs.Comparison) Reporter {
	return func(w io.Writer) error {
		if err := redactAll(&c); err != nil {
			return err
		}
		return writeCompare(w, c)
	}
}

// WriteFiles renders a campaign's reports into its folder from the run
// records (and, for report.html, the .hgrm and timeseries.csv files beside
// them): summary.md, report.html and runs.csv. It returns the files it wrote.
func WriteFiles(dir string, camp runs.Campaign, recs []runs.Record) ([]string, error) {
	var written []string
	for _, f := range []struct {
		name string
		r    Reporter
	}{
		{"summary.md", Markdown(camp, recs)},
		{"report.html", HTML(dir, camp, recs)},
		{"runs.csv", CSV(recs)},
	} {
		path := filepath.Join(dir, f.name)
		if err := f.r.WriteFile(path); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}
