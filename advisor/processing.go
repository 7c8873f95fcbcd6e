package advisor

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

// modelParams are the parameters each processing model takes, in the order
// the syntax lists them (the same models and parameters as a scenario's
// processing map).
var modelParams = map[string][]string{
	"constant":    {"time"},
	"uniform":     {"min", "max"},
	"exponential": {"mean"},
	"lognormal":   {"median", "p99"},
}

// ProcessingSyntax describes what ParseProcessing accepts.
const ProcessingSyntax = `a mean duration like "10ms", or "constant:10ms", "uniform:min=5ms,max=15ms", ` +
	`"exponential:mean=10ms", "lognormal:median=10ms,p99=50ms"`

// ParseProcessing reads the --processing syntax: a bare Go duration is the
// mean processing time (a constant model: the advisor only uses the mean);
// otherwise MODEL:KEY=DURATION,... with exactly the model's parameters
// (constant:10ms is short for constant:time=10ms). Errors name --processing.
func ParseProcessing(s string) (scenarios.Processing, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		p := scenarios.Processing{Model: "constant", Time: d}
		return p, checkProcessing(p)
	}
	model, args, hasArgs := strings.Cut(s, ":")
	model = strings.ToLower(strings.TrimSpace(model))
	params, ok := modelParams[model]
	if !ok || !hasArgs {
		return scenarios.Processing{}, fmt.Errorf("--processing: expected %s, got %q", ProcessingSyntax, s)
	}
	p := scenarios.Processing{Model: model}
	seen := map[string]bool{}
	for _, kv := range strings.Split(args, ",") {
		key, val, hasKey := strings.Cut(kv, "=")
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		if !hasKey && len(params) == 1 {
			key, val = params[0], strings.TrimSpace(kv)
		}
		if !slices.Contains(params, key) {
			return p, fmt.Errorf("--processing: %q is not a parameter of the %s model (it takes %s), in %q",
				key, model, strings.Join(params, ", "), s)
		}
		if seen[key] {
			return p, fmt.Errorf("--processing: %s given twice in %q", key, s)
		}
		seen[key] = true
		d, err := time.ParseDuration(val)
		if err != nil {
			return p, fmt.Errorf("--processing: %s: expected a Go duration like 10ms, got %q", key, val)
		}
		*field(&p, key) = d
	}
	for _, k := range params {
		if !seen[k] {
			return p, fmt.Errorf("--processing: the %s model needs %s, missing in %q (e.g. %s)",
				model, strings.Join(params, " and "), s, example(model))
		}
	}
	return p, checkProcessing(p)
}

func field(p *scenarios.Processing, key string) *time.Duration {
	switch key {
	case "time":
		return &p.Time
	case "min":
		return &p.Min
	case "max":
		return &p.Max
	case "mean":
		return &p.Mean
	case "median":
		return &p.Median
	default: // "p99"
		return &p.P99
	}
}

func example(model string) string {
	switch model {
	case "uniform":
		return "uniform:min=5ms,max=15ms"
	case "exponential":
		return "exponential:mean=10ms"
	case "lognormal":
		return "lognormal:median=10ms,p99=50ms"
	default:
		return "constant:10ms"
	}
}

// checkProcessing checks a model's parameters (the same rules as a
// scenario's processing map) and that its mean is positive.
func checkProcessing(p scenarios.Processing) error {
	var problem string
	switch p.Model {
	case "constant":
		if p.Time <= 0 {
			problem = fmt.Sprintf("the processing time must be > 0, got %v", p.Time)
		}
	case "uniform":
		if p.Min < 0 || p.Min > p.Max || p.Max <= 0 {
			problem = fmt.Sprintf("uniform needs 0 ≤ min ≤ max and max > 0, got min %v max %v", p.Min, p.Max)
		}
	case "exponential":
		if p.Mean <= 0 {
			problem = fmt.Sprintf("exponential needs mean > 0, got %v", p.Mean)
		}
	case "lognormal":
		if p.Median <= 0 || p.P99 < p.Median {
			problem = fmt.Sprintf("lognormal needs p99 ≥ median > 0, got median %v p99 %v", p.Median, p.P99)
		}
	default:
		problem = fmt.Sprintf("expected %s, got model %q", ProcessingSyntax, p.Model)
	}
	if problem != "" {
		return fmt.Errorf("--processing: %s", problem)
	}
	return nil
}

// describe is the model as the reports print it, with its mean.
func describe(p scenarios.Processing) string {
	if p.Model == "constant" {
		return p.String()
	}
	return fmt.Sprintf("%s (mean %s ms)", p.String(), num(ms(p.Average())))
}

// num formats a number with at most 3 decimals and no trailing zeros.
func num(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Round(f*1000)/1000, 'f', -1, 64)
}
