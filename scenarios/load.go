package scenarios

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

// EnvPrefix starts the environment variables that override scenario keys:
// SHAREBENCH_<KEY>, the key upper-cased with dots written as underscores
// (SHAREBENCH_MAX_POLL_RECORDS=50, SHAREBENCH_PROCESSING_TIME=5ms,
// SHAREBENCH_BROKER_CONFIG_GROUP_SHARE_MAX_SIZE=500). Variables with the
// prefix that name no scenario key are left alone: they may belong to the CLI.
const EnvPrefix = "SHAREBENCH_"

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
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return LoadBytes(path, data, env, sets)
}

// LoadBytes is Load for a scenario already in memory; name is the source
// used in errors and Scenario.Source.
func LoadBytes(name string, data []byte, env, sets []string) (*Scenario, error) {
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
	src    string
	v      *viper.Viper
	file   fileInfo
	origin map[string]string // top-level key → the override that last set it
}

func newLoader(src string, data []byte, info fileInfo) (*loader, error) {
	// Broker settings contain dots, so viper must not split keys on them.
	v := viper.NewWithOptions(viper.KeyDelimiter("::"))
	v.SetConfigType("yaml")
	for k, val := range Defaults() {
		v.SetDefault(k, val)
	}
	v.SetDefault("repeat", 1)
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	return &loader{src: src, v: v, file: info, origin: map[string]string{}}, nil
}

// applyEnv applies SHAREBENCH_* variables from env; empty values are unset.
func (l *loader) applyEnv(env []string) error {
	for _, kv := range env {
		name, raw, ok := strings.Cut(kv, "=")
		if !ok || raw == "" || !strings.HasPrefix(name, EnvPrefix) {
			continue
		}
		path, ok := envPath(strings.ToLower(strings.TrimPrefix(name, EnvPrefix)))
		if !ok {
			continue
		}
		if err := l.override(path, raw, name+"="+raw); err != nil {
			return err
		}
	}
	return nil
}

// envPath maps the lower-cased remainder of a SHAREBENCH_ variable to a key
// path, or reports that it names no scenario key.
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
	case top == "max_rate" || top == "recommend":
		return nil, fmt.Errorf("%s: written in the scenario file, not overridden", top)
	case top == "events":
		return nil, fmt.Errorf("events: events are written in the scenario file, not overridden")
	case !nested && slices.Contains(topLevelKeys(), top):
		return []string{top}, nil
	case top == "processing" && slices.Contains(processingKeys, rest):
		return []string{top, rest}, nil
	case top == "broker_config" && rest != "" && rest == strings.ToLower(rest):
		return []string{top, rest}, nil
	case top == "sweep" && rest == "together":
		return []string{top, rest}, nil
	}
	return nil, fmt.Errorf("unknown key %q%s", key, suggest(key, overrideKeys()))
}

// override sets one key path to a YAML-parsed value in viper's override layer.
func (l *loader) override(path []string, raw, origin string) error {
	val, err := parseValue(path[0], raw)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", l.src, origin, err)
	}
	top := path[0]
	l.origin[top] = origin
	if len(path) == 1 {
		l.v.Set(top, val)
		return nil
	}
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

// parseValue decodes an override value as YAML.
func parseValue(key, raw string) (any, error) {
	var v any
	if err := yaml.Unmarshal([]byte(raw), &v); err != nil {
		return nil, fmt.Errorf("value %q is not valid YAML: %w", raw, err)
	}
	if v == nil {
		return nil, fmt.Errorf("no value")
	}
	if s, ok := v.(string); ok && strings.Contains(s, ",") && key != "description" && key != "broker_config" {
		return nil, fmt.Errorf("value %q: write a list in brackets, like [%s]", s, s)
	}
	return v, nil
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
func (l *loader) where(path string) string {
	top, _, _ := strings.Cut(path, ".")
	if o := l.origin[top]; o != "" {
		return fmt.Sprintf("%s (%s)", l.src, o)
	}
	if line, ok := l.file.lines[path]; ok {
		return fmt.Sprintf("%s:%d", l.src, line)
	}
	if line, ok := l.file.lines[top]; ok {
		return fmt.Sprintf("%s:%d", l.src, line)
	}
	return l.src
}
