package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sharebench/sharebench/results/runs"
)

// writeMarkdown writes summary.md: the side-by-side table, a verdict per
// consumer/share pair, completion-latency percentiles, the audit and the
// validity flags in words; short enough for a pull-request comment.
func writeMarkdown(w io.Writer, camp runs.Campaign, recs []runs.Record) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# sharebench: %s\n\n", mdText(camp.Name))
	if banner := camp.Incomplete(); banner != "" {
		fmt.Fprintf(bw, "> **%s**\n\n", banner)
	}
	if note := camp.ResumedNote(); note != "" {
		fmt.Fprintf(bw, "> %s\n\n", mdText(note))
	}
	if d := campaignDescription(camp); d != "" {
		fmt.Fprintf(bw, "%s\n\n", mdText(d))
	}
	writeNotKafka(bw, recs)
	fmt.Fprintf(bw, "%s\n\n", mdText(environmentLine(recs, camp)))
	if len(recs) == 0 {
		fmt.Fprintln(bw, "No runs finished.")
		return bw.Flush()
	}
	// The headline, as the console prints it: a line indented there is a
	// sub-item here.
	for _, l := range headlineLines(HeadlineInput{Scenario: camp.Name, Runs: recs, Expectations: camp.Expectations}) {
		if t := strings.TrimLeft(l, " "); t != l {
			fmt.Fprintf(bw, "  - %s\n", mdText(t))
		} else {
			fmt.Fprintf(bw, "- %s\n", mdText(l))
		}
	}
	fmt.Fprintln(bw)
	if pairs := runs.Pairs(recs); len(pairs) > 0 {
		fmt.Fprintln(bw, "## Verdict")
		fmt.Fprintln(bw)
		for _, p := range pairs {
			fmt.Fprintf(bw, "- %s\n", mdText(p.Verdict()))
		}
		fmt.Fprintln(bw)
	}
	if lines := brokerCostLines(recs); len(lines) > 0 {
		fmt.Fprintln(bw, "## Broker cost")
		fmt.Fprintln(bw)
		for _, l := range lines {
			fmt.Fprintf(bw, "- %s\n", mdText(l))
		}
		fmt.Fprintln(bw)
	}
	if head, problems := runVerdict(camp, recs); head != "" {
		fmt.Fprintf(bw, "**%s**\n\n", mdText(head))
		for _, p := range problems {
			fmt.Fprintf(bw, "- %s\n", mdText(p))
		}
		if len(problems) > 0 {
			fmt.Fprintln(bw)
		}
	}
	writeMarkdownExpectations(bw, camp.Expectations)
	writeMarkdownMaxRate(bw, recs)
	writeMarkdownRecommendations(bw, camp.Recommendations)
	fmt.Fprintln(bw, "## Runs")
	fmt.Fprintln(bw)
	writeMarkdownSideBySide(bw, recs)
	writeMarkdownEvents(bw, recs)
	writeMarkdownAutoscale(bw, recs)
	writeMarkdownRequests(bw, recs)
	writeMarkdownPercentiles(bw, recs)
	writeMarkdownAudit(bw, recs)
	writeMarkdownValidity(bw, recs)
	return bw.Flush()
}

// campaignDescription is the scenario's description (the question the
// campaign asks), or "".
func campaignDescription(camp runs.Campaign) string {
	var sc struct {
		Description string `json:"description"`
	}
	b, err := json.Marshal(camp.Scenario)
	if err != nil || json.Unmarshal(b, &sc) != nil {
		return ""
	}
	return strings.TrimSpace(sc.Description)
}

func writeNotKafka(w io.Writer, recs []runs.Record) {
	for _, r := range recs {
		if !r.Environment.IsKafka {
			fmt.Fprintf(w, "> **NOT KAFKA**: %s ran on %s (%s), not Apache Kafka; its numbers say nothing about Kafka.\n\n",
				r.RunID, r.Environment.Provider, r.Environment.KafkaVersion)
		}
		if l := r.PreviewLine(); l != "" {
			fmt.Fprintf(w, "> **PREVIEW**: %s.\n\n", mdText(l))
		}
	}
}

func environmentLine(recs []runs.Record, camp runs.Campaign) string {
	name := camp.Name
	if len(recs) > 0 && recs[0].Campaign != "" {
		name = recs[0].Campaign // the folder name, with its timestamp
	}
	parts := []string{fmt.Sprintf("campaign %s", name)}
	if camp.StartedAt != "" {
		parts = append(parts, "started "+camp.StartedAt)
	}
	if len(recs) > 0 {
		e := recs[0].Environment
		provider := e.Provider
		if e.Image != "" {
			provider += " (image " + e.Image + ")"
		}
		kafka := e.KafkaVersion
		if e.SharePreview != "" {
			kafka += " (" + e.SharePreview + ")"
		}
		parts = append(parts, fmt.Sprintf("Kafka %s, %d node(s), provider %s, host %d CPUs %s/%s, Go %s",
			kafka, e.Nodes, provider, e.Host.CPUs, e.Host.OS, e.Host.Arch, e.Host.GoVersion))
	}
	return strings.Join(parts, "; ") + "."
}

// mdText escapes what a Markdown renderer would take as HTML (a
// pull-request comment renders summary.md): names, descriptions and cells
// come from the scenario file, so a <script> or <img onerror> in them is
// shown as text, never run.
var mdHTML = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func mdText(s string) string { return mdHTML.Replace(s) }

// mdRow writes one Markdown table row, escaping pipes in cells.
func mdRow(w io.Writer, cells ...string) {
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(mdText(c), "|", `\|`)
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
}

func mdHeader(w io.Writer, align string, cells ...string) {
	mdRow(w, cells...)
	seps := make([]string, len(cells))
	for i := range seps {
		seps[i] = align
	}
	seps[0] = "---"
	fmt.Fprintf(w, "| %s |\n", strings.Join(seps, " | "))
}

func writeMarkdownSideBySide(w io.Writer, recs []runs.Record) {
	rows, dropped := splitRows(recs)
	head := []string{rows[0].label}
	for _, r := range recs {
		head = append(head, rows[0].cell(r))
	}
	mdHeader(w, "---:", head...)
	for _, row := range rows[1:] {
		cells := []string{row.label}
		for _, r := range recs {
			cells = append(cells, row.cell(r))
		}
		mdRow(w, cells...)
	}
	fmt.Fprintln(w)
	if note := droppedNote(dropped); note != "" {
		fmt.Fprintf(w, "%s\n\n", mdText(note))
	}
}

func writeMarkdownPercentiles(w io.Writer, recs []runs.Record) {
	fmt.Fprintln(w, "## Completion latency (ms, from intended send)")
	fmt.Fprintln(w)
	mdHeader(w, "---:", "run", "count", "p50", "p90", "p99", "p99.9", "p99.99", "max")
	for _, r := range recs {
		p := r.Latency.CompletionMs
		mdRow(w, r.RunID, fmt.Sprint(p.Count), ms(p.P50), ms(p.P90), ms(p.P99), ms(p.P999), ms(p.P9999), ms(p.Max))
	}
	fmt.Fprintln(w)
}

func ms(v float64) string { return fmt.Sprintf("%.1f", v) }

// AuditLine states a run's audit as one sentence.
func AuditLine(r runs.Record) string {
	a := r.Audit
	state := "balanced"
	if !a.Balanced {
		state = fmt.Sprintf("**DOES NOT BALANCE** (%d unacknowledged, %d foreign)", a.Unacknowledged, a.Foreign)
	}
	return fmt.Sprintf("%d produced = %d completed once + %d duplicates + %d archived + %d in flight + %d lost + %d undelivered: %s",
		a.Produced, a.CompletedOnce, a.Duplicates, a.Archived, a.InFlight, a.Lost, a.Undelivered, state)
}

func writeMarkdownAudit(w io.Writer, recs []runs.Record) {
	fmt.Fprintln(w, "## Audit")
	fmt.Fprintln(w)
	for _, r := range recs {
		fmt.Fprintf(w, "- %s: %s\n", r.RunID, AuditLine(r))
		if l := OrderLine(r); l != "" {
			fmt.Fprintf(w, "  - %s\n", l)
		}
	}
	fmt.Fprintln(w)
}

func writeMarkdownValidity(w io.Writer, recs []runs.Record) {
	fmt.Fprintln(w, "## Validity")
	fmt.Fprintln(w)
	var valid []string
	for _, r := range recs {
		if len(r.Validity.Flags) == 0 {
			valid = append(valid, r.RunID)
		}
	}
	if len(valid) > 0 {
		fmt.Fprintf(w, "- valid, no flags: %s\n", strings.Join(valid, ", "))
	}
	for _, r := range recs {
		for _, f := range r.Validity.Flags {
			fmt.Fprintf(w, "- %s: **%s**: %s\n", r.RunID, f.Code, f.Message)
		}
	}
}

// writeMarkdownRequests is the consumers' request timings per run and
// broker: fetches per second, the empty share and the time spent waiting.
func writeMarkdownRequests(w io.Writer, recs []runs.Record) {
	var any bool
	for _, r := range recs {
		any = any || len(r.Requests) > 0
	}
	if !any {
		return
	}
	fmt.Fprintln(w, "## Requests per broker")
	fmt.Fprintln(w)
	mdHeader(w, "---:", "run", "broker", "kind", "requests/s", "empty share", "empty mean ms", "mean ms", "wait s")
	for _, r := range recs {
		for _, q := range r.Requests {
			empty, emptyMs := "-", "-"
			if runs.IsFetch(q.Kind) {
				empty, emptyMs = fmt.Sprintf("%.0f%%", 100*q.EmptyShare), fmt.Sprintf("%.0f", q.EmptyMeanMs)
			}
			mean, wait := fmt.Sprintf("%.1f", q.MeanMs), fmt.Sprintf("%.1f", q.WaitSec)
			if q.Untimed { // counted, not timed (the Java client's per-node metrics)
				empty, emptyMs, mean, wait = "-", "-", "-", "-"
			}
			if q.Unavailable != "" && !q.Untimed { // timed, no empty count (the Java client's fetch responses)
				empty, emptyMs = "-", "-"
			}
			mdRow(w, r.RunID, fmt.Sprint(q.Broker), q.Kind, fmt.Sprintf("%.1f", q.PerSec), empty, emptyMs, mean, wait)
		}
	}
	fmt.Fprintln(w)
	// What "-" stands for, once per reason.
	var notes []string
	for _, r := range recs {
		for _, q := range r.Requests {
			if q.Unavailable != "" && !slices.Contains(notes, q.Unavailable) {
				notes = append(notes, q.Unavailable)
			}
		}
	}
	for _, n := range notes {
		fmt.Fprintf(w, "- unavailable: %s\n", n)
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
	}
}
