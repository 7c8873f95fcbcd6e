package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/vocab"
)

// The headline is what a campaign says first (the console after the runs,
// the top of summary.md and report.html): a dozen lines or so, each a
// claim with its number, none over HeadlineWidth characters, in this order:
//
//   - what ran: the scenario, the Kafka release, the brokers;
//   - per consumer/share pair (at most headlinePairs; the rest counted):
//     the throughput ratio with both rates, each arm's bound, both
//     arms' completion p50/p99; runs outside a pair get one line each (at
//     most headlineRuns): rate, bound, p99; a max-rate run its found rate
//     beside its ceiling;
//   - the audit over every run: nothing lost, or what was lost and where;
//   - the broker cost per record of each pair at equal throughput, or why
//     it is not compared;
//   - the validity flags by run, as codes (docs/explanation/measurement.md#validity-flags);
//   - the expectations met, and each one not met by name;
//   - where the report is.
//
// Long explanations stay in summary.md and report.html; the full
// side-by-side table is behind the console's --detail.

// HeadlineWidth is the longest line the headline writes.
const HeadlineWidth = 100

const (
	headlinePairs = 3 // pairs shown; the others are counted
	headlineRuns  = 4 // unpaired runs shown
	headlineMiss  = 3 // expectations not met shown by name
)

// HeadlineInput is what the headline reads.
type HeadlineInput struct {
	Scenario     string
	Runs         []runs.Record
	Expectations []runs.ExpectationOutcome
	// Dir is the campaign folder ("" leaves out the line saying where the
	// report is); Detail names how to see the full table ("" none).
	Dir, Detail string
}

// Headline writes the headline.
func Headline(in HeadlineInput) Reporter {
	return func(w io.Writer) error {
		if err := redactAll(&in.Runs); err != nil {
			return err
		}
		for _, l := range headlineLines(in) {
			if _, err := fmt.Fprintln(w, l); err != nil {
				return err
			}
		}
		return nil
	}
}

// headlineLines are the headline's lines, each cut to HeadlineWidth.
func headlineLines(in HeadlineInput) []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, fit(fmt.Sprintf(format, a...))) }
	recs := in.Runs
	if len(recs) == 0 {
		add("%s: no run completed", in.Scenario)
		return out
	}
	add("%s", whatRan(in.Scenario, recs))

	pairs := runs.Pairs(recs)
	paired := map[string]bool{}
	for i, p := range pairs {
		paired[p.Consumer.RunID], paired[p.Share.RunID] = true, true
		if i >= headlinePairs {
			continue
		}
		c, s := p.Consumer, p.Share
		label := ""
		if len(pairs) > 1 {
			label = pairLabel(p)
		}
		if c.MaxRate != nil && s.MaxRate != nil {
			add("%s", runLine(c))
			add("%s", runLine(s))
			continue
		}
		if c.UsefulPerSec() > 0 {
			add("%sthroughput: share %.2f× the consumer group (%s vs %s records/s)", label,
				s.UsefulPerSec()/c.UsefulPerSec(), num(s.UsefulPerSec()), num(c.UsefulPerSec()))
		} else {
			add("%sthroughput: share %s records/s, consumer group 0", label, num(s.UsefulPerSec()))
		}
		add("  bound: consumer %s · share %s", boundText(c), boundText(s))
		add("  completion p50/p99 ms: consumer %s/%s · share %s/%s",
			num(c.Latency.CompletionMs.P50), num(c.Latency.CompletionMs.P99),
			num(s.Latency.CompletionMs.P50), num(s.Latency.CompletionMs.P99))
	}
	if n := len(pairs) - headlinePairs; n > 0 {
		add("  … and %d more consumer/share pair(s): summary.md", n)
	}
	var alone []runs.Record
	for _, r := range recs {
		if !paired[r.RunID] {
			alone = append(alone, r)
		}
	}
	for i, r := range alone {
		if i == headlineRuns {
			add("  … and %d more run(s): summary.md", len(alone)-headlineRuns)
			break
		}
		add("%s", runLine(r))
	}
	add("%s", auditLine(recs))
	for _, l := range costLines(pairs) {
		add("%s", l)
	}
	if l := observerHeadline(recs); l != "" {
		add("%s", l)
	}
	for _, l := range flagsLines(recs) {
		add("%s", l)
	}
	out = append(out, expectationLines(in.Expectations)...)
	if in.Dir != "" {
		where := "report: " + filepath.Join(in.Dir, "report.html")
		if in.Detail != "" {
			where += " (" + in.Detail + ")"
		}
		if len([]rune(where)) > HeadlineWidth { // a long folder: the path alone
			where = "report: " + filepath.Join(in.Dir, "report.html")
		}
		out = append(out, where) // a path is never cut
	}
	return out
}

// whatRan is the first line: scenario, release, brokers, runs.
func whatRan(scenario string, recs []runs.Record) string {
	e := recs[0].Environment
	kafka := "Kafka " + e.KafkaVersion
	if !e.IsKafka {
		kafka = "kfake (not Kafka)"
	}
	line := fmt.Sprintf("%s: %d run(s) on %s, %d broker(s) (%s)", scenario, len(recs), kafka, e.Nodes, e.Provider)
	if e.SharePreview != "" {
		line += " · " + vocab.SharePreviewLabel
	}
	return line
}

// runLine is an unpaired run's line; a max-rate run gives its found rate.
func runLine(r runs.Record) string {
	if m := r.MaxRate; m != nil {
		line := fmt.Sprintf("%s: max sustainable rate %s records/s", shortID(r.RunID), num(m.FoundRate))
		if m.CeilingPerSec > 0 {
			line += fmt.Sprintf(" (%.0f %% of the %s ceiling)", 100*m.FoundRate/m.CeilingPerSec, num(m.CeilingPerSec))
		}
		return line
	}
	return fmt.Sprintf("%s: %s records/s, %s, p99 %s ms", shortID(r.RunID), num(r.UsefulPerSec()), boundText(r),
		num(r.Latency.CompletionMs.P99))
}

// boundText is a run's bound at its share of the ceiling: "workers, 91 %
// of 400/s", or the bound that held when it is not the formula's:
// "host_saturation held, 60 % of workers 400/s".
func boundText(r runs.Record) string {
	c := r.Ceiling
	if c.RecordsPerSec <= 0 {
		return "no ceiling"
	}
	held := c.HeldBound()
	if c.Efficiency < 0.01 { // a ceiling 100× above the rate (no processing): its figure says nothing
		return fmt.Sprintf("%s held, far below the %s ceiling", held, c.Bound)
	}
	if held != c.Bound {
		return fmt.Sprintf("%s held, %.0f %% of %s %s/s", held, 100*c.Efficiency, c.Bound, num(c.RecordsPerSec))
	}
	return fmt.Sprintf("%s, %.0f %% of %s/s", c.Bound, 100*c.Efficiency, num(c.RecordsPerSec))
}

// auditLine sums the audits: nothing lost, or the losses by run.
func auditLine(recs []runs.Record) string {
	var produced, lost, dup, archived int64
	var lostIn, unbalanced []string
	for _, r := range recs {
		a := r.Audit
		produced += a.Produced
		lost += a.Lost
		dup += a.Duplicates
		archived += a.Archived
		if a.Lost > 0 {
			lostIn = append(lostIn, fmt.Sprintf("%s %d", shortID(r.RunID), a.Lost))
		}
		if !a.Balanced {
			unbalanced = append(unbalanced, shortID(r.RunID))
		}
	}
	var line string
	if lost == 0 {
		line = fmt.Sprintf("audit: nothing lost of %d records", produced)
	} else {
		line = fmt.Sprintf("audit: %d of %d records LOST (%s)", lost, produced, strings.Join(lostIn, ", "))
	}
	line += fmt.Sprintf("; %d duplicated", dup)
	if archived > 0 {
		line += fmt.Sprintf(", %d archived", archived)
	}
	if len(unbalanced) > 0 {
		line += "; NOT BALANCED: " + strings.Join(unbalanced, ", ")
	}
	return line
}

// costLines give each shown pair's broker cost per record, or why not.
func costLines(pairs []runs.Pair) []string {
	var out []string
	measured := false
	for i, p := range pairs {
		if i == headlinePairs {
			break
		}
		d, ok := p.BrokerCostDifference()
		label := ""
		if len(pairs) > 1 {
			label = pairLabel(p)
		}
		switch {
		case !ok:
			out = append(out, label+"broker CPU per record: not measured on both arms")
			continue
		case d.EqualThroughput:
			out = append(out, fmt.Sprintf("%sbroker CPU per record completed: share %+.3g s per million vs the consumer's",
				label, d.AtEqualPerMillion))
		case d.ConsumerMovedPerMillion > 0:
			out = append(out, fmt.Sprintf("%sbroker CPU per record moved: share %.2f× the consumer's (%s vs %s s/M), at unequal rates",
				label, d.ShareMovedPerMillion/d.ConsumerMovedPerMillion, num(d.ShareMovedPerMillion), num(d.ConsumerMovedPerMillion)))
		}
		measured = true
	}
	if !measured && len(out) > 0 {
		return []string{"broker CPU per record: not measured (no broker CPU figures)"}
	}
	return out
}

// observerHeadline is what the harness's broker scrapes cost the brokers
// (broker_cost.scrape_percent over the runs that calibrated them), or "".
func observerHeadline(recs []runs.Record) string {
	o := scrapeCosts(recs)
	switch {
	case o.runs == 0:
		return ""
	case o.subtracted > 0:
		return fmt.Sprintf("observer: the harness's broker scrapes cost up to %.1f %% of the broker CPU; subtracted", o.most)
	}
	return fmt.Sprintf("observer: the harness's broker scrapes cost %.2f–%.2f %% of the broker CPU", o.least, o.most)
}

// flagsLines list the validity flags by run, as codes, one run a line
// (at most headlineRuns; the others counted).
func flagsLines(recs []runs.Record) []string {
	var flagged []string
	for _, r := range recs {
		var codes []string
		for _, f := range r.Validity.Flags {
			if !slices.Contains(codes, string(f.Code)) {
				codes = append(codes, string(f.Code))
			}
		}
		if len(codes) > 0 {
			flagged = append(flagged, "  "+shortID(r.RunID)+": "+strings.Join(codes, ", "))
		}
	}
	if len(flagged) == 0 {
		return []string{"validity: no flag raised"}
	}
	out := []string{fmt.Sprintf("validity flags in %d of %d run(s) (docs/explanation/measurement.md#validity-flags):", len(flagged), len(recs))}
	if len(flagged) > headlineRuns {
		return append(append(out, flagged[:headlineRuns-1]...), fmt.Sprintf("  … and %d more: summary.md", len(flagged)-headlineRuns+1))
	}
	return append(out, flagged...)
}

// expectationLines: how many were met, then each one not met by name.
func expectationLines(outs []runs.ExpectationOutcome) []string {
	if len(outs) == 0 {
		return nil
	}
	met, skipped := 0, 0
	var missed []runs.ExpectationOutcome
	for _, o := range outs {
		switch {
		case o.Skipped:
			skipped++
		case o.Met:
			met++
		default:
			missed = append(missed, o)
		}
	}
	line := fmt.Sprintf("expectations: %d of %d met", met, len(outs)-skipped)
	if skipped > 0 {
		line += fmt.Sprintf(" (%d skipped)", skipped)
	}
	out := []string{fit(line)}
	for i, o := range missed {
		if i == headlineMiss {
			out = append(out, fit(fmt.Sprintf("  … and %d more NOT MET: summary.md", len(missed)-headlineMiss)))
			break
		}
		line := func(ref func(string) string) string {
			var got []string
			for _, m := range o.Measured {
				if !m.Met {
					got = append(got, fmt.Sprintf("%s %s", ref(m.Run), num(m.Value)))
				}
			}
			if len(got) == 0 {
				return "  NOT MET: " + o.Name
			}
			return "  NOT MET: " + o.Name + " (measured " + strings.Join(got, ", ") + ")"
		}
		l := line(shortRef)
		if len([]rune(l)) > HeadlineWidth { // the runs by their numbers: r04/r01
			l = line(func(ref string) string {
				parts := strings.Split(ref, "/")
				for i, p := range parts {
					parts[i] = runNumber(p)
				}
				return strings.Join(parts, "/")
			})
		}
		out = append(out, fit(l))
	}
	return out
}

// shortID is a run id without its scenario prefix noise: "r01-consumer"
// stays, "r01-consumer-members-4-t0" becomes "r01".
func shortID(id string) string {
	if i := strings.IndexByte(id, '-'); i > 0 && len(id) > 16 {
		return id[:i]
	}
	return id
}

// shortRef is a measured value's run, or pair of runs ("r02-share/r01-consumer"), shortened as shortID.
func shortRef(ref string) string {
	parts := strings.Split(ref, "/")
	for i, p := range parts {
		parts[i] = shortID(p)
	}
	return strings.Join(parts, "/")
}

// pairLabel names a pair by its runs' numbers: "r01/r02 ".
func pairLabel(p runs.Pair) string {
	return runNumber(p.Consumer.RunID) + "/" + runNumber(p.Share.RunID) + " "
}

// runNumber is a run id's number: "r01-consumer-m4" → "r01".
func runNumber(id string) string {
	if i := strings.IndexByte(id, '-'); i > 0 {
		return id[:i]
	}
	return id
}

// num prints a figure with the digits it deserves: 1001, 242, 63.2, 0.42.
func num(v float64) string {
	switch {
	case v >= 100 || v <= -100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10 || v <= -10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// fit cuts a line to HeadlineWidth characters, ending it with "…".
func fit(s string) string {
	r := []rune(s)
	if len(r) <= HeadlineWidth {
		return s
	}
	return string(r[:HeadlineWidth-1]) + "…"
}
