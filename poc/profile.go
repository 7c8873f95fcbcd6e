package poc

//go:generate go run gen_docs.go

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/destination"
	"github.com/sharebench/sharebench/internal/boundedread"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// The values of a profile's enumerated keys.
var (
	KeyModels  = []string{"none", "uniform", "hot"}
	Frameworks = []string{"plain", "spring", "kafka_connect", "kafka_streams"}
	Platforms  = []string{"apache", "msk_standard", "msk_express", "confluent_cloud", "other"}
)

// Budget bounds: a proof of concept of less than a minute measures
// nothing, and one of more than a day is a campaign of its own.
const (
	MinBudget = time.Minute
	MaxBudget = 24 * time.Hour
	// MaxPeakFor bounds peak_for, as the budget does.
	MaxPeakFor = 24 * time.Hour
	// MaxRetentionBytes bounds retention_bytes (per partition): 1 PiB.
	MaxRetentionBytes = 1 << 50
)

// Defaults are the values a profile's keys take when left out, as a
// profile file would write them (key paths as in the file; the generated
// reference prints them). peak_rate defaults to steady_rate.
func Defaults() map[string]string {
	return map[string]string{
		"workers":                    "1",
		"record_bytes":               "1KiB",
		"keys":                       "none",
		"restrictions.framework":     "plain",
		"restrictions.platform":      "apache",
		"restrictions.kafka_version": fmt.Sprint(scenarios.Defaults()["kafka_version"]),
		"delivery_limit":             strconv.Itoa(scenarios.RangeOf(scenarios.KeyDeliveryCountLimit).Default),
		"client":                     string(vocab.ClientFranzGo),
		"budget":                     "15m",
	}
}

// Required are the keys a profile must give.
var Required = []string{"name", "steady_rate", "processing", "partitions"}

// FileKey is a field's key in a profile file: its yaml tag when it has
// one, else its json tag; "" when it is not a file key (yaml:"-").
func FileKey(f reflect.StructField) string {
	tag, ok := f.Tag.Lookup("yaml")
	if !ok {
		tag = f.Tag.Get("json")
	}
	key, _, _ := strings.Cut(tag, ",")
	if key == "-" {
		return ""
	}
	return key
}

// fileKeys are the file keys of a struct type, in field order.
func fileKeys(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if k := FileKey(t.Field(i)); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// profileReader collects the problems of one profile file.
type profileReader struct {
	src   string
	errs  []error
	lines map[string]int // key path → line
}

func (r *profileReader) errorf(line int, path, format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf("%s:%d: %s: %s", r.src, line, path, fmt.Sprintf(format, args...)))
}

// LoadProfile reads and checks a workload profile (docs/how-to/run-a-poc.md, the keys
// in docs/reference/poc-profile.md). Every problem is reported together,
// each as "FILE:LINE: key: expected …, got …"; unknown keys are errors. A
// destination dsn is checked with destination.ParseDSN and never quoted.
func LoadProfile(path string) (*Profile, error) {
	data, err := boundedread.File(path, scenarios.MaxFileBytes, "profile file", "a few hundred bytes of YAML")
	if err != nil {
		return nil, err
	}
	return ParseProfile(path, data)
}

// ParseProfile is LoadProfile for a profile already in memory; src names it
// in messages.
func ParseProfile(src string, data []byte) (*Profile, error) {
	doc, second, err := scenarios.OneDocument(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if second > 0 {
		return nil, fmt.Errorf("%s:%d: a second YAML document starts here (---), and a profile is one document", src, second)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty: a profile needs at least %s", src, strings.Join(Required, ", "))
	}
	root := scenarios.Resolve(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: a profile is a YAML mapping of keys to values, got %s", src, root.Line, scenarios.NodeKind(root))
	}
	r := &profileReader{src: src, lines: map[string]int{}}
	p := &Profile{Source: src}
	r.mapping("", root, reflect.ValueOf(p).Elem())
	if len(r.errs) > 0 {
		return nil, errors.Join(r.errs...)
	}
	for _, k := range Required {
		if _, ok := r.lines[k]; !ok {
			r.errorf(root.Line, k, "required: %s", requiredWhy[k])
		}
	}
	r.defaults(p)
	r.check(p)
	if len(r.errs) > 0 {
		return nil, errors.Join(r.errs...)
	}
	return p, nil
}

var requiredWhy = map[string]string{
	"name":        "the profile's name (letters, digits, '.', '_', '-'), which names the campaign",
	"steady_rate": "records/s the workload sees most of the time",
	"processing":  "the processing-time model, like {model: lognormal, median: 10ms, p99: 50ms}",
	"partitions":  "the topic's partitions today",
}

// mapping reads a YAML map into the struct v; prefix is the key path of the
// map ("" at the top, "restrictions.").
func (r *profileReader) mapping(prefix string, m *yaml.Node, v reflect.Value) {
	t := v.Type()
	valid := fileKeys(t)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, val := m.Content[i], scenarios.Resolve(m.Content[i+1])
		path := prefix + k.Value
		idx := fieldIndex(t, k.Value)
		if idx < 0 {
			where := ""
			if prefix != "" {
				where = " in " + strings.TrimSuffix(prefix, ".")
			}
			r.errs = append(r.errs, fmt.Errorf("%s:%d: unknown key %q%s%s", r.src, k.Line, k.Value, where, scenarios.Suggest(k.Value, valid)))
			continue
		}
		if _, dup := r.lines[path]; dup {
			r.errorf(k.Line, path, "given twice (first at line %d)", r.lines[path])
			continue
		}
		r.lines[path] = k.Line
		if scenarios.IsNull(val) {
			r.errorf(k.Line, path, "no value; remove the key to use the default")
			continue
		}
		r.value(path, val, v.Field(idx))
	}
}

var durationType = reflect.TypeFor[time.Duration]()

// value reads one key's value into f by f's type.
func (r *profileReader) value(path string, n *yaml.Node, f reflect.Value) {
	switch {
	case f.Type() == reflect.TypeFor[scenarios.Processing]():
		pr, errs := scenarios.ProcessingNode(r.src, path, n)
		r.errs = append(r.errs, errs...)
		f.Set(reflect.ValueOf(pr))
		return
	case f.Kind() == reflect.Struct:
		if n.Kind != yaml.MappingNode {
			r.errorf(n.Line, path, "expected a map of %s, got %s", strings.Join(fileKeys(f.Type()), ", "), scenarios.NodeKind(n))
			return
		}
		r.mapping(path+".", n, f)
		return
	case f.Kind() == reflect.Pointer:
		if n.Kind != yaml.MappingNode {
			r.errorf(n.Line, path, "expected a map of %s, got %s", strings.Join(fileKeys(f.Type().Elem()), ", "), scenarios.NodeKind(n))
			return
		}
		f.Set(reflect.New(f.Type().Elem()))
		r.mapping(path+".", n, f.Elem())
		return
	}
	if n.Kind != yaml.ScalarNode {
		r.errorf(n.Line, path, "expected a single value, got %s", scenarios.NodeKind(n))
		return
	}
	if err := scenarios.NumberLiteral(n); err != nil {
		r.errorf(n.Line, path, "%v", err)
		return
	}
	r.scalar(path, n.Line, n.Value, f)
}

// sizeKeys are the integer keys that take a size like 1KiB.
var sizeKeys = []string{"record_bytes", "restrictions.retention_bytes"}

// scalar parses s into f; defaults go through here too.
func (r *profileReader) scalar(path string, line int, s string, f reflect.Value) {
	switch {
	case f.Type() == durationType:
		d, err := time.ParseDuration(s)
		if err != nil {
			r.errorf(line, path, "expected a Go duration like 30s or 15m, got %q", s)
			return
		}
		f.SetInt(int64(d))
	case f.Kind() == reflect.String:
		f.SetString(s)
	case f.Kind() == reflect.Bool:
		b, ok := map[string]bool{"true": true, "false": false}[s]
		if !ok {
			r.errorf(line, path, "expected true or false, got %q", s)
			return
		}
		f.SetBool(b)
	case f.Kind() == reflect.Float64:
		x, err := scenarios.ParseFinite(s)
		if err != nil {
			r.errorf(line, path, "expected a finite number, got %q", s)
			return
		}
		f.SetFloat(x)
	case slices.Contains(sizeKeys, path):
		b, err := scenarios.ParseBytes(s, MaxRetentionBytes)
		if err != nil {
			r.errorf(line, path, `expected a size in bytes like 1024, "1KiB" or "10GiB", got %q`, s)
			return
		}
		f.SetInt(b)
	default: // int
		n, err := strconv.Atoi(s)
		if err != nil {
			r.errorf(line, path, "expected a whole number, got %q", s)
			return
		}
		f.SetInt(int64(n))
	}
}

// defaults fills the keys the file left out, through the same parser.
func (r *profileReader) defaults(p *Profile) {
	for path, s := range Defaults() {
		if _, given := r.lines[path]; given {
			continue
		}
		r.scalar(path, 0, s, fieldByPath(reflect.ValueOf(p).Elem(), path))
	}
	if _, given := r.lines["peak_rate"]; !given {
		p.PeakRate = p.SteadyRate
	}
}

// fieldIndex is the index of the field of struct type t whose file key is
// key, -1 when there is none.
func fieldIndex(t reflect.Type, key string) int {
	for i := range t.NumField() {
		if FileKey(t.Field(i)) == key {
			return i
		}
	}
	return -1
}

// fieldByPath finds the field of a key path ("restrictions.platform").
func fieldByPath(v reflect.Value, path string) reflect.Value {
	for part := range strings.SplitSeq(path, ".") {
		v = v.Field(fieldIndex(v.Type(), part))
	}
	return v
}

// check refuses values out of range, each at its key's line.
func (r *profileReader) check(p *Profile) {
	bad := func(path, format string, args ...any) {
		r.errorf(r.lines[path], path, format, args...)
	}
	if !scenarios.ValidName(p.Name) || len(p.Name) > scenarios.MaxNameLen {
		bad("name", "expected letters, digits, '.', '_' and '-' (at most %d, starting with a letter or digit), got %q", scenarios.MaxNameLen, p.Name)
	}
	if len(p.Description) > scenarios.MaxDescriptionBytes {
		bad("description", "expected at most %d bytes, got %d", scenarios.MaxDescriptionBytes, len(p.Description))
	}
	limit := float64(scenarios.MaxRecordsPerSec)
	if !(p.SteadyRate > 0 && p.SteadyRate <= limit) {
		bad("steady_rate", "expected records/s > 0 and ≤ %d (the harness's limit), got %s", scenarios.MaxRecordsPerSec, num(p.SteadyRate))
	}
	if _, given := r.lines["peak_rate"]; given && !(p.PeakRate >= p.SteadyRate && p.PeakRate <= limit) {
		bad("peak_rate", "expected records/s ≥ steady_rate (%s) and ≤ %d, got %s", num(p.SteadyRate), scenarios.MaxRecordsPerSec, num(p.PeakRate))
	}
	if p.PeakFor < 0 || p.PeakFor > MaxPeakFor {
		bad("peak_for", "expected a Go duration from 0 to %v, got %v", MaxPeakFor, p.PeakFor)
	}
	if _, given := r.lines["processing"]; given && p.Processing.Average() <= 0 {
		bad("processing", "expected a model with a mean processing time > 0 (the capacity formulas divide by it), got %s", p.Processing)
	}
	intRange := func(path string, v, lo, hi int, what string) {
		if v < lo || v > hi {
			bad(path, "expected %s from %d to %d, got %d", what, lo, hi, v)
		}
	}
	intRange("workers", p.Workers, 1, scenarios.MaxWorkersPerMember, "workers per member")
	intRange("partitions", p.Partitions, 1, scenarios.MaxPartitions, "partitions")
	intRange("record_bytes", p.RecordBytes, 1, scenarios.MaxRecordBytes, "bytes")
	dl := scenarios.RangeOf(scenarios.KeyDeliveryCountLimit)
	intRange("delivery_limit", p.DeliveryLimit, dl.Min, dl.Max, "deliveries ("+scenarios.KeyDeliveryCountLimit+")")
	enumKey := func(path, v string, valid []string) {
		if !slices.Contains(valid, v) {
			bad(path, "expected one of %s, got %q", strings.Join(valid, ", "), v)
		}
	}
	enumKey("keys", p.Keys, KeyModels)
	enumKey("client", p.Client, clientNames())
	enumKey("restrictions.framework", p.Restrictions.Framework, Frameworks)
	enumKey("restrictions.platform", p.Restrictions.Platform, Platforms)
	for _, f := range []struct {
		path string
		v    float64
	}{{"transient_rate", p.TransientRate}, {"poison_rate", p.PoisonRate}} {
		if !(f.v >= 0 && f.v < 1) {
			bad(f.path, "expected a fraction of records ≥ 0 and < 1, got %s", num(f.v))
		}
	}
	if p.TransientRate+p.PoisonRate >= 1 {
		bad("poison_rate", "expected transient_rate + poison_rate < 1 (some records must succeed), got %s", num(p.TransientRate+p.PoisonRate))
	}
	if p.Budget < MinBudget || p.Budget > MaxBudget {
		bad("budget", "expected a Go duration from %v to %v, got %v", MinBudget, MaxBudget, p.Budget)
	}
	rs := p.Restrictions
	if _, ok := scenarios.ParseKafkaVersion(rs.KafkaVersion); !ok {
		bad("restrictions.kafka_version", "expected a Kafka version MAJOR.MINOR.PATCH like 4.2.0, got %q", rs.KafkaVersion)
	}
	if rs.RetentionBytes < 0 {
		bad("restrictions.retention_bytes", "expected a size ≥ 0, got %d", rs.RetentionBytes)
	}
	if rs.RetentionTime < 0 {
		bad("restrictions.retention_time", "expected a Go duration ≥ 0, got %v", rs.RetentionTime)
	}
	r.checkDestination(p.Destination)
}

// checkDestination refuses a destination that is not exactly one of a
// dsn, the embedded server, or a modelled write with its capacity.
func (r *profileReader) checkDestination(d *ProfileDestination) {
	if d == nil {
		return
	}
	line := r.lines["destination"]
	var kinds []string
	if d.DSN != "" {
		kinds = append(kinds, "dsn")
	}
	if d.Embedded {
		kinds = append(kinds, "embedded")
	}
	_, wt := r.lines["destination.write_time"]
	_, ca := r.lines["destination.capacity"]
	if wt || ca {
		kinds = append(kinds, "write_time and capacity")
	}
	if len(kinds) != 1 {
		got := "none of them"
		if len(kinds) > 1 {
			got = strings.Join(kinds, " and ")
		}
		r.errorf(line, "destination", "expected exactly one of dsn, embedded: true, or write_time with capacity, got %s", got)
		return
	}
	if _, set := r.lines["destination.connections"]; set {
		if kinds[0] == "write_time and capacity" {
			r.errorf(r.lines["destination.connections"], "destination.connections", "expected only with dsn or embedded: true (a modelled write's capacity already says what the database sustains)")
		} else if d.Connections < 1 || d.Connections > scenarios.MaxDestinationConnections {
			r.errorf(r.lines["destination.connections"], "destination.connections", "expected a whole number from 1 to %d (the connections a run may open), got %d", scenarios.MaxDestinationConnections, d.Connections)
		}
	}
	switch kinds[0] {
	case "dsn":
		if _, err := destination.ParseDSN(d.DSN); err != nil {
			// ParseDSN's error never quotes the dsn.
			r.errorf(r.lines["destination.dsn"], "destination.dsn", "expected a PostgreSQL connection string: %v", err)
		}
	case "write_time and capacity":
		if !wt || !ca {
			r.errorf(line, "destination", "expected write_time and capacity together (a modelled write needs both), got only %s", map[bool]string{true: "write_time", false: "capacity"}[wt])
			return
		}
		if d.WriteTime <= 0 || d.WriteTime > time.Minute {
			r.errorf(r.lines["destination.write_time"], "destination.write_time", "expected a Go duration > 0 and ≤ 1m, got %v", d.WriteTime)
		}
		if !(d.Capacity > 0 && d.Capacity <= float64(scenarios.MaxRecordsPerSec)) {
			r.errorf(r.lines["destination.capacity"], "destination.capacity", "expected records/s > 0 and ≤ %d, got %s", scenarios.MaxRecordsPerSec, num(d.Capacity))
		}
	}
}

func clientNames() []string {
	out := make([]string, len(vocab.Clients))
	for i, c := range vocab.Clients {
		out[i] = string(c)
	}
	return out
}

// num prints a number the shortest way: 812, 0.05.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
