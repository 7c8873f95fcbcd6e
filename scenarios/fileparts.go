package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The pieces of the scenario file checker that other YAML files of the
// harness read the same way (a proof-of-concept profile, package poc): one
// document only, aliases followed, numbers in decimal, finite numbers,
// sizes, Kafka versions, a processing map, and the "did you mean" of an
// unknown key. Each is the checker's own function, so the two files cannot
// drift apart.

// OneDocument decodes the first YAML document of data; second is the line
// of a second document that holds anything, or 0.
func OneDocument(data []byte) (doc yaml.Node, second int, err error) { return oneDocument(data) }

// Resolve follows YAML aliases (*anchor) to the node they name.
func Resolve(n *yaml.Node) *yaml.Node { return resolve(n) }

// IsNull reports whether n is an empty value (null, ~ or nothing).
func IsNull(n *yaml.Node) bool { return isNull(n) }

// NodeKind says what a node is, for "expected …, got …" messages: "a
// map", "a list", "an empty value", `the value "x"`.
func NodeKind(n *yaml.Node) string { return nodeKind(n) }

// Suggest is the " (did you mean …?)" or " (valid keys: …)" that follows
// an unknown key in a message.
func Suggest(key string, valid []string) string { return suggest(key, valid) }

// NumberLiteral refuses a YAML number written with a leading zero or in
// another base (010, 0x10): the value read would not be the one written.
func NumberLiteral(n *yaml.Node) error { return numberLiteral(n) }

// ParseFinite parses a number, refusing NaN and ±Inf.
func ParseFinite(s string) (float64, error) { return parseFinite(s) }

// ParseSize parses a byte size: "256", "16KiB", "1MiB", "4kB".
func ParseSize(s string) (int, error) { return parseSize(s) }

// ParseBytes parses a byte size as ParseSize does, up to limit bytes.
func ParseBytes(s string, limit int64) (int64, error) { return parseBytes(s, limit) }

// ValidName reports whether s is a valid scenario name: letters, digits,
// '.', '_' and '-', starting with a letter or digit (it names files).
func ValidName(s string) bool { return nameRE.MatchString(s) }

// The harness's limits on a rate and a record, for files planned into
// scenarios elsewhere (a poc profile).
const (
	MaxRecordsPerSec = maxRateLimit
	MaxRecordBytes   = maxMessageSize
)

// MaxDestinationConnections is the most connections a run's destination
// may open in all.
var MaxDestinationConnections = maxDestinationConnections

// ParseKafkaVersion parses a Kafka release "MAJOR.MINOR.PATCH" (a suffix
// after "-" is ignored), as kafka_version takes it.
func ParseKafkaVersion(v string) ([3]int, bool) { return parseVersion(v) }

// ProcessingNode reads one processing map ({model: lognormal, median:
// 10ms, p99: 50ms}) with single values, as a scenario's processing: takes
// it: the keys of the model, Go durations, the model's own rules
// (Processing.check). Every problem is "src:LINE: where.KEY: …", the line
// of the key it names.
func ProcessingNode(src, where string, n *yaml.Node) (Processing, []error) {
	var errs []error
	bad := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", src, line, fmt.Sprintf(format, args...)))
	}
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		bad(n.Line, "%s: expected a map like {model: constant, time: 10ms}, got %s", where, nodeKind(n))
		return Processing{}, errs
	}
	var pr Processing
	lines := map[string]int{}
	given := map[string]any{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if !slices.Contains(processingKeys, k.Value) {
			bad(k.Line, "unknown key %q in %s%s", k.Value, where, suggest(k.Value, processingKeys))
			continue
		}
		lines[k.Value] = k.Line
		given[k.Value] = true
		if v.Kind != yaml.ScalarNode || isNull(v) {
			bad(v.Line, "%s.%s: expected a single value, got %s", where, k.Value, nodeKind(v))
			continue
		}
		if k.Value == "model" {
			pr.Model = v.Value
			given["model"] = v.Value
			continue
		}
		d, err := time.ParseDuration(v.Value)
		if err != nil {
			bad(v.Line, "%s.%s: expected a Go duration like 10ms, got %q", where, k.Value, v.Value)
			continue
		}
		for _, f := range []struct {
			key string
			d   *time.Duration
		}{{"time", &pr.Time}, {"min", &pr.Min}, {"max", &pr.Max}, {"mean", &pr.Mean}, {"median", &pr.Median}, {"p99", &pr.P99}} {
			if f.key == k.Value {
				*f.d = d
			}
		}
	}
	if len(errs) > 0 {
		return pr, errs
	}
	p := problems(processingKeyProblems(given))
	if len(p) == 0 {
		pr.check(&p)
	}
	for _, s := range p {
		key, msg, _ := strings.Cut(s, ": ")
		leaf := strings.TrimPrefix(key, "processing.")
		line, ok := lines[leaf]
		if !ok {
			line = n.Line
		}
		bad(line, "%s.%s: %s", where, leaf, msg)
	}
	return pr, errs
}
