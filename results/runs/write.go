package runs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Campaign is campaign.json: what was asked, where it ran, which runs it made.
type Campaign struct {
	SchemaVersion int    `json:"schema_version"`
	Name          string `json:"name"`
	// Status is StatusRunning while the campaign runs, then StatusComplete,
	// StatusInterrupted or StatusFailed. Files written before the field
	// existed load as complete when they have finished_at, else as
	// interrupted (see EffectiveStatus).
	Status      string              `json:"status,omitempty"`
	Error       string              `json:"error,omitempty"` // why the campaign did not complete
	StartedAt   string              `json:"started_at"`
	FinishedAt  string              `json:"finished_at,omitempty"`
	Scenario    *scenarios.Scenario `json:"scenario"`    // the resolved scenario with its matrix
	Environment []Environment       `json:"environment"` // one per cluster the campaign started
	Runs        []string            `json:"runs"`        // run ids, in execution order
	// Running is the run in progress while the campaign runs; a campaign
	// that stopped during a run leaves its id here (a resume reruns it).
	Running string `json:"running,omitempty"`
	// Expectations are the scenario's expect: claims, checked after the runs.
	Expectations []ExpectationOutcome `json:"expectations,omitempty"`
	// Recommendations answer the scenario's recommend: query (the best
	// value of a knob under constraints), computed after the runs.
	Recommendations []Recommendation `json:"recommendations,omitempty"`
	// Resumed lists every time `sharebench run --resume` continued this
	// campaign after it stopped short, oldest first (absent when it ran
	// through in one go).
	Resumed []Resume `json:"resumed,omitempty"`

	// Skipped are the loader's notes on run folders it could not read
	// (missing, empty or invalid run.json, a run id that is not a folder
	// name); not part of the file.
	Skipped []string `json:"-"`
}

// Resume is one continuation of a campaign that stopped short: what it
// found and what it did about each run of the scenario.
type Resume struct {
	At string `json:"at"` // when the resume started, RFC 3339 UTC
	// PreviousStatus is the status the folder had: running (the harness
	// died without a word: SIGKILL, a crash, the machine stopped),
	// interrupted or failed; PreviousError its error, if any.
	PreviousStatus string `json:"previous_status"`
	PreviousError  string `json:"previous_error,omitempty"`
	// Kept are the runs whose run.json was complete and consistent, kept
	// as they were; Rerun the runs cut off part-way, run again from their
	// start; NotStarted the runs that had not begun.
	Kept       []string     `json:"kept"`
	Rerun      []ResumedRun `json:"rerun,omitempty"`
	NotStarted []string     `json:"not_started,omitempty"`
	// Differences are what differed from the recorded campaign (scenario,
	// sharebench build, environment) and --resume-anyway accepted.
	Differences []string `json:"differences,omitempty"`
}

// ResumedRun is a run a resume ran again, why, and where its partial folder
// went (relative to the campaign folder; "" when there was none).
type ResumedRun struct {
	Run     string `json:"run"`
	Reason  string `json:"reason"`
	MovedTo string `json:"moved_to,omitempty"`
}

// Campaign statuses.
const (
	StatusRunning     = "running"
	StatusComplete    = "complete"
	StatusInterrupted = "interrupted" // the context was cancelled (Ctrl-C)
	StatusFailed      = "failed"      // a run, a cluster or a write failed
)

// EffectiveStatus is the campaign's status; a file written before the
// status field is complete if it has finished_at (only finished campaigns
// wrote one), else interrupted.
func (c Campaign) EffectiveStatus() string {
	switch {
	case c.Status != "":
		return c.Status
	case c.FinishedAt != "":
		return StatusComplete
	default:
		return StatusInterrupted
	}
}

// Incomplete is the banner every rendering of an incomplete campaign
// carries, e.g. "INCOMPLETE CAMPAIGN: status interrupted", or "" when the
// campaign is complete.
func (c Campaign) Incomplete() string {
	st := c.EffectiveStatus()
	if st == StatusComplete {
		return ""
	}
	s := "INCOMPLETE CAMPAIGN: status " + st
	if c.Error != "" {
		s += " (" + c.Error + ")"
	}
	return s
}

// WriteFileAtomic writes data to path through a temporary file in the same
// folder, an fsync and a rename, so a reader (or a campaign interrupted
// mid-write) sees the old file or the new one, never half of one. The
// content passes through redact.Bytes first: no URL userinfo or password=…
// reaches disk. Every file sharebench writes into a campaign folder goes
// through it. A full file system (ENOSPC, EDQUOT) is a *NoSpaceError naming
// path and the size of the file; the temporary file is removed and the old
// file, if any, stays as it was.
func WriteFileAtomic(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	data = redact.Bytes(data)
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		if ns := noSpace(err, path, dir, int64(len(data)), false); ns != err {
			return ns
		}
		return err
	}
	tmp := f.Name()
	err = writeAll(f, data)
	if err == nil {
		err = f.Sync() // a delayed allocation may fail only here (ENOSPC)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp) // before the free space is read: it counts
		if ns := noSpace(err, path, dir, int64(len(data)), false); ns != err {
			return ns
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// writeAll writes a file's content (a variable: a test injects a full
// file system).
var writeAll = func(f *os.File, data []byte) error {
	_, err := f.Write(data)
	return err
}

// WriteJSON writes v as indented JSON to path (atomically, redacted).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: encode: %w", path, err)
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// ReadRun loads a run.json a user names, as the loaders do (readRecordFile,
// decodeRun): a regular file of bounded size, checked before it is opened
// (a FIFO, a device, a directory or a link is refused, never read), holding
// a run record of this schema.
func ReadRun(path string) (Record, error) {
	b, err := readRecordFile(path)
	if err != nil {
		return Record{}, err
	}
	return decodeRun(path, b)
}

// RunFile is a file a run writes beside its run.json (a stall's thread
// dumps and client state).
type RunFile struct {
	Name string // a plain file name
	Data []byte
}

// WriteRunDir writes a run's folder: the histograms (.hgrm), the time series
// (timeseries.csv) and run.json, which lists the other files. The folder is
// created here and must not exist: two runs never share one.
func WriteRunDir(dir string, rec *Record, m results.Merged, series *results.Series, extra ...RunFile) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return noSpace(err, filepath.Dir(dir), filepath.Dir(dir), 0, true)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("run folder %s exists already: not overwriting another run", dir)
		}
		return noSpace(err, dir, filepath.Dir(dir), 0, true)
	}
	err := writeRunFiles(dir, rec, m, series, extra)
	if IsNoSpace(err) {
		// The folder has no run.json and never will: a resume would rerun
		// the run anyway. Removing it gives its space back, so that
		// campaign.json can still record how the campaign ended.
		_ = os.RemoveAll(dir)
	}
	return err
}

// writeRunFiles writes the files of WriteRunDir into the folder dir.
func writeRunFiles(dir string, rec *Record, m results.Merged, series *results.Series, extra []RunFile) error {
	files, err := writeHistograms(dir, m)
	if err != nil {
		return err
	}
	var csv bytes.Buffer
	if err := series.WriteCSV(&csv); err != nil {
		return fmt.Errorf("timeseries.csv: %w", err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "timeseries.csv"), csv.Bytes()); err != nil {
		return err
	}
	files = append(files, "timeseries.csv")
	for _, f := range extra {
		if f.Name == "" || filepath.Base(f.Name) != f.Name || f.Name == "run.json" {
			return fmt.Errorf("run folder %s: file name %q: expected a plain file name other than run.json", dir, f.Name)
		}
		if err := WriteFileAtomic(filepath.Join(dir, f.Name), f.Data); err != nil {
			return err
		}
		files = append(files, f.Name)
	}
	rec.Files = files
	return WriteJSON(filepath.Join(dir, "run.json"), rec)
}

// writeHistograms writes the .hgrm percentile tables and the .hlog
// interval logs and returns their names.
func writeHistograms(dir string, m results.Merged) ([]string, error) {
	hists := []struct {
		name string
		h    *hdrhistogram.Histogram
	}{
		{"completion", m.Completion}, {"delivery", m.Delivery}, {"publish", m.Publish},
		{"schedule-lag", m.ScheduleLag}, {"queue", m.Queue}, {"hold", m.Hold},
	}
	var files []string
	for _, h := range hists {
		if h.h.TotalCount() == 0 {
			continue
		}
		text, err := results.PercentileText(h.h)
		if err != nil {
			return nil, fmt.Errorf("%s histogram: %w", h.name, err)
		}
		name := h.name + ".hgrm"
		if err := WriteFileAtomic(filepath.Join(dir, name), text); err != nil {
			return nil, err
		}
		files = append(files, name)
	}
	if m.IntervalLogErr != nil {
		return nil, m.IntervalLogErr
	}
	for _, name := range []string{"completion.hlog", "publish.hlog"} {
		if b, ok := m.IntervalLogs[name]; ok {
			if err := WriteFileAtomic(filepath.Join(dir, name), b); err != nil {
				return nil, err
			}
			files = append(files, name)
		}
	}
	return files, nil
}

// ResumedNote is the line every report of a resumed campaign carries, e.g.
// "resumed once (2026-12-06T16:10:02Z, after status running): kept 2 run(s),
// reran r03-share-m1, ran 1 not started", or "" when it ran in one go.
func (c Campaign) ResumedNote() string {
	if len(c.Resumed) == 0 {
		return ""
	}
	parts := make([]string, 0, len(c.Resumed))
	for _, r := range c.Resumed {
		s := fmt.Sprintf("%s, after status %s: kept %d run(s)", r.At, r.PreviousStatus, len(r.Kept))
		if len(r.Rerun) > 0 {
			ids := make([]string, len(r.Rerun))
			for i, x := range r.Rerun {
				ids[i] = x.Run
			}
			s += ", reran " + strings.Join(ids, ", ")
		}
		if len(r.NotStarted) > 0 {
			s += fmt.Sprintf(", ran %d not started", len(r.NotStarted))
		}
		if len(r.Differences) > 0 {
			s += fmt.Sprintf("; %d difference(s) from the record accepted (--resume-anyway): %s", len(r.Differences), strings.Join(r.Differences, "; "))
		}
		parts = append(parts, s)
	}
	times := "once"
	if len(parts) > 1 {
		times = fmt.Sprintf("%d times", len(parts))
	}
	return fmt.Sprintf("Campaign resumed %s (%s)", times, strings.Join(parts, "); ("))
}
