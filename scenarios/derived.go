// What a run derives from its spec: the processing model's mean and
// description, the effective Kafka share settings, the cluster key, a
// scenario key's value, the matrix coordinates and the run name.

package scenarios

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// z99 is the standard normal quantile at 0.99: a lognormal's p99 is
// median·exp(σ·z99), so σ = ln(p99/median)/z99.
const z99 = 2.3263478740408408

// ProcessingMean is the mean per-record processing time of the run's model:
// constant time; uniform (min+max)/2; exponential mean; lognormal
// median·exp(σ²/2) with σ = ln(p99/median)/2.326348; none 0.
func (r RunSpec) ProcessingMean() time.Duration {
	return r.Processing.Average()
}

// Average is the mean of the processing-time model (see
// RunSpec.ProcessingMean; Mean is the exponential model's parameter).
func (p Processing) Average() time.Duration {
	switch p.Model {
	case "constant":
		return p.Time
	case "uniform":
		return (p.Min + p.Max) / 2
	case "exponential":
		return p.Mean
	case "lognormal":
		if p.Median <= 0 || p.P99 < p.Median {
			return 0
		}
		sigma := math.Log(float64(p.P99)/float64(p.Median)) / z99
		return time.Duration(math.Round(float64(p.Median) * math.Exp(sigma*sigma/2)))
	}
	return 0
}

// String describes the model: "constant 10ms", "uniform 5ms-15ms",
// "exponential mean 10ms", "lognormal median 10ms p99 50ms", "none".
func (p Processing) String() string {
	switch p.Model {
	case "constant":
		return fmt.Sprintf("constant %v", p.Time)
	case "uniform":
		return fmt.Sprintf("uniform %v-%v", p.Min, p.Max)
	case "exponential":
		return fmt.Sprintf("exponential mean %v", p.Mean)
	case "lognormal":
		return fmt.Sprintf("lognormal median %v p99 %v", p.Median, p.P99)
	}
	return p.Model
}

// RecordLocks is group.share.partition.max.record.locks: the in-flight
// (Acquired) record cap per share-partition; Kafka 4.2's default is 2000.
func (r RunSpec) RecordLocks() int { return r.effectiveInt(GroupKeyRecordLocks, KeyRecordLocks) }

// DeliveryCountLimit is group.share.delivery.count.limit: deliveries before a
// record is archived; default 5.
func (r RunSpec) DeliveryCountLimit() int {
	return r.effectiveInt(GroupKeyDeliveryCountLimit, KeyDeliveryCountLimit)
}

// RecordLockDuration is group.share.record.lock.duration.ms: how long an
// acquired record stays locked to a member; default 30s.
func (r RunSpec) RecordLockDuration() time.Duration {
	return time.Duration(r.effectiveInt(GroupKeyRecordLockDuration, KeyRecordLockDuration)) * time.Millisecond
}

// DefaultFetchMaxWait is fetch_max_wait's default, for both clients:
// Kafka's fetch.max.wait.ms (the Java client's, librdkafka's and franz-go's
// share-group default), not franz-go's consumer-group 5s.
const DefaultFetchMaxWait = 500 * time.Millisecond

// EffectiveFetchMaxWait is the fetch.max.wait every member client of the
// run is given: fetch_max_wait, or DefaultFetchMaxWait when unset (a spec
// built in code).
func (r RunSpec) EffectiveFetchMaxWait() time.Duration {
	if r.FetchMaxWait > 0 {
		return r.FetchMaxWait
	}
	return DefaultFetchMaxWait
}

// ShareGroupMaxSize is group.share.max.size: members per share group;
// default 200.
func (r RunSpec) ShareGroupMaxSize() int { return r.brokerInt(KeyShareGroupMaxSize) }

// ShareHeartbeatInterval is group.share.heartbeat.interval.ms: how often a
// share member heartbeats, so how late it may learn a new assignment;
// default 5s.
func (r RunSpec) ShareHeartbeatInterval() time.Duration {
	return time.Duration(r.effectiveInt(GroupKeyHeartbeat, KeyShareHeartbeat)) * time.Millisecond
}

// Summary is a short human description: "share m12 w1 mpr20".
func (r RunSpec) Summary() string {
	return fmt.Sprintf("%s m%d w%d mpr%d", r.ConsumerType, r.Members, r.Workers, r.MaxPollRecords)
}

// ClusterKey identifies the cluster a run needs (nodes, Kafka version, heap,
// broker settings); runs with equal keys can share one provisioned cluster.
func (r RunSpec) ClusterKey() string {
	var b strings.Builder
	fmt.Fprintf(&b, "nodes=%d kafka=%s heap=%s", r.Nodes, r.KafkaVersion, r.BrokerHeap)
	for _, k := range sortedKeys(r.BrokerConfig) {
		fmt.Fprintf(&b, " %s=%s", k, r.BrokerConfig[k])
	}
	return b.String()
}

// Value is the run's value of a scenario key, formatted as in a scenario
// file: "share", "20", "10ms", "0.5", "constant 10ms" for "processing",
// "10ms" for "processing.time", the setting for "broker_config.<setting>"
// ("" when unset). Unknown keys give "".
func (r RunSpec) Value(key string) string {
	top, sub, nested := strings.Cut(key, ".")
	switch {
	case top == "broker_config" && nested:
		return r.BrokerConfig[sub]
	case top == "group_config" && nested:
		return r.GroupConfig[sub]
	case top == "processing" && !nested:
		return r.Processing.String()
	case top == "processing":
		return fieldByTag(reflect.ValueOf(r.Processing), sub)
	case top == "hot_keys" && !nested:
		return r.HotKeys.String()
	case top == "hot_keys":
		return fieldByTag(reflect.ValueOf(r.HotKeys), sub)
	case nested:
		return ""
	}
	return fieldByTag(reflect.ValueOf(r), top)
}

// fieldByTag formats the struct field whose mapstructure tag is key,
// looking into the embedded groups of fields (RunSpec's Producer, Fleet, ...).
func fieldByTag(v reflect.Value, key string) string {
	fv, ok := fieldValueByTag(v, key)
	if !ok {
		return ""
	}
	return formatField(fv)
}

// fieldValueByTag finds the field whose mapstructure tag is key, in v or in
// a struct embedded in it (mapstructure:",squash").
func fieldValueByTag(v reflect.Value, key string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if fv, ok := fieldValueByTag(v.Field(i), key); ok {
				return fv, true
			}
			continue
		}
		if f.Tag.Get("mapstructure") == key {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// formatField writes a knob's value as a scenario file does.
func formatField(fv reflect.Value) string {
	if fv.Kind() == reflect.String { // string and the typed values (vocab.GroupType, LoadMode, ...)
		return fv.String()
	}
	switch f := fv.Interface().(type) {
	case time.Duration:
		return f.String()
	case float64:
		return strconv.FormatFloat(f, 'f', -1, 64)
	case int, bool:
		return fmt.Sprint(f)
	}
	return ""
}

// Coordinate is one dimension's value in one run.
type Coordinate struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// RunCoordinates are run i's values of the scenario's Dimensions, in order:
// what distinguishes it from the other runs of the matrix (sweep charts plot
// them; the trial is RunSpec.Trial).
func (s *Scenario) RunCoordinates(i int) []Coordinate {
	out := make([]Coordinate, 0, len(s.Dimensions))
	for _, d := range s.Dimensions {
		out = append(out, Coordinate{d, s.Runs[i].Value(d)})
	}
	return out
}

// RunName is a short, stable, file-system-safe id for run i:
// "r01-share-mpr20", numbered from 1 in matrix order, then the run's Label
// when it has one, then the consumer type, then each other dimension's value
// with a short prefix, then "-t<trial>" when repeat > 1, e.g.
// "r07-consumer-mpr100-t1", "r03-cap-share-m8".
func (s *Scenario) RunName(i int) string {
	r := s.Runs[i]
	width := max(2, len(strconv.Itoa(len(s.Runs))))
	parts := []string{fmt.Sprintf("r%0*d", width, i+1)}
	if r.Label != "" {
		parts = append(parts, r.Label)
	}
	parts = append(parts, string(r.ConsumerType))
	for _, d := range s.Dimensions {
		if d != "consumer_type" {
			parts = append(parts, shortKey(d)+r.Value(d))
		}
	}
	if s.Repeat > 1 {
		parts = append(parts, fmt.Sprintf("t%d", r.Trial))
	}
	return fsSafe(strings.Join(parts, "-"))
}

// shortKey is the run-name prefix of a dimension key.
func shortKey(key string) string {
	top, sub, nested := strings.Cut(key, ".")
	switch {
	case top == "processing" && nested:
		return processingShort[sub]
	case top == "group_config":
		return groupShort(sub)
	case top == "broker_config":
		if s, ok := brokerShort[sub]; ok {
			return s
		}
		return strings.ReplaceAll(strings.TrimPrefix(sub, "group.share."), ".", "_") + "-"
	}
	k, _ := knobByKey(top)
	return k.short
}

var brokerShort = map[string]string{
	KeyRecordLocks:        "locks",
	KeyDeliveryCountLimit: "dcl",
	KeyRecordLockDuration: "lockms",
	KeyShareGroupMaxSize:  "maxsize",
}

// fsSafe keeps letters, digits, '.', '_' and '-', writes µ as u and turns
// anything else into '_', and caps the length.
func fsSafe(s string) string {
	s = strings.ReplaceAll(s, "µ", "u")
	b := []byte(s)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			b[i] = '_'
		}
	}
	const maxLen = 120
	if len(b) > maxLen {
		b = b[:maxLen]
	}
	return string(b)
}

// ValueKeys lists the keys Value reads one knob's value from: RunSpec's
// scalar fields (those of its embedded groups included), hot_keys, and
// processing.<param> (not "processing" as a whole). The list is read off
// the struct tags, so a field added to RunSpec is a key here with no other
// edit; broker_config and group_config settings are maps, listed per run by
// their own keys.
func ValueKeys() []string {
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := range t.NumField() {
			f := t.Field(i)
			key := f.Tag.Get("mapstructure")
			switch {
			case f.Anonymous && f.Type.Kind() == reflect.Struct:
				walk(f.Type, prefix)
				continue
			case key == "" || key == "-":
				continue
			case f.Type == reflect.TypeOf(Processing{}): // its parameters, not the model as a whole
				walk(f.Type, key+".")
				continue
			}
			switch f.Type.Kind() {
			case reflect.Map, reflect.Slice, reflect.Pointer:
				continue
			case reflect.Struct:
				if f.Type != reflect.TypeOf(HotKeys{}) {
					continue
				}
			}
			out = append(out, prefix+key)
		}
	}
	walk(reflect.TypeOf(RunSpec{}), "")
	return out
}
