package gendoc

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/sharebench/sharebench/blocks"
)

// The blocks package's types, declared once (package blocks), as the pages
// show them: the file key and the Go type.
var blockTypes = []struct {
	key, typ string
	keys     []blocks.Key
}{
	{"autoscale", "Autoscale", blocks.Keys(blocks.AutoscaleDefaults)},
	{"destination", "Destination", blocks.Keys(blocks.DestinationDefaults)},
}

// loadBlocks parses package blocks, beside the scenarios package in dir.
func loadBlocks(dir string) (*source, error) {
	return loadPackage(filepath.Join(dir, "..", "blocks"), "blocks")
}

// blockDefault is a key's default as a file writes it; false when the key
// has none (it is required, or derived from other keys: its meaning says).
func blockDefault(k blocks.Key) (any, bool) {
	v := reflect.ValueOf(k.Default)
	zero := v.IsZero()
	switch x := k.Default.(type) {
	case time.Duration:
		return x.String(), x >= 0 && !(zero && k.Gt != "")
	case float64:
		return x, x >= 0 && !(zero && k.Gt != "")
	case int:
		return x, !(zero && (k.Required || blocks.Int(k.Min) > 0))
	case bool:
		return x, true
	}
	if v.Kind() == reflect.String {
		return v.String(), !zero
	}
	return nil, false
}

// blockRange says what values a key takes: its enum or its bounds.
func blockRange(k blocks.Key) string {
	switch {
	case k.Enum != nil:
		return codeList(k.Enum)
	case k.Min != "" && k.Max != "":
		return k.Min + " to " + k.Max
	case k.Gt != "":
		return "> " + k.Gt
	case k.Min != "":
		return "≥ " + k.Min
	}
	return ""
}

// blockTable is a block's table of keys: default, values and meaning.
func blockTable(src *source, typ string, keys []blocks.Key) (string, error) {
	fs, err := src.fields(typ, "key")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| key | default | values | meaning |\n|---|---|---|---|\n")
	for i, k := range keys {
		d := "—"
		if v, ok := blockDefault(k); ok {
			d = "`" + fmt.Sprint(v) + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", k.Name, d, blockRange(k), prose(fs[i]))
	}
	return b.String(), nil
}

// blockSchema is a block's JSON Schema.
func blockSchema(src *source, name, typ string, keys []blocks.Key) (obj, error) {
	fs, err := src.fields(typ, "key")
	if err != nil {
		return nil, err
	}
	props := obj{}
	var required []any
	for i, k := range keys {
		var p obj
		switch {
		case k.Enum != nil:
			p = enum(k.Enum)
		case k.Type == reflect.TypeFor[time.Duration]():
			p = ref("duration")
		case k.Type.Kind() == reflect.Int:
			p = obj{"type": "integer"}
			bound(p, "minimum", k.Min)
			bound(p, "maximum", k.Max)
		case k.Type.Kind() == reflect.Float64:
			p = obj{"type": "number"}
			bound(p, "minimum", k.Min)
			bound(p, "exclusiveMinimum", k.Gt)
		case k.Type.Kind() == reflect.Bool:
			p = obj{"type": "boolean"}
		default:
			p = obj{"type": "string", "minLength": 1}
		}
		if v, ok := blockDefault(k); ok {
			p["default"] = v
		}
		if k.Required {
			required = append(required, k.Name)
		}
		p["description"] = prose(fs[i])
		props[k.Name] = p
	}
	out := obj{"description": strip(metaDocs[name]), "type": "object", "additionalProperties": false, "properties": props}
	if required != nil {
		out["required"] = required
	}
	return out, nil
}

// bound sets a numeric bound from its tag, when there is one.
func bound(p obj, name, tag string) {
	if tag == "" {
		return
	}
	if n, err := strconv.Atoi(tag); err == nil {
		p[name] = n
		return
	}
	p[name] = blocks.Float(tag)
}
