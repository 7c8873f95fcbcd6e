package runs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Campaign is campaign.json: what was asked, where it ran, which runs it made.
type Campaign struct {
	SchemaVersion int                 `json:"schema_version"`
	Name          string              `json:"name"`
	StartedAt     string              `json:"started_at"`
	FinishedAt    string              `json:"finished_at,omitempty"`
	Scenario      *scenarios.Scenario `json:"scenario"`    // the resolved scenario with its matrix
	Environment   []Environment       `json:"environment"` // one per cluster the campaign started
	Runs          []string            `json:"runs"`        // run ids, in execution order
	// Expectations are the scenario's expect: claims, checked after the runs.
	Expectations []ExpectationOutcome `json:"expectations,omitempty"`
	// Recommendations answer the scenario's recommend: query (the best
	// value of a knob under constraints), computed after the runs.
	Recommendations []Recommendation `json:"recommendations,omitempty"`
}

// WriteJSON writes v as indented JSON to path.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: encode: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// ReadRun loads a run.json.
func ReadRun(path string) (Record, error) {
	var r Record
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// WriteRunDir writes a run's folder: the histograms (.hgrm), the time series
// (timeseries.csv) and run.json, which lists the other files.
func WriteRunDir(dir string, rec *Record, m results.Merged, series *results.Series) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	hists := []struct {
		name string
		h    *hdrhistogram.Histogram
	}{
		{"completion", m.Completion}, {"delivery", m.Delivery}, {"publish", m.Publish},
		{"schedule-lag", m.ScheduleLag}, {"queue", m.Queue}, {"hold", m.Hold},
	}
	rec.Files = nil
	for _, h := range hists {
		if h.h.TotalCount() == 0 {
			continue
		}
		text, err := results.PercentileText(h.h)
		if err != nil {
			return fmt.Errorf("%s histogram: %w", h.name, err)
		}
		name := h.name + ".hgrm"
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			return err
		}
		rec.Files = append(rec.Files, name)
	}
	if m.IntervalLogErr != nil {
		return m.IntervalLogErr
	}
	for _, name := range []string{"completion.hlog", "publish.hlog"} {
		if b, ok := m.IntervalLogs[name]; ok {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				return err
			}
			rec.Files = append(rec.Files, name)
		}
	}
	f, err := os.Create(filepath.Join(dir, "timeseries.csv"))
	if err != nil {
		return err
	}
	if err := series.WriteCSV(f); err != nil {
		f.Close()
		return fmt.Errorf("timeseries.csv: %w", err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	rec.Files = append(rec.Files, "timeseries.csv")
	return WriteJSON(filepath.Join(dir, "run.json"), rec)
}
