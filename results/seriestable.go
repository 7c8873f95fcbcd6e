package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
)

// SeriesTable is a timeseries.csv read back: one row per second. Cells are
// float64: the counters are whole numbers, the gauges may have decimals, and
// an empty cell (a gauge with no reading in that second) is NaN.
type SeriesTable struct {
	Columns []string
	Rows    [][]float64
}

// Has reports whether the file has the named column (files written before
// the gauge columns existed do not).
func (t SeriesTable) Has(name string) bool { return slices.Contains(t.Columns, name) }

// Column returns the values of the named column, or nil.
func (t SeriesTable) Column(name string) []float64 {
	i := slices.Index(t.Columns, name)
	if i < 0 {
		return nil
	}
	out := make([]float64, len(t.Rows))
	for r, row := range t.Rows {
		out[r] = row[i]
	}
	return out
}

// Known reports whether the named column exists and has at least one reading.
func (t SeriesTable) Known(name string) bool {
	for _, v := range t.Column(name) {
		if !math.IsNaN(v) {
			return true
		}
	}
	return false
}

// ReadSeriesCSV reads a timeseries.csv written by Series.WriteCSV, with or
// without the gauge columns (lag, broker_cpu_percent, ...) that follow
// in_flight.
func ReadSeriesCSV(path string) (SeriesTable, error) {
	var t SeriesTable
	f, err := os.Open(path)
	if err != nil {
		return t, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	if t.Columns, err = r.Read(); err != nil {
		return t, fmt.Errorf("%s: header: %w", path, err)
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return t, nil
		}
		if err != nil {
			return t, fmt.Errorf("%s: %w", path, err)
		}
		row := make([]float64, len(rec))
		for i, s := range rec {
			if s == "" {
				row[i] = math.NaN()
				continue
			}
			if row[i], err = strconv.ParseFloat(s, 64); err != nil {
				return t, fmt.Errorf("%s:%d: column %s: expected a number, got %q", path, line, t.Columns[i], s)
			}
		}
		t.Rows = append(t.Rows, row)
	}
}
