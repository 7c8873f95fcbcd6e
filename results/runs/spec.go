package runs

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

// SpecValue is the spec's value of a scenario key as a scenario file (and a
// where: selector) writes it: "share", "20", "10ms", "0.5";
// "processing.time" for a model parameter, "broker_config.<setting>" for a
// broker setting ("" when unset). Unknown keys give "". It is
// scenarios.RunSpec.Value: one reading of a spec for selectors, sweeps and
// recommendations.
func SpecValue(s scenarios.RunSpec, key string) string { return s.Value(key) }

// SpecValues are the spec's keys (scenarios.ValueKeys, and
// broker_config.<setting> and group_config.<setting> for the maps; not the
// trial) with their values, zero and unset values included so that a sweep
// through 0 (transient_rate: [0, 0.01]) is a dimension, except the
// processing parameters the model does not have (0s); nil without a spec.
func SpecValues(s *scenarios.RunSpec) map[string]string {
	if s == nil {
		return nil
	}
	out := map[string]string{}
	for _, k := range scenarios.ValueKeys() {
		v := s.Value(k)
		if strings.HasPrefix(k, "processing.") && v == "0s" {
			continue // a parameter the model does not have
		}
		out[k] = v
	}
	for k, v := range s.BrokerConfig {
		out["broker_config."+k] = v
	}
	for k, v := range s.GroupConfig {
		out["group_config."+k] = v
	}
	return out
}

// SweptDimensions lists the spec keys (other than consumer_type) whose
// values differ between the specs (SpecValues of each run), with each key's
// distinct values in order (numeric or duration order when all values are
// numbers or durations).
func SweptDimensions(specs []map[string]string) (keys []string, values map[string][]string) {
	values = map[string][]string{}
	seen := map[string]map[string]bool{}
	for _, s := range specs {
		for k, v := range s {
			if seen[k] == nil {
				seen[k] = map[string]bool{}
			}
			if !seen[k][v] {
				seen[k][v] = true
				values[k] = append(values[k], v)
			}
		}
	}
	for k, vs := range values {
		if k == "consumer_type" || len(vs) < 2 {
			continue
		}
		sortValues(vs)
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys, values
}

// sortValues orders knob values: numbers and durations by magnitude, other
// values (and mixtures) as strings.
func sortValues(vs []string) {
	magnitude := func(s string) (float64, bool) {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f, true
		}
		if d, err := time.ParseDuration(s); err == nil {
			return float64(d), true
		}
		return 0, false
	}
	sort.SliceStable(vs, func(i, j int) bool {
		a, oka := magnitude(vs[i])
		b, okb := magnitude(vs[j])
		if oka && okb {
			return a < b
		}
		return vs[i] < vs[j]
	})
}
