package gendoc

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/sharebench/sharebench/scenarios"
)

// metaDocs describe the top-level keys that are not run knobs. They have no
// RunSpec field to carry a comment, so their entries live here.
var metaDocs = map[string]string{
	"name":          "Required. Names the scenario and its results folder. Letters, digits, `.`, `_` and `-`, starting with a letter or digit.",
	"description":   "Optional free text: the question the campaign asks. Reports print it above the results.",
	"repeat":        "Trials of every run, an integer ≥ 1 [1]. `compare` decides on the trials of one spec as a distribution (medians, spread and a Mann-Whitney test; see docs/how-to/gate-ci.md).",
	"repeat_order":  "How the runs are ordered within each trial when `repeat` > 1: `alternate` [default] runs trial 0 in matrix order, trial 1 in reverse, and so on, so that each arm of a two-arm comparison goes first (on the brokers the previous arm left behind) as often as the other with an even repeat, and the order stays reproducible; `same` replays the matrix in the same order every trial; `shuffle` draws each trial's order at random from `repeat_seed`. Trials stay in sequence (trial 0's runs, then trial 1's).",
	"repeat_seed":   "The seed of `repeat_order: shuffle`, an integer ≥ 1 [drawn at random and recorded in campaign.json's scenario, so a campaign can be replayed in the same order].",
	"jit_warmup":    "The bound of the brokers' JIT warm-up before the first run, a duration: 0 (none) or from 10s to 10m [20s]. The warm-up sends the runs' request pattern (a paced producer, a consumer group committing every poll, a share group acknowledging every record) and ends sooner once the brokers' JIT compile rate settles. A campaign that compares broker cost per record between arms wants it long (`overhead-parity` sets 90s): on a small host the broker's compiler takes minutes to catch up with a new load, and an arm run before it has is charged for the compiling. `--jit-warmup=false` skips it whatever the file says. See docs/explanation/measurement.md, \"Phases of a run\".",
	"sweep":         "A map with one key, `together`: a list of key groups like `[[members, workers]]`. The lists of one group advance in step instead of forming a cross product; they need equal lengths.",
	"expect":        "A list of claims checked after the campaign. See [expect](#expect).",
	"events":        "A list of events inside the measurement window, the same in every run. See [events](#events).",
	"max_rate":      "The step schedule of `load_mode: max_rate`. See [max_rate](#max_rate).",
	"recommend":     "Which value of a swept knob is best under constraints. See [recommend](#recommend).",
	"dead_letter":   "The share group's dead-letter queue (Kafka 4.4+, KIP-1191). See [dead_letter](#dead_letter).",
	"rate_schedule": "The producers' rate over the measurement window (steps, ramps, spikes, repeats), replacing `rate`. See [rate_schedule](#rate_schedule).",
	"autoscale":     "A scaler inside the run that adds and removes members from the lag. See [autoscale](#autoscale).",
	"destination":   "Where the workers write each completed record before acknowledging it (PostgreSQL), read back and audited. See [destination](#destination).",
}

// kindDocs say what value each kind of knob takes.
var kindDocs = map[string]string{
	"string":        "text",
	"int":           "integer",
	"float":         "number",
	"duration":      "Go duration (`250ms`, `30s`, `2m`; a bare `0` is allowed)",
	"size":          "bytes: an integer, or a size like `16KiB`, `1MiB`, `4kB`",
	"processing":    "a processing model map, or a list of them (see [Processing models](#processing-models))",
	"broker_config": "a map of Kafka broker settings to values",
	"group_config":  "a map of share-group settings (GROUP configs) to values",
	"bool":          "`true` or `false`",
	"hot_keys":      "a map `{share: 0.2, keys: 3}` (share in [0, 1], keys ≥ 0; either may be a list), or a list of such maps",
}

func kindText(k scenarios.KnobOutline) string {
	if len(k.Enum) > 0 {
		return "one of " + codeList(k.Enum)
	}
	return kindDocs[k.Kind]
}

func codeList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "`" + v + "`"
	}
	return strings.Join(q, ", ")
}

// Reference renders docs/reference/scenario-keys.md from the scenarios package in dir.
func Reference(dir string) ([]byte, error) {
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
	bsrc, err := loadBlocks(dir)
	if err != nil {
		return nil, err
	}
	o := scenarios.SchemaOutline()
	defaults := scenarios.Defaults()
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	md := func(comment string) {
		pr := src.pkg.Printer()
		pr.HeadingLevel = 4
		b.Write(pr.Markdown(src.pkg.Parser().Parse(comment)))
		p("\n")
	}

	// block writes the section of a block declared in package blocks.
	block := func(name string) error {
		for _, t := range blockTypes {
			if t.key != name {
				continue
			}
			p("## %s\n\n", name)
			b.Write(bsrc.pkg.Printer().Markdown(bsrc.pkg.Parser().Parse(bsrc.typeDoc(t.typ))))
			table, err := blockTable(bsrc, t.typ, t.keys)
			p("\n%s\n", table)
			return err
		}
		return fmt.Errorf("no block %s", name)
	}

	p("<!-- Code generated by go generate ./scenarios (internal/gendoc); DO NOT EDIT. -->\n\n")
	p("# Scenario reference\n\n")
	p("This page lists every key of a scenario file. It is generated from the Go source of package\n")
	p("`scenarios`: the doc comments of `RunSpec`, `Event`, `MaxRate`, `Recommend` and the expectation\n")
	p("types, and the defaults of `scenarios.Defaults()`. To change it, edit those comments and run\n")
	p("`go generate ./scenarios`; the `autoscale:` and `destination:` blocks, with their defaults and\n")
	p("bounds, come from package `blocks`, where each is declared once. A test fails when this page or\n")
	p("the JSON Schema is stale.\n\n")
	p("How to write a scenario, with examples, is in [Writing scenarios](../how-to/write-a-scenario.md).\n")
	p("Editors can complete and check scenario files with the JSON Schema\n")
	p("[scenario.schema.json](scenario.schema.json), generated from the same source.\n\n")

	p("## Top-level keys\n\n")
	p("A scenario file is a YAML map. Unknown keys are errors. Besides the run knobs below it has:\n\n")
	p("| key | meaning | `--set` / environment |\n|---|---|---|\n")
	for _, k := range o.MetaKeys {
		over := "yes"
		if slices.Contains(o.FileOnlyKeys, k) {
			over = "no: file only"
		}
		p("| `%s` | %s | %s |\n", k, metaDocs[k], over)
	}
	p("\n")

	p("## Run knobs\n\n")
	p("Every run knob takes one value, or a list of values to sweep it: the campaign runs the cross\n")
	p("product of all lists (see `sweep.together` above for lists that advance in step). A knob the\n")
	p("file leaves out takes its default. `SHAREBENCH_<KEY>` environment variables and\n")
	p("`--set key=value` override the file (later wins).\n\n")
	p("| key | value | default |\n|---|---|---|\n")
	for _, k := range o.Knobs {
		p("| [`%s`](#%s) | %s | `%s` |\n", k.Key, k.Key, kindText(k), flow(defaults[k.Key]))
	}
	p("\n")
	for _, k := range o.Knobs {
		p("### %s\n\n", k.Key)
		p("Value: %s. Default: `%s: %s`.\n\n", kindText(k), k.Key, flow(defaults[k.Key]))
		p("%s\n\n", prose(knobDocs[k.Key]))
	}

	p("## Processing models\n\n")
	md(src.typeDoc("Processing"))
	p("| model | parameters |\n|---|---|\n")
	for _, m := range o.ProcessingModels {
		params := "none"
		if ps := o.ModelParams[m]; len(ps) > 0 {
			params = codeList(ps)
		}
		p("| `%s` | %s |\n", m, params)
	}
	p("\n")

	p("## events\n\n")
	md(src.typeDoc("Event"))
	p("| key | meaning |\n|---|---|\n")
	for _, f := range events {
		p("| `%s` | %s |\n", f.key, prose(f))
	}
	p("\nActions: %s. Named brokers: %s, or a node id 1..`nodes`.\n\n",
		codeList(o.EventActions), codeList(o.BrokerTargets))

	p("## max_rate\n\n")
	md(src.typeDoc("MaxRate"))
	p("Keys: %s. At most %d steps.\n\n", codeList(o.MaxRateKeys), scenarios.MaxRateSteps)

	p("## rate_schedule\n\n")
	md(src.typeDoc("RateStep"))
	p("Item keys: %s. Each item is a step `{duration: 20s, rate: 200}` (`spike: true` marks the spike), a ramp `{duration: 10s, from: 200, to: 1000}`, "+
		"a k6 stage `{duration: 30s, target: 500}` (a ramp from the previous rate), or `{repeat: 3, steps: [...]}`. "+
		"The schedule starts with the measurement window; the warm-up runs at its first rate, and after its last step the last rate holds. "+
		"load_mode rate only; see [Autoscaling](../how-to/test-autoscaling.md).\n\n", codeList(o.RateStepKeys))

	if err := block("autoscale"); err != nil {
		return nil, err
	}

	p("## dead_letter\n\n")
	md(src.typeDoc("DeadLetter"))
	p("Keys: %s.\n\n", codeList(o.DeadLetterKeys))

	if err := block("destination"); err != nil {
		return nil, err
	}
	p("`dsn` may be given by `--destination-dsn` instead (see [Destinations](../how-to/test-a-destination.md)).\n\n")

	p("## recommend\n\n")
	md(src.typeDoc("Recommend"))
	md(src.typeDoc("Clause"))
	p("Keys: %s. Operators: %s.\n\n", codeList(o.RecommendKeys), codeList(o.ClauseOps))

	p("## expect\n\n")
	for _, t := range []string{"Expectation", "MeasureClaim", "RatioClaim", "RunSelector", "Bounds"} {
		md(src.typeDoc(t))
	}
	p("| block | keys |\n|---|---|\n")
	p("| an `expect:` item | %s |\n", codeList(o.ExpectItemKeys))
	p("| `measure:` | %s |\n", codeList(o.MeasureKeys))
	p("| `ratio:` | %s |\n", codeList(o.RatioKeys))
	p("| a ratio side given as a map | %s |\n", codeList(o.SideKeys))
	p("| `runs:` values | %s |\n\n", codeList(o.RunsValues))

	p("### Fields\n\n")
	p("The fields `expect:` and `recommend:` accept: dotted paths into run.json, another name of the\n")
	p("figure (its compare threshold name or runs.csv column: `completion_p99`, `completion_p99_ms`), or\n")
	p("the last part of a path when it is unique (`efficiency`, `lost`, `completed_per_sec`). The list\n")
	p("comes from the figure registry; [Figures](figures.md) gives every name, unit and direction, and\n")
	p("[Measurement](../explanation/measurement.md) the definitions.\n\n")
	group := ""
	for _, f := range scenarios.ExpectFields() {
		i := strings.LastIndex(f, ".")
		prefix, leaf := f[:i+1], f[i+1:]
		if prefix != group {
			if group != "" {
				p("\n")
			}
			group = prefix
			p("- `%s`:", prefix)
		} else {
			p(",")
		}
		p(" `%s`", leaf)
	}
	p("\n\nA scenario expands to at most %d runs (matrix × repeat).\n", o.MaxRunsPerScenario)
	return append(bytes.TrimRight(b.Bytes(), "\n\t "), '\n'), nil
}
