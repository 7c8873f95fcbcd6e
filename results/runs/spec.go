package runs

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

// knob reads one scenario key of a run spec, formatted as a scenario file
// writes it ("share", "20", "0.5", "10ms"). omitEmpty knobs are absent from
// a spec's values when zero, as they are from run.json.
type knob struct {
	key       string
	value     func(scenarios.RunSpec) string
	omitEmpty bool
}

func itoa(v int) string           { return strconv.Itoa(v) }
func ftoa(v float64) string       { return strconv.FormatFloat(v, 'f', -1, 64) }
func dtoa(v time.Duration) string { return v.String() }

// knobs are the scalar scenario keys of a run spec; processing.<param> and
// broker_config.<setting> are read by SpecValue apart.
var knobs = []knob{
	{"consumer_type", func(s scenarios.RunSpec) string { return string(s.ConsumerType) }, false},
	{"client", func(s scenarios.RunSpec) string { return string(s.Client) }, true},
	{"partitions", func(s scenarios.RunSpec) string { return itoa(s.Partitions) }, false},
	{"producers", func(s scenarios.RunSpec) string { return itoa(s.Producers) }, false},
	{"rate", func(s scenarios.RunSpec) string { return ftoa(s.Rate) }, false},
	{"message_size", func(s scenarios.RunSpec) string { return itoa(s.MessageSize) }, false},
	{"key_mode", func(s scenarios.RunSpec) string { return s.KeyMode }, false},
	{"acks", func(s scenarios.RunSpec) string { return s.Acks }, false},
	{"linger", func(s scenarios.RunSpec) string { return dtoa(s.Linger) }, false},
	{"batch_size", func(s scenarios.RunSpec) string { return itoa(s.BatchSize) }, false},
	{"members", func(s scenarios.RunSpec) string { return itoa(s.Members) }, false},
	{"workers", func(s scenarios.RunSpec) string { return itoa(s.Workers) }, false},
	{"max_poll_records", func(s scenarios.RunSpec) string { return itoa(s.MaxPollRecords) }, false},
	{"acquire_mode", func(s scenarios.RunSpec) string { return string(s.AcquireMode) }, false},
	{"ack_mode", func(s scenarios.RunSpec) string { return string(s.AckMode) }, false},
	{"renew", func(s scenarios.RunSpec) string { return string(s.Renew) }, true},
	{"style", func(s scenarios.RunSpec) string { return string(s.Style) }, true},
	{"max_in_flight", func(s scenarios.RunSpec) string { return itoa(s.MaxInFlight) }, true},
	{"transient_rate", func(s scenarios.RunSpec) string { return ftoa(s.TransientRate) }, false},
	{"poison_rate", func(s scenarios.RunSpec) string { return ftoa(s.PoisonRate) }, false},
	{"warmup", func(s scenarios.RunSpec) string { return dtoa(s.Warmup) }, false},
	{"duration", func(s scenarios.RunSpec) string { return dtoa(s.Duration) }, false},
	{"drain_timeout", func(s scenarios.RunSpec) string { return dtoa(s.DrainTimeout) }, false},
	{"load_mode", func(s scenarios.RunSpec) string { return string(s.LoadMode) }, false},
	{"backlog_records", func(s scenarios.RunSpec) string { return itoa(s.BacklogRecords) }, true},
	{"nodes", func(s scenarios.RunSpec) string { return itoa(s.Nodes) }, false},
	{"kafka_version", func(s scenarios.RunSpec) string { return s.KafkaVersion }, false},
	{"broker_heap", func(s scenarios.RunSpec) string { return s.BrokerHeap }, false},
	{"group_protocol", func(s scenarios.RunSpec) string { return string(s.GroupProtocol) }, true},
	{"remote_assignor", func(s scenarios.RunSpec) string { return s.RemoteAssignor }, true},
	{"assignor", func(s scenarios.RunSpec) string { return s.Assignor }, true},
	{"static_membership", func(s scenarios.RunSpec) string { return strconv.FormatBool(s.StaticMembership) }, true},
	{"commit", func(s scenarios.RunSpec) string { return string(s.Commit) }, true},
	{"auto_commit_interval", func(s scenarios.RunSpec) string { return dtoa(s.AutoCommitInterval) }, true},
	{"session_timeout", func(s scenarios.RunSpec) string { return dtoa(s.SessionTimeout) }, true},
	{"rebalance_timeout", func(s scenarios.RunSpec) string { return dtoa(s.RebalanceTimeout) }, true},
	{"keys", func(s scenarios.RunSpec) string { return itoa(s.Keys) }, true},
	{"hot_keys", func(s scenarios.RunSpec) string { return s.HotKeys.String() }, true},
}

// processingKnobs are the parameters of the processing-time model; all but
// model are absent from a spec's values when zero.
var processingKnobs = []knob{
	{"model", func(s scenarios.RunSpec) string { return s.Processing.Model }, false},
	{"time", func(s scenarios.RunSpec) string { return dtoa(s.Processing.Time) }, true},
	{"min", func(s scenarios.RunSpec) string { return dtoa(s.Processing.Min) }, true},
	{"max", func(s scenarios.RunSpec) string { return dtoa(s.Processing.Max) }, true},
	{"mean", func(s scenarios.RunSpec) string { return dtoa(s.Processing.Mean) }, true},
	{"median", func(s scenarios.RunSpec) string { return dtoa(s.Processing.Median) }, true},
	{"p99", func(s scenarios.RunSpec) string { return dtoa(s.Processing.P99) }, true},
}

func findKnob(list []knob, key string) (knob, bool) {
	for _, k := range list {
		if k.key == key {
			return k, true
		}
	}
	return knob{}, false
}

// SpecValue is the spec's value of a scenario key as a scenario file (and a
// where: selector) writes it: "share", "20", "10ms", "0.5";
// "processing.time" for a model parameter, "broker_config.<setting>" for a
// broker setting ("" when unset). Unknown keys give "".
func SpecValue(s scenarios.RunSpec, key string) string {
	top, sub, nested := strings.Cut(key, ".")
	switch {
	case top == "broker_config" && nested:
		return s.BrokerConfig[sub]
	case top == "group_config" && nested:
		return s.GroupConfig[sub]
	case top == "processing" && !nested:
		return s.Processing.String()
	case top == "processing":
		if k, ok := findKnob(processingKnobs, sub); ok {
			return k.value(s)
		}
		return ""
	case nested:
		return ""
	}
	if k, ok := findKnob(knobs, top); ok {
		return k.value(s)
	}
	return ""
}

// SpecValues are the spec's keys (processing.<param> and
// broker_config.<setting> for the nested ones, without the trial) with
// their values; nil without a spec.
func SpecValues(s *scenarios.RunSpec) map[string]string {
	if s == nil {
		return nil
	}
	out := map[string]string{}
	add := func(prefix string, list []knob) {
		for _, k := range list {
			v := k.value(*s)
			if k.omitEmpty && (v == "" || v == "0" || v == "0s") {
				continue
			}
			out[prefix+k.key] = v
		}
	}
	add("", knobs)
	add("processing.", processingKnobs)
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
