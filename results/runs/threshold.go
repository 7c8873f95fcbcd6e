package runs

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Measure is a run figure a comparison looks at.
type Measure struct {
	Name           string
	HigherIsBetter bool
	Unit           string
	Value          func(r Record) float64
}

// Measures are the figures Compare looks at, in report order.
var Measures = []Measure{
	{"throughput", true, "records/s", func(r Record) float64 { return r.Throughput.CompletedPerSec }},
	{"completion_p50", false, "ms", func(r Record) float64 { return r.Latency.CompletionMs.P50 }},
	{"completion_p99", false, "ms", func(r Record) float64 { return r.Latency.CompletionMs.P99 }},
	{"completion_p999", false, "ms", func(r Record) float64 { return r.Latency.CompletionMs.P999 }},
	{"delivery_p99", false, "ms", func(r Record) float64 { return r.Latency.DeliveryMs.P99 }},
	{"publish_p99", false, "ms", func(r Record) float64 { return r.Latency.PublishMs.P99 }},
	{"efficiency", true, "", func(r Record) float64 { return r.Ceiling.Efficiency }},
}

// MeasureNames lists the names Measures accept.
func MeasureNames() []string {
	names := make([]string, len(Measures))
	for i, m := range Measures {
		names[i] = m.Name
	}
	return names
}

func measureByName(name string) (Measure, bool) {
	for _, m := range Measures {
		if m.Name == name {
			return m, true
		}
	}
	return Measure{}, false
}

// Thresholds map a measure name to the relative change, in percent, that
// fails a comparison: negative fails when the candidate falls below
// baseline×(1+t/100), positive when it rises above it.
type Thresholds map[string]float64

// ParseThreshold reads "measure:±N%", e.g. "throughput:-5%" or
// "completion_p99:+10%". Without a sign the direction is the measure's bad
// one: down for throughput and efficiency, up for latencies.
func ParseThreshold(s string) (string, float64, error) {
	name, val, ok := strings.Cut(strings.TrimSpace(s), ":")
	name, val = strings.TrimSpace(name), strings.TrimSpace(val)
	m, known := measureByName(name)
	if !ok || !known {
		return "", 0, fmt.Errorf("threshold %q: expected MEASURE:±N%% with MEASURE one of %s", s, strings.Join(MeasureNames(), ", "))
	}
	num, pct := strings.CutSuffix(val, "%")
	pctVal, err := strconv.ParseFloat(num, 64)
	if !pct || err != nil || pctVal == 0 {
		return "", 0, fmt.Errorf("threshold %q: expected a non-zero percentage such as -5%% or +10%%, got %q", s, val)
	}
	if !strings.ContainsAny(num[:1], "+-") && m.HigherIsBetter {
		pctVal = -pctVal
	}
	return name, pctVal, nil
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

// ReadThresholds reads a thresholds file: one MEASURE:±N% a line; blank
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
			return fmt.Errorf("%s:%d: %w", path, n, err)
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
