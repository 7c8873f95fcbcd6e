package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// normalize checks a knob's merged value against its kind and returns it in
// canonical form: strings for string knobs, ints for integer knobs, float64
// for numbers, Go duration strings for durations (decoded by mapstructure),
// strings for broker settings. Lists stay lists of canonical values.
func normalize(k knob, v any) (any, error) {
	switch k.kind {
	case kindProcessing:
		return normalizeProcessing(v)
	case kindBrokerConfig:
		return normalizeBrokerConfig(v)
	case kindGroupConfig:
		return normalizeSettings(k.key, "share-group", v)
	case kindHotKeys:
		return normalizeHotKeys(v)
	}
	return normalizeList(k.key, v, func(e any) (any, error) { return scalar(k.kind, e) })
}

// normalizeList applies conv to a single value or to each value of a list.
func normalizeList(key string, v any, conv func(any) (any, error)) (any, error) {
	list, ok := v.([]any)
	if !ok {
		out, err := conv(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		return out, nil
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("%s: empty list; give at least one value", key)
	}
	out := make([]any, len(list))
	for i, e := range list {
		c, err := conv(e)
		if err != nil {
			return nil, fmt.Errorf("%s: list entry %d: %w", key, i+1, err)
		}
		out[i] = c
	}
	return out, nil
}

// scalar converts one value of the given kind.
func scalar(k kind, v any) (any, error) {
	switch v.(type) {
	case nil:
		return nil, fmt.Errorf("no value")
	case []any:
		return nil, fmt.Errorf("a list inside a list; lists of single values only")
	case map[string]any:
		return nil, fmt.Errorf("expected a single value, got a map")
	}
	switch k {
	case kindInt:
		return toInt(v)
	case kindFloat:
		f, ok := toFloat(v)
		if !ok {
			return nil, fmt.Errorf("expected a number, got %s", show(v))
		}
		return f, nil
	case kindDuration:
		return toDuration(v)
	case kindBool:
		return toBool(v)
	case kindSize:
		if s, ok := v.(string); ok {
			if _, err := parseSize(s); err != nil {
				return nil, err
			}
			return s, nil
		}
		n, err := toInt(v)
		if err != nil {
			return nil, fmt.Errorf(`expected a size in bytes like 256, "16KiB" or "1MiB", got %s`, show(v))
		}
		return n, nil
	}
	return formatScalar(v), nil
}

// maxExactInt is the largest integer a YAML float (1e15) holds exactly:
// 2^53. Integer keys are capped far below it by RunSpec.Validate.
const maxExactInt = 1 << 53

// toInt converts a decoded YAML integer, or a float with no fraction such as
// 1e6, to an int. It never wraps: a value beyond ±2^53, NaN or ±Inf is an
// error, so the per-key limits of RunSpec.Validate see the value as written.
func toInt(v any) (int, error) {
	switch n := v.(type) {
	case int:
		if n >= -maxExactInt && n <= maxExactInt {
			return n, nil
		}
		return 0, fmt.Errorf("%d is out of range for an integer key (at most 2^53, and every key has a far lower limit)", n)
	case int64:
		return toInt(float64(n))
	case uint64:
		if n <= maxExactInt {
			return int(n), nil
		}
		return 0, fmt.Errorf("%d is out of range for an integer key (at most 2^53, and every key has a far lower limit)", n)
	case float64:
		switch {
		case math.IsNaN(n) || math.IsInf(n, 0):
			return 0, fmt.Errorf("expected an integer, got %s", num(n))
		case n != math.Trunc(n):
			return 0, fmt.Errorf("expected an integer, got %s", num(n))
		case math.Abs(n) > maxExactInt:
			return 0, fmt.Errorf("%s is out of range for an integer key (at most 2^53, and every key has a far lower limit)", num(n))
		}
		return int(n), nil
	}
	return 0, fmt.Errorf("expected an integer, got %s", show(v))
}

// num writes a number for an error message: plainly when it is of a
// reasonable size, in exponent form when it is huge or tiny (1e+300, 1e-300),
// so a message never spells out hundreds of zeros.
func num(f float64) string {
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e15) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// numberLiteral refuses a YAML number written with a leading zero (YAML 1.1
// reads 010 as octal 8; 08 as the float 8) or in another base (0o10, 0x10,
// 0b10): a scenario knob is a decimal count, and a silently converted one
// runs a different benchmark than the one written. Quoted scalars are
// strings and pass.
func numberLiteral(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		return nil
	}
	s := n.Value
	sign := ""
	if s != "" && (s[0] == '-' || s[0] == '+') {
		sign, s = s[:1], s[1:]
	}
	if len(s) < 2 || s[0] != '0' {
		return nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil // not a number after all; the value checks report it
	}
	val := show(v)
	switch c := s[1]; {
	case c == 'x' || c == 'X':
		return fmt.Errorf("%s is hexadecimal (%s); write %s", n.Value, val, val)
	case c == 'o' || c == 'O':
		return fmt.Errorf("%s is octal (%s); write %s", n.Value, val, val)
	case c == 'b' || c == 'B':
		return fmt.Errorf("%s is binary (%s); write %s", n.Value, val, val)
	case c >= '0' && c <= '9' || c == '_':
		fixed := strings.TrimLeft(s, "0_")
		if fixed == "" || fixed[0] < '0' || fixed[0] > '9' {
			fixed = "0" + fixed
		}
		fixed = sign + fixed
		if n.Tag == "!!int" {
			return fmt.Errorf("%s has a leading zero (read as octal %s by YAML); write %s", n.Value, val, fixed)
		}
		return fmt.Errorf("%s has a leading zero (YAML reads such integers as octal); write %s", n.Value, fixed)
	}
	return nil
}

// parseFinite parses a number written in a scenario (a rate, a threshold,
// a bound), refusing NaN and ±Inf, which strconv reads from "NaN", "inf"
// and "Infinity": no key takes them, every range check passes a NaN
// (every comparison with it is false), and the encoder of campaign.json
// and run.json cannot write either.
func parseFinite(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
		err = fmt.Errorf("%s is not a finite number", s)
	}
	return f, err
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// toDuration accepts a Go duration string, or a bare 0.
func toDuration(v any) (any, error) {
	if s, ok := v.(string); ok {
		if _, err := time.ParseDuration(s); err == nil {
			return s, nil
		}
	}
	if f, ok := toFloat(v); ok && f == 0 {
		return "0s", nil
	}
	return nil, fmt.Errorf(`expected a Go duration like "250ms", "30s" or "2m", got %s`, show(v))
}

// normalizeProcessing checks a processing map, or a list of processing maps
// whose parameters are single values.
func normalizeProcessing(v any) (any, error) {
	if list, ok := v.([]any); ok {
		if len(list) == 0 {
			return nil, fmt.Errorf("processing: empty list; give at least one model")
		}
		out := make([]any, len(list))
		for i, e := range list {
			m, err := processingMap(e, false)
			if err != nil {
				return nil, fmt.Errorf("processing: list entry %d: %w", i+1, err)
			}
			out[i] = m
		}
		return out, nil
	}
	m, err := processingMap(v, true)
	if err != nil {
		return nil, fmt.Errorf("processing: %w", err)
	}
	return m, nil
}

func processingMap(v any, allowLists bool) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected a map like {model: constant, time: 10ms}, got %s", show(v))
	}
	out := make(map[string]any, len(m))
	for key, val := range m {
		if !slices.Contains(processingKeys, key) {
			return nil, fmt.Errorf("unknown key %q%s", key, suggest(key, processingKeys))
		}
		if _, isList := val.([]any); isList && !allowLists {
			return nil, fmt.Errorf("%s: entries of a processing list take single values", key)
		}
		k := kindDuration
		if key == "model" {
			k = kindString
		}
		c, err := normalizeList(key, val, func(e any) (any, error) { return scalar(k, e) })
		if err != nil {
			return nil, err
		}
		out[key] = c
	}
	return out, nil
}

// normalizeBrokerConfig turns every broker setting value into a string.
func normalizeBrokerConfig(v any) (any, error) {
	return normalizeSettings("broker_config", "Kafka broker", v)
}

// normalizeSettings turns every value of a settings map (broker_config,
// group_config) into a string.
func normalizeSettings(top, what string, v any) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: expected a map of %s settings, got %s", top, what, show(v))
	}
	out := make(map[string]any, len(m))
	for key, val := range m {
		c, err := normalizeList(top+"."+key, val, func(e any) (any, error) {
			return scalar(kindString, e)
		})
		if err != nil {
			return nil, err
		}
		out[key] = c
	}
	return out, nil
}

// formatScalar writes a YAML scalar as a string: 500 → "500", 0.5 → "0.5".
func formatScalar(v any) string {
	switch n := v.(type) {
	case string:
		return n
	case float64:
		return strconv.FormatFloat(n, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// show quotes strings and prints other values plainly, for error messages.
func show(v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case map[string]any:
		return "a map"
	case []any:
		return "a list"
	case float64:
		return num(t)
	}
	return formatScalar(v)
}

// sizeUnits are the units a size may carry; IEC units are powers of 1024.
var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30,
	"kb": 1e3, "mb": 1e6, "gb": 1e9,
}

// parseSize parses a byte size: "256", "16KiB", "1MiB", "0.5MiB", "4kB".
func parseSize(s string) (int, error) {
	b, err := parseBytes(s, math.MaxInt32)
	return int(b), err
}

// parseBytes is parseSize for sizes up to limit bytes.
func parseBytes(s string, limit int64) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	mult, ok := sizeUnits[strings.ToLower(strings.TrimSpace(t[i:]))]
	n, err := strconv.ParseFloat(t[:i], 64)
	if !ok || err != nil || i == 0 {
		return 0, fmt.Errorf(`expected a size in bytes like 256, "16KiB" or "1MiB", got %q`, s)
	}
	b := n * mult
	if b != math.Trunc(b) || b > float64(limit) {
		return 0, fmt.Errorf("size %q is not a whole number of bytes below %s", s, sizeText(limit+1))
	}
	return int64(b), nil
}

// sizeText writes a power-of-two byte count as a size: 2GiB, 1TiB.
func sizeText(n int64) string {
	for _, u := range []struct {
		unit string
		v    int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.v && n%u.v == 0 {
			return fmt.Sprintf("%d%s", n/u.v, u.unit)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
