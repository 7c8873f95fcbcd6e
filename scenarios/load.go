package scenarios

import (
	"bytes"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/viper"

	"github.com/sharebench/sharebench/internal/envvars"
)

// EnvPrefix starts the environment variables that override scenario keys:
// SHAREBENCH_<KEY>, the key upper-cased with dots written as underscores
// (SHAREBENCH_MAX_POLL_RECORDS=50, SHAREBENCH_PROCESSING_TIME=5ms,
// SHAREBENCH_BROKER_CONFIG_GROUP_SHARE_MAX_SIZE=500). A variable with the
// prefix that names no scenario key and is none of the harness's own
// (envvars.Harness: the cache, the broker image, the broker requirement of
// the tests, the agents' clock skew...) is refused: a misspelt name would
// otherwise change nothing without a word.
const EnvPrefix = envvars.Prefix

// Load reads a scenario file and returns it validated and expanded into runs.
//
// Sources, later wins: Defaults(), the file, SHAREBENCH_* variables from env
// (pass os.Environ(); "K=V" strings), then sets ("key=value" strings, as
// given to --set). A --set key uses dots for nesting (processing.time=5ms,
// broker_config.group.share.max.size=500; after "broker_config." the Kafka
// setting is taken as-is). Values are YAML: "[10,100]" is a list, "5ms" a
// string, "{model: uniform, min: 1ms, max: 5ms}" a map. An override replaces
// a whole top-level value, except that nested keys change one entry of
// processing or broker_config; changing processing.model through an
// override drops the parameters the new model does not take.
func Load(path string, env, sets []string) (*Scenario, error) {
	data, err := ReadFileLimited(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return LoadBytes(path, data, env, sets)
}

// LoadBytes is Load for a scenario already in memory; name is the source
// used in errors and Scenario.Source.
func LoadBytes(name string, data []byte, env, sets []string) (*Scenario, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s: %d bytes: larger than the %d KiB a scenario file may be", name, len(data), MaxFileBytes>>10)
	}
	info, err := checkFile(name, data)
	if err != nil {
		return nil, err
	}
	l, err := newLoader(name, data, info)
	if err != nil {
		return nil, err
	}
	if err := l.applyEnv(env); err != nil {
		return nil, err
	}
	if err := l.applySets(sets); err != nil {
		return nil, err
	}
	return l.build()
}

// loader layers a scenario's sources with viper: Defaults() are viper
// defaults, the file is viper's config, and environment variables then --set
// values go to viper's override layer in that order. Values are read back one
// top-level key at a time, so a file's processing or broker_config replaces
// the default as a whole instead of being deep-merged into it.
type loader struct {
	src  string
	v    *viper.Viper
	file fileInfo
	// origin maps a key path ("rate", "processing.time") to the override
	// that last set it, nested maps a top-level key to the last override of
	// one of its entries; where reads both.
	origin map[string]string
	nested map[string]string
}

func newLoader(src string, data []byte, info fileInfo) (*loader, error) {
	// Broker settings contain dots, so viper must not split keys on them.
	v := viper.NewWithOptions(viper.KeyDelimiter("::"))
	v.SetConfigType("yaml")
	for k, val := range Defaults() {
		v.SetDefault(k, val)
	}
	v.SetDefault("repeat", 1)
	v.SetDefault("repeat_order", string(RepeatAlternate))
	v.SetDefault("jit_warmup", DefaultJITWarmup.String())
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	return &loader{src: src, v: v, file: info, origin: map[string]string{}, nested: map[string]string{}}, nil
}

// applyEnv applies SHAREBENCH_* variables from env; empty values are unset.
// A variable naming a key only the file may hold (SHAREBENCH_EXPECT,
// SHAREBENCH_EVENTS, SHAREBENCH_MAX_RATE, SHAREBENCH_RECOMMEND) is refused
// as --set refuses the key, rather than ignored.
func (l *loader) applyEnv(env []string) error {
	for _, kv := range env {
		name, raw, ok := strings.Cut(kv, "=")
		if !ok || raw == "" || !strings.HasPrefix(name, EnvPrefix) {
			continue
		}
		origin := name + "=" + raw
		key := strings.ToLower(strings.TrimPrefix(name, EnvPrefix))
		path, ok := envPath(key)
		if slices.Contains(fileOnlyKeys, key) {
			var err error
			if path, err = setPath(key); err != nil {
				return fmt.Errorf("%s: %s: %w", l.src, origin, err)
			}
			ok = true
		}
		if !ok {
			if slices.Contains(envvars.Harness, name) {
				continue
			}
			return unknownEnv(l.src, name)
		}
		if err := l.override(path, raw, origin); err != nil {
			return err
		}
	}
	return nil
}

// unknownEnv refuses a SHAREBENCH_* variable that names neither a
// scenario key nor a harness setting, suggesting the nearest names. Only
// the name is quoted: the value may be a secret.
func unknownEnv(src, name string) error {
	valid := slices.Clone(envvars.Harness)
	for _, k := range topLevelKeys() {
		if !slices.Contains(fileOnlyKeys, k) {
			valid = append(valid, EnvPrefix+strings.ToUpper(k))
		}
	}
	for _, k := range processingKeys {
		valid = append(valid, EnvPrefix+"PROCESSING_"+strings.ToUpper(k))
	}
	hint := suggest(name, valid)
	if strings.HasPrefix(hint, " (valid keys") {
		hint = " (a scenario key upper-cased, SHAREBENCH_BROKER_CONFIG_<SETTING>, SHAREBENCH_GROUP_CONFIG_<SETTING>, or one of " +
			strings.Join(envvars.Harness, ", ") + ")"
	}
	return fmt.Errorf("%s: environment variable %s: names no scenario key and no sharebench setting%s; unset it or correct the name",
		src, name, hint)
}

// envPath maps the lower-cased remainder of a SHAREBENCH_ variable to a key
// path, or reports that it names no scenario key (applyEnv handles the
// file-only keys).
func envPath(s string) ([]string, bool) {
	if !slices.Contains(fileOnlyKeys, s) && slices.Contains(topLevelKeys(), s) {
		return []string{s}, true
	}
	if sub, ok := strings.CutPrefix(s, "processing_"); ok && slices.Contains(processingKeys, sub) {
		return []string{"processing", sub}, true
	}
	if sub, ok := strings.CutPrefix(s, "broker_config_"); ok && sub != "" {
		return []string{"broker_config", strings.ReplaceAll(sub, "_", ".")}, true
	}
	if sub, ok := strings.CutPrefix(s, "group_config_"); ok && sub != "" {
		return []string{"group_config", strings.ReplaceAll(sub, "_", ".")}, true
	}
	if s == "sweep_together" {
		return []string{"sweep", "together"}, true
	}
	return nil, false
}

// applySets applies --set key=value strings in order.
func (l *loader) applySets(sets []string) error {
	for _, s := range sets {
		origin := "--set " + s
		key, raw, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("%s: %s: expected key=value", l.src, origin)
		}
		path, err := setPath(strings.TrimSpace(key))
		if err != nil {
			return fmt.Errorf("%s: %s: %w", l.src, origin, err)
		}
		if err := l.override(path, raw, origin); err != nil {
			return err
		}
	}
	return nil
}

// setPath splits a --set key into a key path, rejecting unknown keys.
func setPath(key string) ([]string, error) {
	top, rest, nested := strings.Cut(key, ".")
	switch {
	case top == "expect":
		return nil, fmt.Errorf("expect: expectations are written in the scenario file, not overridden")
	case top == "max_rate" || top == "recommend" || top == "dead_letter" || top == "rate_schedule" || top == "autoscale" || top == "destination":
		return nil, fmt.Errorf("%s: written in the scenario file, not overridden", top)
	case top == "events":
		return nil, fmt.Errorf("events: events are written in the scenario file, not overridden")
	case !nested && slices.Contains(topLevelKeys(), top):
		return []string{top}, nil
	case top == "processing" && slices.Contains(processingKeys, rest):
		return []string{top, rest}, nil
	case isSettingsMap(top) && rest != "" && rest == strings.ToLower(rest):
		return []string{top, rest}, nil
	case top == "sweep" && rest == "together":
		return []string{top, rest}, nil
	}
	return nil, fmt.Errorf("unknown key %q%s", key, suggest(key, overrideKeys()))
}

// override sets one key path to a YAML-parsed value in viper's override
// layer. The value is checked against its key's kind here, so an error in it
// names the override rather than the file.
func (l *loader) override(path []string, raw, origin string) error {
	val, err := parseValue(strings.Join(path, "."), raw)
	if err == nil {
		err = checkOverride(path, val)
	}
	if err != nil {
		return fmt.Errorf("%s: %s: %w", l.src, origin, err)
	}
	top := path[0]
	if len(path) == 1 {
		for k := range l.origin {
			if strings.HasPrefix(k, top+".") {
				delete(l.origin, k)
			}
		}
		delete(l.nested, top)
		l.origin[top] = origin
		l.v.Set(top, val)
		return nil
	}
	l.origin[top+"."+path[1]] = origin
	l.nested[top] = origin
	got := deepCopy(l.v.Get(top))
	if got == nil {
		got = map[string]any{}
	}
	cur, ok := got.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: %s: %s is a list here; override it whole, e.g. --set '%s=[{model: constant, time: 5ms}]'",
			l.src, origin, top, top)
	}
	if top == "processing" && path[1] == "model" {
		cur = switchModel(cur, val)
	}
	cur[path[1]] = val
	l.v.Set(top, cur)
	return nil
}

// parseValue decodes an override value of the key path key as YAML: one
// document, numbers written in decimal.
func parseValue(key, raw string) (any, error) {
	doc, second, err := oneDocument([]byte(raw))
	if err != nil {
		return nil, fmt.Errorf("value %q is not valid YAML: %w", raw, err)
	}
	if second > 0 {
		return nil, fmt.Errorf("value %q holds more than one YAML document (---); give one value", raw)
	}
	var bad error
	walkNumbers(key, &doc, func(_ int, err error) {
		if bad == nil {
			bad = err
		}
	})
	if bad != nil {
		return nil, bad
	}
	var v any
	if err := doc.Decode(&v); err != nil {
		return nil, fmt.Errorf("value %q: %w", raw, err)
	}
	if v == nil {
		return nil, fmt.Errorf("no value")
	}
	top, _, _ := strings.Cut(key, ".")
	if s, ok := v.(string); ok && strings.Contains(s, ",") && top != "description" && !isSettingsMap(top) {
		return nil, fmt.Errorf("value %q: write a list in brackets, like [%s]", s, s)
	}
	return v, nil
}

// checkOverride checks an override's value against the kind of the key it
// sets: a whole knob, or one entry of processing or broker_config. Meta keys
// (name, repeat, sweep) are checked when the scenario is built.
func checkOverride(path []string, val any) error {
	k, ok := knobByKey(path[0])
	if !ok {
		return nil
	}
	if len(path) == 1 {
		_, err := normalize(k, val)
		return err
	}
	kind := kindString
	if path[0] == "processing" && path[1] != "model" {
		kind = kindDuration
	}
	_, err := normalizeList(strings.Join(path, "."), val, func(e any) (any, error) { return scalar(kind, e) })
	return err
}

// switchModel drops the parameters of the old model when an override changes
// processing.model, so --set processing.model=exponential
// --set processing.mean=5ms works on top of the default constant model.
func switchModel(m map[string]any, model any) map[string]any {
	name, ok := model.(string)
	params, known := modelParams[name]
	if !ok || !known || m["model"] == name {
		return m
	}
	out := map[string]any{}
	for k, v := range m {
		if slices.Contains(params, k) {
			out[k] = v
		}
	}
	return out
}

// deepCopy copies the maps and lists of a decoded YAML value.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// where names the source of a key's value for error messages: the file and
// line, or the override that set it.
//
// An override of the key itself, or of the whole top-level value it is in,
// wins; then the file's line of the key; then, for a key the file does not
// hold, the last override of an entry next to it (a --set
// processing.model=exponential is why processing.mean is missing); then the
// line of the top-level key; else the source alone (a default).
func (l *loader) where(path string) string {
	top, _, _ := strings.Cut(path, ".")
	for _, o := range []string{l.origin[path], l.origin[top]} {
		if o != "" {
			return fmt.Sprintf("%s (%s)", l.src, o)
		}
	}
	if line, ok := l.file.lines[path]; ok {
		return fmt.Sprintf("%s:%d", l.src, line)
	}
	if o := l.nested[top]; o != "" {
		return fmt.Sprintf("%s (%s)", l.src, o)
	}
	if line, ok := l.file.lines[top]; ok {
		return fmt.Sprintf("%s:%d", l.src, line)
	}
	return l.src
}

// locate prefixes a validation problem ("key: what is wrong") with where
// the key's value came from.
func (l *loader) locate(problem string) string {
	key, _, _ := strings.Cut(problem, ": ")
	return l.where(key) + ": " + problem + l.alsoFrom(problem)
}

// alsoFrom names the overrides of the keys a problem of rate_schedule or
// autoscale mentions: no override sets those blocks, so when one is
// invalid in the merged scenario, a run key it is checked against may be
// what an override changed ("autoscale.min: the run starts with members
// 20 ..." gets "; members is from --set members=20").
func (l *loader) alsoFrom(problem string) string {
	key, text, _ := strings.Cut(problem, ": ")
	if top, _, _ := strings.Cut(key, "."); top != "rate_schedule" && top != "autoscale" {
		return ""
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(l.origin)) {
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(k) + `\b`).MatchString(text) {
			out = append(out, fmt.Sprintf("%s is from %s", k, l.origin[k]))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; " + strings.Join(out, ", ")
}
