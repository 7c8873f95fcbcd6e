package blocks

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Key is one key of a block as its struct declares it.
type Key struct {
	// Name is the key as a scenario file writes it (the `key` tag).
	Name string
	// Type is the field's Go type; Index its index in the struct.
	Type  reflect.Type
	Index []int
	// Default is the field's value in the block's defaults.
	Default any
	// Enum are the valid values of a string type with Values; nil
	// otherwise.
	Enum []string
	// Min and Max bound the value, as written in the `min` and `max` tags
	// ("" for none); Gt is an exclusive lower bound (the `gt` tag).
	Min, Max, Gt string
	// Required is a key a block must give (the `required` tag).
	Required bool
}

// valued is a string type with a closed list of values.
type valued interface{ Values() []string }

// Keys lists the keys of a block, in the struct's order, with the
// defaults of defaults (a block value: DestinationDefaults,
// AutoscaleDefaults). Fields without a `key` tag are not file keys.
func Keys(defaults any) []Key {
	v := reflect.ValueOf(defaults)
	t := v.Type()
	var out []Key
	for i := range t.NumField() {
		f := t.Field(i)
		name, ok := f.Tag.Lookup("key")
		if !ok {
			continue
		}
		k := Key{Name: name, Type: f.Type, Index: f.Index, Default: v.Field(i).Interface(),
			Min: f.Tag.Get("min"), Max: f.Tag.Get("max"), Gt: f.Tag.Get("gt")}
		_, k.Required = f.Tag.Lookup("required")
		if e, ok := reflect.Zero(f.Type).Interface().(valued); ok {
			k.Enum = e.Values()
		}
		out = append(out, k)
	}
	return out
}

// Field is the field of key k in the block *block points to.
func Field(block any, k Key) reflect.Value {
	return reflect.ValueOf(block).Elem().FieldByIndex(k.Index)
}

// Float is a bound tag read as a number (0 for none).
func Float(tag string) float64 {
	f, _ := strconv.ParseFloat(tag, 64)
	return f
}

// Names are the keys' names.
func Names(keys []Key) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.Name
	}
	return out
}

// Find returns the key named name; it panics when the block has none, a
// programming error.
func Find(keys []Key, name string) Key {
	for _, k := range keys {
		if k.Name == name {
			return k
		}
	}
	panic(fmt.Sprintf("blocks: no key %q", name))
}

// Int is a bound tag read as an integer (0 for none).
func Int(tag string) int {
	n, _ := strconv.Atoi(tag)
	return n
}

// Duration is a bound tag read as a Go duration (0 for none).
func Duration(tag string) time.Duration {
	d, _ := time.ParseDuration(tag)
	return d
}

// Or joins values as "a, b or c", as errors list them.
func Or(vals []string) string {
	if len(vals) < 2 {
		return strings.Join(vals, "")
	}
	return strings.Join(vals[:len(vals)-1], ", ") + " or " + vals[len(vals)-1]
}

func values[T ~string](vs ...T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
