package gendoc

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/sharebench/sharebench/scenarios"
)

// obj is a JSON Schema object; encoding/json writes its keys sorted, so the
// output is stable.
type obj = map[string]any

// Go durations as a scenario writes them: "250ms", "1m30s", "0"; a bare 0
// may also be a YAML integer.
const durationPattern = `^((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$|^0$`

// Sizes: bytes, or a number with a unit (case-insensitive) of B, kB, MB, GB, KiB, MiB, GiB.
const sizePattern = `^\s*(\d+(\.\d*)?|\.\d+)\s*([kKmMgG][iI]?[bB]|[bB])?\s*$`

const clausePattern = `^\s*[A-Za-z0-9_.]+\s*(<=|>=|==|!=|<|>)\s*\S+\s*$`

func ref(name string) obj { return obj{"$ref": "#/$defs/" + name} }

// sweepable accepts one value or a non-empty list of values.
func sweepable(scalar obj) obj {
	return obj{"anyOf": []any{scalar, obj{"type": "array", "minItems": 1, "items": scalar}}}
}

func enum(vals []string) obj {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return obj{"type": "string", "enum": out}
}

// Schema renders the JSON Schema (draft 2020-12) of a scenario file from
// the scenarios package in dir.
func Schema(dir string) ([]byte, error) {
	src, err := load(dir)
	if err != nil {
		return nil, err
	}
	knobDocs, err := src.knobFields()
	if err != nil {
		return nil, err
	}
	events, err := src.eventFields()
	if err != nil {
		return nil, err
	}
	o := scenarios.SchemaOutline()
	defaults := scenarios.Defaults()

	defs := obj{
		"duration": obj{
			"description": "A Go duration: 250ms, 30s, 2m, 1m30s; a bare 0 is allowed.",
			"anyOf":       []any{obj{"type": "string", "pattern": durationPattern}, obj{"const": 0}},
		},
		"size": obj{
			"description": "Bytes: an integer, or a size like 16KiB, 1MiB, 4kB.",
			"anyOf":       []any{obj{"type": "integer", "minimum": 0}, obj{"type": "string", "pattern": sizePattern}},
		},
		"setting": obj{"type": []any{"string", "number", "boolean"}},
		"where": obj{
			"description":          "Other scenario keys and values that select runs, like {max_poll_records: 1000} or {processing.time: 10ms}.",
			"type":                 "object",
			"minProperties":        1,
			"additionalProperties": obj{"type": []any{"string", "number", "boolean"}},
		},
		"side": obj{
			"description": "A ratio side: a consumer type, or {runs, where}.",
			"anyOf": []any{enum(o.RunsValues), obj{
				"type": "object", "additionalProperties": false,
				"properties": obj{"runs": enum(o.RunsValues), "where": ref("where")},
			}},
		},
		"bound": obj{"type": "number"},
	}

	defs["processing"] = processingSchema(true)
	defs["processingEntry"] = processingSchema(false)

	props := obj{
		"name":        obj{"description": metaDocs["name"], "type": "string", "pattern": o.NamePattern},
		"description": obj{"description": metaDocs["description"], "type": "string"},
		"repeat":      obj{"description": metaDocs["repeat"], "type": "integer", "minimum": 1, "default": 1},
		"repeat_order": obj{"description": metaDocs["repeat_order"], "type": "string",
			"enum": []any{"same", "alternate", "shuffle"}, "default": "alternate"},
		"repeat_seed": obj{"description": metaDocs["repeat_seed"], "type": "integer", "minimum": 1},
		"jit_warmup":  obj{"description": metaDocs["jit_warmup"], "type": "string", "default": scenarios.DefaultJITWarmup.String()},
		"sweep": obj{
			"description": metaDocs["sweep"], "type": "object", "additionalProperties": false,
			"properties": obj{"together": obj{"type": "array", "items": obj{
				"type": "array", "minItems": 2, "items": obj{"type": "string"},
			}}},
		},
		"expect": obj{"description": strip(metaDocs["expect"]), "type": "array", "items": obj{
			"type": "object", "additionalProperties": false, "required": []any{"name"},
			"oneOf": []any{obj{"required": []any{"measure"}}, obj{"required": []any{"ratio"}}},
			"properties": obj{
				"name": obj{"type": "string", "minLength": 1},
				"per":  obj{"description": "client: check the claim once for each client the campaign ran", "enum": []any{"client"}},
				"measure": obj{
					"type": "object", "additionalProperties": false, "required": []any{"field"},
					"anyOf":      []any{obj{"required": []any{"min"}}, obj{"required": []any{"max"}}},
					"properties": obj{"runs": enum(o.RunsValues), "where": ref("where"), "field": obj{"type": "string"}, "min": ref("bound"), "max": ref("bound")},
				},
				"ratio": obj{
					"type": "object", "additionalProperties": false, "required": []any{"measure", "numerator", "denominator"},
					"anyOf": []any{obj{"required": []any{"min"}}, obj{"required": []any{"max"}}},
					"properties": obj{"measure": obj{"type": "string"}, "numerator": ref("side"), "denominator": ref("side"),
						"where": ref("where"), "min": ref("bound"), "max": ref("bound")},
				},
			},
		}},
		"max_rate": obj{
			"description": strip(metaDocs["max_rate"]), "type": "object", "additionalProperties": false,
			"required": []any{"start", "max"},
			"not":      obj{"required": []any{"step", "factor"}},
			"properties": obj{
				"start":           obj{"type": "number", "exclusiveMinimum": 0},
				"step":            obj{"type": "number", "exclusiveMinimum": 0},
				"factor":          obj{"type": "number", "exclusiveMinimum": 1},
				"max":             obj{"type": "number", "exclusiveMinimum": 0},
				"p99_bound":       ref("duration"),
				"completed_ratio": obj{"type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": 0.995},
				"confirm":         obj{"type": "boolean", "default": false},
				"precision":       obj{"type": "number", "minimum": 0, "maximum": 0.5, "default": 0.05},
			},
		},
		"dead_letter": obj{
			"description": strip(metaDocs["dead_letter"]), "type": "object", "additionalProperties": false,
			"required": []any{"topic"},
			"properties": obj{
				"topic":       obj{"type": "string", "pattern": `^[a-zA-Z0-9._-]{1,180}$`},
				"copy_record": obj{"type": "boolean", "default": false},
			},
		},
		"rate_schedule": obj{
			"description": strip(metaDocs["rate_schedule"]), "type": "array", "minItems": 1, "items": rateStep(true),
		},
		"recommend": obj{
			"description": strip(metaDocs["recommend"]), "type": "object", "additionalProperties": false,
			"required": []any{"knob"},
			"properties": obj{
				"knob":     obj{"type": "string"},
				"maximize": obj{"type": "string", "default": "throughput.completed_per_sec"},
				"where": obj{"anyOf": []any{
					obj{"type": "string", "pattern": clausePattern},
					obj{"type": "array", "items": obj{"type": "string", "pattern": clausePattern}},
				}},
			},
		},
	}

	bsrc, err := loadBlocks(dir)
	if err != nil {
		return nil, err
	}
	for _, t := range blockTypes {
		if props[t.key], err = blockSchema(bsrc, t.key, t.typ, t.keys); err != nil {
			return nil, err
		}
	}

	eventProps := obj{}
	for _, f := range events {
		var p obj
		switch f.key {
		case "at", "duration":
			p = obj{"allOf": []any{ref("duration")}}
		case "action":
			p = enum(o.EventActions)
		case "members":
			p = obj{"type": "integer", "minimum": 1, "default": 1}
		case "factor":
			p = obj{"type": "number", "exclusiveMinimum": 1}
		case "broker":
			p = obj{"anyOf": []any{obj{"type": "integer", "minimum": 1}, enum(o.BrokerTargets), obj{"type": "string", "pattern": `^[1-9][0-9]*$`}}}
		default:
			p = obj{}
		}
		p["description"] = prose(f)
		eventProps[f.key] = p
	}
	props["events"] = obj{"description": strip(metaDocs["events"]), "type": "array", "items": obj{
		"type": "object", "additionalProperties": false, "required": []any{"at", "action"}, "properties": eventProps,
	}}

	for _, k := range o.Knobs {
		var p obj
		switch {
		case len(k.Enum) > 0:
			p = sweepable(enum(k.Enum))
		case k.Kind == "int":
			p = sweepable(obj{"type": "integer"})
		case k.Kind == "float":
			p = sweepable(obj{"type": "number"})
		case k.Kind == "duration":
			p = sweepable(ref("duration"))
		case k.Kind == "size":
			p = sweepable(ref("size"))
		case k.Kind == "processing":
			p = obj{"anyOf": []any{ref("processing"), obj{"type": "array", "minItems": 1, "items": ref("processingEntry")}}}
		case k.Kind == "bool":
			p = sweepable(obj{"type": "boolean"})
		case k.Kind == "hot_keys":
			hk := obj{"type": "object", "additionalProperties": false, "properties": obj{
				"share": sweepable(obj{"type": "number", "minimum": 0, "maximum": 1}),
				"keys":  sweepable(obj{"type": "integer", "minimum": 0})}}
			p = obj{"anyOf": []any{hk, obj{"type": "array", "minItems": 1, "items": hk}}}
		case k.Kind == "broker_config" || k.Kind == "group_config":
			p = obj{"type": "object", "propertyNames": obj{"pattern": `^[a-z0-9][a-z0-9._-]*$`}, "additionalProperties": sweepable(ref("setting"))}
		case k.Key == "kafka_version":
			p = sweepable(obj{"type": "string", "pattern": o.KafkaVersionPattern})
		case k.Key == "broker_heap":
			p = sweepable(obj{"type": "string", "pattern": o.BrokerHeapPattern})
		default:
			p = sweepable(obj{"type": "string"})
		}
		p["description"] = prose(knobDocs[k.Key]) + " Default: " + flow(defaults[k.Key]) + "."
		p["default"] = defaults[k.Key]
		props[k.Key] = p
	}

	schema := obj{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"title":                "sharebench scenario",
		"description":          "A sharebench scenario file. Generated by go generate ./scenarios from package scenarios; see docs/reference/scenario-keys.md. Every run knob may be a single value or a list of values (a sweep).",
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"name"},
		"properties":           props,
		"$defs":                defs,
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(schema); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// processingSchema is a processing map's schema; with list its values may
// be lists (a sweep). Durations refer to #/$defs/duration.
func processingSchema(list bool) obj {
	props := obj{}
	model := enum(scenarios.SchemaOutline().ProcessingModels)
	param := ref("duration")
	if list {
		model, param = sweepable(model), sweepable(param)
	}
	props["model"] = model
	for _, k := range []string{"time", "min", "max", "mean", "median", "p99"} {
		props[k] = param
	}
	return obj{"type": "object", "additionalProperties": false, "required": []any{"model"}, "properties": props}
}

// strip removes Markdown links from a description meant for editors.
func strip(s string) string {
	for {
		i := strings.Index(s, "](#")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], ")")
		open := strings.LastIndex(s[:i], "[")
		if open < 0 || j < 0 {
			return s
		}
		s = s[:open] + s[open+1:i] + s[i+j+1:]
	}
}

// rateStep is the schema of one rate_schedule: item; top allows a repeat.
func rateStep(top bool) obj {
	rate := obj{"type": "number", "minimum": 0}
	props := obj{"duration": ref("duration"), "rate": rate, "from": rate, "to": rate, "target": rate, "spike": obj{"type": "boolean"}}
	if top {
		props["repeat"] = obj{"type": "integer", "minimum": 1}
		props["steps"] = obj{"type": "array", "minItems": 1, "items": rateStep(false)}
	}
	return obj{"type": "object", "additionalProperties": false, "properties": props}
}
