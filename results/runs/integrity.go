package runs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
)

// MaxRecordFileBytes is the largest run.json or campaign.json sharebench
// reads: a run record is summaries, never raw data (a few hundred KiB with
// events and shards), so a bigger file is not one of ours and is refused
// before it is read whole.
const MaxRecordFileBytes = 64 << 20

// readRecordFile reads a run.json or campaign.json for loading: a regular
// file (not a directory, a device or a symbolic link), not empty, at most
// MaxRecordFileBytes, one JSON object without duplicate keys. Errors name
// the file and what was wrong.
func readRecordFile(path string) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return nil, fmt.Errorf("%s: a symbolic link (to %s): expected the regular file sharebench wrote", path, target)
	case st.IsDir():
		return nil, fmt.Errorf("%s: a directory: expected a JSON file", path)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s: not a regular file (%s): expected a JSON file", path, st.Mode().Type())
	case st.Size() > MaxRecordFileBytes:
		return nil, fmt.Errorf("%s: %d bytes: larger than the %d MiB a record can be", path, st.Size(), MaxRecordFileBytes>>20)
	case st.Size() == 0:
		return nil, fmt.Errorf("%s: empty file: expected a JSON object", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxRecordFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > MaxRecordFileBytes {
		return nil, fmt.Errorf("%s: larger than the %d MiB a record can be", path, MaxRecordFileBytes>>20)
	}
	if err := checkJSONObject(b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// checkJSONObject checks b is one JSON object and that no object in it
// holds a key twice (encoding/json keeps the last one silently, which would
// let a file rename its run or overwrite its own audit).
func checkJSONObject(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("not a JSON object (starts with %v)", tok)
	}
	if err := checkObject(dec, "", 0); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("text after the JSON object")
	}
	return nil
}

// maxJSONDepth bounds the nesting checkObject follows.
const maxJSONDepth = 64

// checkObject reads the rest of an object whose '{' was read.
func checkObject(dec *json.Decoder, at string, depth int) error {
	if depth > maxJSONDepth {
		return fmt.Errorf("%s: nested deeper than %d levels", at, maxJSONDepth)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		path := key
		if at != "" {
			path = at + "." + key
		}
		if seen[key] {
			return fmt.Errorf("key %q appears twice: expected each key once", path)
		}
		seen[key] = true
		if err := checkValue(dec, path, depth); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	return err
}

func checkValue(dec *json.Decoder, at string, depth int) error {
	if depth > maxJSONDepth {
		return fmt.Errorf("%s: nested deeper than %d levels", at, maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		return checkObject(dec, at, depth+1)
	case '[':
		for i := 0; dec.More(); i++ {
			if err := checkValue(dec, fmt.Sprintf("%s[%d]", at, i), depth+1); err != nil {
				return err
			}
		}
		_, err := dec.Token() // ']'
		return err
	}
	return nil
}

// auditKeys are the audit counts a run.json must hold: a file without one
// of them would read as 0 (a missing "lost" as nothing lost).
var auditKeys = []string{"produced", "completed_once", "duplicates", "archived", "in_flight", "lost", "balanced"}

// decodeRun decodes a run.json read by readRecordFile and checks it is a
// run record of this schema: schema_version, run_id and spec present. The
// audit counts it lacks are noted in the record (older files still render;
// the gate refuses them, IntegrityProblems).
func decodeRun(path string, b []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	var raw struct {
		SchemaVersion json.RawMessage            `json:"schema_version"`
		Audit         map[string]json.RawMessage `json:"audit"`
		Destination   map[string]json.RawMessage `json:"destination"`
	}
	_ = json.Unmarshal(b, &raw) // decoded above: cannot fail
	switch {
	case raw.SchemaVersion == nil:
		return r, fmt.Errorf("%s: no schema_version: expected %d", path, SchemaVersion)
	case r.SchemaVersion != SchemaVersion:
		return r, fmt.Errorf("%s: schema_version %d: this sharebench reads version %d", path, r.SchemaVersion, SchemaVersion)
	case r.RunID == "":
		return r, fmt.Errorf("%s: not a run record (no run_id)", path)
	case r.Spec == nil:
		return r, fmt.Errorf("%s: not a run record (no spec)", path)
	}
	for _, k := range auditKeys {
		if raw.Audit[k] == nil {
			r.absentAudit = append(r.absentAudit, "audit."+k)
		}
	}
	if r.Destination != nil && r.Destination.DestinationAudit != nil {
		// The read-back's counts come together (absent together: the
		// table was not read); one left out would read as 0.
		for _, k := range destinationAuditKeys {
			if raw.Destination[k] == nil {
				r.absentAudit = append(r.absentAudit, "destination."+k)
			}
		}
	}
	return r, nil
}

// IntegrityProblems recomputes what the gates rely on from the record's own
// counts, one line per inconsistency naming the run and the figure: every
// audit count non-negative, the categories adding up to produced exactly
// when balanced says so (docs/explanation/measurement.md#audit), the throughput figures
// finite, non-negative and no higher than the records counted could make;
// the destination block and the autoscale block present when the spec has
// their block, their counts as the read-back and the scaler's decisions
// make them, and their validity flags raised where the counts raise them
// (destinationProblems, autoscaleProblems). A record written by sharebench
// has none; a record that has one is not trusted by compare, report or the
// run's verdict.
func IntegrityProblems(r Record) []string {
	var out []string
	bad := func(format string, a ...any) {
		out = append(out, fmt.Sprintf("run %s: ", r.RunID)+fmt.Sprintf(format, a...)+": the record is inconsistent")
	}
	if len(r.absentAudit) > 0 {
		bad("%s absent from run.json: a missing count would read as 0", strings.Join(r.absentAudit, ", "))
	}
	destinationProblems(r, bad)
	autoscaleProblems(r, bad)
	a := r.Audit
	for _, c := range []struct {
		name string
		v    int64
	}{{"produced", a.Produced}, {"completed_once", a.CompletedOnce}, {"duplicates", a.Duplicates},
		{"duplicate_completions", a.DuplicateCompletions}, {"archived", a.Archived}, {"in_flight", a.InFlight},
		{"lost", a.Lost}, {"undelivered", a.Undelivered}, {"unacknowledged", a.Unacknowledged}, {"foreign", a.Foreign}} {
		if c.v < 0 {
			bad("audit.%s = %d is negative", c.name, c.v)
		}
	}
	if a.Balanced && !a.Balances() {
		bad("audit.balanced = true but completed_once %d + duplicates %d + archived %d + in_flight %d + lost %d + undelivered %d = %d, not produced %d (unacknowledged %d, foreign %d)",
			a.CompletedOnce, a.Duplicates, a.Archived, a.InFlight, a.Lost, a.Undelivered, a.Categorized(), a.Produced, a.Unacknowledged, a.Foreign)
	}
	t := r.Throughput
	rates := []struct {
		name string
		v    float64
	}{{"offered_per_sec", t.OfferedPerSec}, {"produced_per_sec", t.ProducedPerSec}, {"completed_per_sec", t.CompletedPerSec}, {"completed_ratio", t.CompletedRatio}}
	for _, f := range rates {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			bad("throughput.%s = %g: expected a finite number ≥ 0", f.name, f.v)
		}
	}
	ph := r.Phases
	for _, f := range []struct {
		name string
		v    float64
	}{{"measure_s", ph.MeasureSec}, {"drain_s", ph.DrainSec}, {"fill_s", ph.FillSec}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			bad("phases.%s = %g: expected a finite number of seconds ≥ 0", f.name, f.v)
		}
	}
	if r.MaxRate != nil {
		return out // the figures are one search step's, the audit the whole run's
	}
	// A rate over a window of X seconds counts records of that window, so
	// rate × X is at most the records of the whole run; the shortest phase
	// that can be the rate's window (the measurement window; the drain for
	// completions and the fill for production in backlog mode) bounds it.
	// A rate above 0 with no phase that could be its window (every one 0
	// or absent) was measured over nothing: the bound cannot be skipped,
	// the record is refused.
	const slack = 1.01 // rounding of the window's edges
	completions := a.CompletedOnce + a.Duplicates + a.DuplicateCompletions
	if w := shortest(ph.MeasureSec, ph.DrainSec); w > 0 {
		if t.CompletedPerSec*w > float64(completions)*slack+1 {
			bad("throughput.completed_per_sec = %g over a window of at least %gs makes more than the %d completions counted", t.CompletedPerSec, w, completions)
		}
	} else if t.CompletedPerSec > 0 {
		bad("throughput.completed_per_sec = %g with phases.measure_s and phases.drain_s both 0: a rate with no window to measure it over", t.CompletedPerSec)
	}
	if w := shortest(ph.MeasureSec, ph.FillSec); w > 0 {
		if t.ProducedPerSec*w > float64(a.Produced)*slack+1 {
			bad("throughput.produced_per_sec = %g over a window of at least %gs makes more than the %d records produced", t.ProducedPerSec, w, a.Produced)
		}
	} else if t.ProducedPerSec > 0 {
		bad("throughput.produced_per_sec = %g with phases.measure_s and phases.fill_s both 0: a rate with no window to measure it over", t.ProducedPerSec)
	}
	// An open-loop producer sends no record before its intended time, so a
	// rate run cannot produce more in its window than the spec offered from
	// the load's start to the window's end: rate × (warmup + duration).
	if sp := r.Spec; sp != nil && !sp.Backlog() && sp.Rate > 0 && ph.MeasureSec > 0 {
		span := max((sp.Warmup + sp.Duration).Seconds(), ph.MeasureSec)
		if offered := sp.Rate * span; t.ProducedPerSec*ph.MeasureSec > offered*slack+float64(max(sp.Producers, 1)) {
			bad("throughput.produced_per_sec = %g over a %gs window is more than the spec offered (rate %g × %gs = %.0f records)",
				t.ProducedPerSec, ph.MeasureSec, sp.Rate, span, offered)
		}
	}
	return out
}

// shortest is the smallest positive value, 0 if none is.
func shortest(vs ...float64) float64 {
	m := 0.0
	for _, v := range vs {
		if v > 0 && (m == 0 || v < m) {
			m = v
		}
	}
	return m
}
