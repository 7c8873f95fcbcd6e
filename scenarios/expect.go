package scenarios

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Expectation is one item of a scenario's expect: list, a claim the report
// checks after the campaign and marks met or not met with the measured
// values. Exactly one of Measure and Ratio is set.
//
//	expect:
//	  - name: share group keeps up where partitions cap the consumer group
//	    ratio: {measure: completed_per_sec, numerator: share, denominator: consumer, min: 2.0}
//	  - name: consumer group reaches its worker ceiling
//	    measure: {runs: consumer, field: efficiency, min: 0.9, max: 1.05}
//	  - name: no record lost
//	    measure: {runs: all, field: audit.lost, max: 0}
type Expectation struct {
	Name    string        `json:"name"`
	Measure *MeasureClaim `json:"measure,omitempty"`
	Ratio   *RatioClaim   `json:"ratio,omitempty"`
}

// RunSelector picks runs: Runs is the consumer type ("consumer", "share" or
// "all", the default); Where narrows by other scenario keys, the values
// written as RunSpec.Value formats them ({max_poll_records: "1000"},
// {processing.time: "10ms"}, {broker_config.group.share.max.size: "500"}).
type RunSelector struct {
	Runs  string            `json:"runs"`
	Where map[string]string `json:"where,omitempty"`
}

// Bounds are inclusive; at least one is set.
type Bounds struct {
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
}

// MeasureClaim bounds Field in every selected run:
// {runs: consumer, where: {...}, field: ceiling.efficiency, min: 0.9, max: 1.05}.
type MeasureClaim struct {
	RunSelector
	Field string `json:"field"`
	Bounds
}

// RatioClaim bounds Field(numerator run) / Field(denominator run) over pairs
// of runs whose settings are equal apart from what the two sides select by:
// {measure: completed_per_sec, numerator: share, denominator: consumer, min: 2}.
// A side is a consumer type or a selector map {runs: share, where: {members: 8}};
// a where: beside numerator and denominator applies to both sides.
type RatioClaim struct {
	Field       string      `json:"measure"`
	Numerator   RunSelector `json:"numerator"`
	Denominator RunSelector `json:"denominator"`
	Bounds
}

// ExpectFields is the vocabulary of expectation fields: dotted paths into
// run.json (see the README's measurement definitions), plus
// audit.archived_ratio (archived ÷ produced, computed). A field may also be
// written by its last part when that is unique (efficiency,
// completed_per_sec, lost, empty_ratio).
func ExpectFields() []string {
	var out []string
	for _, g := range expectFieldGroups {
		for _, leaf := range g.leaves {
			out = append(out, g.prefix+leaf)
		}
	}
	return out
}

// orderLeaves are the figures of audit.order (per key) and
// audit.order.partition.
var orderLeaves = []string{"checked", "violations", "streams", "affected", "affected_share",
	"max_displacement_records", "max_displacement_ms"}

var percentileLeaves = []string{"p50", "p90", "p99", "p999", "p9999", "max", "mean"}

var expectFieldGroups = []struct {
	prefix string
	leaves []string
}{
	{"throughput.", []string{"offered_per_sec", "produced_per_sec", "completed_per_sec", "completed_ratio"}},
	{"latency.completion_ms.", percentileLeaves},
	{"latency.delivery_ms.", percentileLeaves},
	{"latency.publish_ms.", percentileLeaves},
	{"latency.schedule_lag_ms.", percentileLeaves},
	{"latency.queue_ms.", percentileLeaves},
	{"latency.hold_ms.", percentileLeaves},
	{"latency.buffered_ms.", percentileLeaves},
	{"polls.", []string{"count", "empty", "empty_ratio"}},
	{"polls.records_per_poll.", percentileLeaves},
	{"polls.records_per_acquisition.", percentileLeaves},
	{"polls.records_per_response.", percentileLeaves},
	{"outcomes.", []string{"delivered", "completed", "redelivered", "released", "rejected", "retried_in_place",
		"lock_expired_completions", "renewals", "ack_errors", "poll_errors", "produce_failed"}},
	{"audit.", []string{"produced", "completed_once", "duplicates", "duplicate_completions", "archived",
		"in_flight", "lost", "undelivered", "unacknowledged", "foreign", "balanced", "archived_ratio",
		"dead_letter_records", "dead_lettered", "dead_letter_missing", "dead_letter_duplicates", "dead_letter_unmatched"}},
	{"audit.order.", orderLeaves},
	{"audit.order.partition.", orderLeaves},
	{"group.", []string{"fallback"}},
	{"ceiling.", []string{"records_per_sec", "producer_rate", "workers", "locks", "lock_holders", "records_per_acquisition",
		"active_members", "efficiency"}},
	{"phases.", []string{"group_ready_s", "group_formation_s", "formation_rebalances", "warmup_s", "measure_s", "drain_s", "drain_timed_out"}},
	{"burst.", []string{"records", "end_to_end_s", "predicted_s", "consume_ceiling"}},
	{"resources.", []string{"host_percent", "harness_percent", "broker_percent"}},
	{"lag.", []string{"max", "at_window_end"}},
	{"broker.", []string{"acquisition_lock_timeouts_total", "cpu_percent_avg", "cpu_seconds_per_million_records",
		"heap_after_gc_max_bytes", "gc_time_percent", "share_coordinator_write_rate_avg", "in_flight_messages_max"}},
	{"max_rate.", []string{"found_rate"}},
	{"event_summary.", []string{"events", "first_record_max_s", "joined_without_records", "rebalance_pauses",
		"rebalance_pause_total_s", "rebalance_pause_max_s", "rebalance_partitions", "rebalance_peak_paused", "group_stop_s",
		"redeliveries", "dip_max_percent", "recovery_max_s", "idle_gap_max_s",
		"after_per_sec", "held_by_crashed", "first_redelivery_max_s", "redeliveries_beyond_held"}},
}

// resolveField turns a field as written into its full dotted path.
func resolveField(f string) (string, error) {
	all := ExpectFields()
	if slices.Contains(all, f) {
		return f, nil
	}
	var matches []string
	for _, full := range all {
		if strings.HasSuffix(full, "."+f) {
			matches = append(matches, full)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", fmt.Errorf("unknown field %q%s", f, suggestField(f, all))
	}
	return "", fmt.Errorf("field %q is ambiguous: write one of %s", f, strings.Join(matches, ", "))
}

// suggestField is suggest for fields, without listing the whole vocabulary.
func suggestField(f string, all []string) string {
	s := suggest(f, all)
	if strings.HasPrefix(s, " (valid keys:") {
		return " (expected a run.json path like throughput.completed_per_sec, latency.completion_ms.p99, " +
			"ceiling.efficiency, audit.lost, outcomes.redelivered or polls.empty_ratio; see scenarios.ExpectFields)"
	}
	return s
}

// whereKey checks a where: key and normalizes its value to RunSpec.Value's
// format.
func whereValue(key string, v any) (string, error) {
	top, sub, nested := strings.Cut(key, ".")
	k, ok := knobByKey(top)
	switch {
	case !ok:
		return "", fmt.Errorf("unknown key %q%s", key, suggest(key, whereKeys()))
	case isSettingsMap(top) && nested && sub != "":
		return formatScalar(v), nil
	case top == "processing" && nested && slices.Contains(processingKeys[1:], sub):
		k.kind = kindDuration
	case top == "processing" && sub == "model":
		k.kind = kindString
	case nested || isSettingsMap(top):
		return "", fmt.Errorf("unknown key %q%s", key, suggest(key, whereKeys()))
	}
	c, err := scalar(k.kind, v)
	if err != nil {
		return "", fmt.Errorf("%s: %w", key, err)
	}
	switch k.kind {
	case kindDuration:
		d, _ := time.ParseDuration(c.(string))
		return d.String(), nil
	case kindSize:
		if s, ok := c.(string); ok {
			n, _ := parseSize(s)
			return strconv.Itoa(n), nil
		}
	}
	return formatScalar(c), nil
}

func whereKeys() []string {
	var keys []string
	for _, k := range knobs {
		if k.kind != kindBrokerConfig && k.kind != kindGroupConfig && k.kind != kindProcessing {
			keys = append(keys, k.key)
		}
	}
	for _, p := range processingKeys {
		keys = append(keys, "processing."+p)
	}
	return append(keys, "broker_config.<kafka broker setting>", "group_config.<share group setting>")
}

// selects reports whether the run is one the selector picks.
func (s RunSelector) selects(r RunSpec) bool {
	if s.Runs != "all" && s.Runs != "" && r.ConsumerType != s.Runs {
		return false
	}
	for k, want := range s.Where {
		if r.Value(k) != want {
			return false
		}
	}
	return true
}

// String is "share" or "share where max_poll_records=200".
func (s RunSelector) String() string {
	if len(s.Where) == 0 {
		return s.Runs
	}
	keys := make([]string, 0, len(s.Where))
	for k := range s.Where {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + s.Where[k]
	}
	return s.Runs + " where " + strings.Join(keys, ", ")
}

// unmatched lists the selectors of the expectations that pick no run of
// the scenario, as "expect[2] (name): numerator share where members=3".
func (s *Scenario) unmatched() []string {
	var out []string
	for i, e := range s.Expectations {
		for _, side := range e.selectors() {
			if !slices.ContainsFunc(s.Runs, side.sel.selects) {
				out = append(out, fmt.Sprintf("expect[%d] (%s): %s %s matches no run of the scenario",
					i+1, e.Name, side.role, side.sel))
			}
		}
	}
	return out
}

type roleSelector struct {
	role string
	sel  RunSelector
}

func (e Expectation) selectors() []roleSelector {
	if e.Ratio != nil {
		return []roleSelector{{"ratio.numerator", e.Ratio.Numerator}, {"ratio.denominator", e.Ratio.Denominator}}
	}
	if e.Measure != nil {
		return []roleSelector{{"measure.runs", e.Measure.RunSelector}}
	}
	return nil
}
