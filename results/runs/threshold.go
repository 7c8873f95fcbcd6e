package runs

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Measure is a run figure a comparison looks at: a registered figure with
// a threshold name (Figure.Threshold), which is its Name here.
type Measure struct {
	Name           string
	HigherIsBetter bool
	Unit           string
	Value          func(r Record) float64 // 0 when the run lacks the figure
}

// Measures are the figures Compare looks at, in registry order.
func Measures() []Measure {
	var out []Measure
	for _, f := range Figures() {
		if f.Threshold == "" {
			continue
		}
		value := f.Value
		out = append(out, Measure{Name: f.Threshold, HigherIsBetter: f.Better == HigherIsBetter, Unit: f.Unit,
			Value: func(r Record) float64 { v, _ := value(&r); return v }})
	}
	return out
}

// MeasureNames lists the threshold names of the measures.
func MeasureNames() []string {
	ms := Measures()
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return names
}

// measureByName finds a measure by any name of its figure: the threshold
// name, the run.json path, the runs.csv column (LookupFigure).
func measureByName(name string) (Measure, bool) {
	f, err := LookupFigure(name)
	if err != nil || f.Threshold == "" {
		return Measure{}, false
	}
	for _, m := range Measures() {
		if m.Name == f.Threshold {
			return m, true
		}
	}
	return Measure{}, false
}

// Thresholds map a measure name to the relative change, in percent, that
// fails a comparison: negative fails when the candidate falls below
// baseline×(1+t/100), positive when it rises above it. The sign is always
// the measure's bad direction (ParseThreshold refuses the other one).
type Thresholds map[string]float64

// thresholdForm is the expected form of a threshold on m, for errors.
func thresholdForm(m Measure) string {
	if m.HigherIsBetter {
		return fmt.Sprintf("%s:N%% with N the tolerated drop in percent, 0 < N < 100 (e.g. %s:5%%; -5%% means the same)", m.Name, m.Name)
	}
	return fmt.Sprintf("%s:N%% with N the tolerated rise in percent, N > 0 (e.g. %s:10%%; +10%% means the same)", m.Name, m.Name)
}

// ParseThreshold reads "MEASURE:N%": N is the tolerated worsening of the
// measure in percent: a drop for throughput and efficiency (0 < N < 100: a
// drop of 100 % or more cannot happen), a rise for the latencies (N > 0).
// An optional sign must be the bad direction ("throughput:-5%",
// "completion_p99:+10%"); the other sign, zero, NaN, ±Inf and numbers out
// of range are refused with the expected form.
func ParseThreshold(s string) (string, float64, error) {
	name, val, ok := strings.Cut(strings.TrimSpace(s), ":")
	name, val = strings.TrimSpace(name), strings.TrimSpace(val)
	m, known := measureByName(name)
	if !ok || !known {
		why := ""
		if f, err := LookupFigure(name); ok && err == nil {
			why = fmt.Sprintf(" (%s is a figure but not one compare measures)", f.Path)
		}
		return "", 0, fmt.Errorf("threshold %q: expected MEASURE:N%% (N the tolerated worsening in percent) with MEASURE one of %s%s", s, strings.Join(MeasureNames(), ", "), why)
	}
	name = m.Name // the threshold name, whichever name was written
	bad := func(why string) (string, float64, error) {
		return "", 0, fmt.Errorf("threshold %q: %s: expected %s", s, why, thresholdForm(m))
	}
	num, pct := strings.CutSuffix(val, "%")
	num = strings.TrimSpace(num)
	if !pct || num == "" {
		return bad(fmt.Sprintf("%q is not a percentage", val))
	}
	v, err := strconv.ParseFloat(num, 64)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return bad(fmt.Sprintf("%s is not a finite number", num))
	case err != nil:
		return bad(fmt.Sprintf("%q is not a number", num))
	case v == 0:
		return bad("0% would fail on any change")
	}
	sign := num[0]
	if m.HigherIsBetter {
		if sign == '+' {
			return bad(fmt.Sprintf("a %s rise is an improvement, never a regression", m.Name))
		}
		if math.Abs(v) >= 100 {
			return bad(fmt.Sprintf("a drop of %g%% cannot happen (%s cannot fall below 0)", math.Abs(v), m.Name))
		}
		return name, -math.Abs(v), nil
	}
	if sign == '-' {
		return bad(fmt.Sprintf("a %s fall is an improvement, never a regression", m.Name))
	}
	return name, v, nil
}

// Add parses and sets one threshold.
func (t Thresholds) Add(s string) error {
	name, v, err := ParseThreshold(s)
	if err != nil {
		return err
	}
	t[name] = v
	return nil
}

// ReadThresholds reads a thresholds file: one MEASURE:N% a line; blank
// lines and lines starting with # are ignored.
func ReadThresholds(path string, into Thresholds) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--thresholds: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := into.Add(line); err != nil {
			return fmt.Errorf("--thresholds %s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// String renders the thresholds in flag syntax, sorted by measure.
func (t Thresholds) String() string {
	var parts []string
	for k, v := range t {
		parts = append(parts, fmt.Sprintf("%s:%+g%%", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
