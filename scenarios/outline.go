package scenarios

import (
	"slices"

	"github.com/sharebench/sharebench/vocab"
)

// Outline is the scenario schema as plain data: the tables the loader
// checks files against, exported so that docs/reference/scenario-keys.md and the
// JSON Schema for editors are generated from the same source
// (internal/gendoc, run by go generate ./scenarios).
type Outline struct {
	// Knobs are the run knobs in RunSpec order.
	Knobs []KnobOutline
	// MetaKeys are the top-level keys that describe the scenario, not a run.
	MetaKeys []string
	// FileOnlyKeys are meta keys that neither the environment nor --set overrides.
	FileOnlyKeys []string
	// ProcessingModels lists the processing models in documentation order;
	// ModelParams gives each model's parameters.
	ProcessingModels []string
	ModelParams      map[string][]string
	// Event keys, actions and the named broker targets of broker actions.
	EventKeys     []string
	EventActions  []string
	BrokerTargets []string
	// Keys of the max_rate:, recommend: and expect: blocks.
	MaxRateKeys    []string
	RecommendKeys  []string
	DeadLetterKeys []string
	// RateStepKeys are the keys of a rate_schedule: item (the autoscale:
	// and destination: blocks are package blocks').
	RateStepKeys   []string
	ExpectItemKeys []string
	MeasureKeys    []string
	RatioKeys      []string
	SideKeys       []string
	RunsValues     []string
	// ClauseOps are the comparison operators of a recommend: where clause.
	ClauseOps []string
	// NamePattern, KafkaVersionPattern and BrokerHeapPattern are the
	// regular expressions name, kafka_version and broker_heap must match.
	NamePattern         string
	KafkaVersionPattern string
	BrokerHeapPattern   string
	// MaxRunsPerScenario caps matrix × repeat.
	MaxRunsPerScenario int
}

// KnobOutline is one run knob: its file key, the kind of value it takes
// (string, int, float, duration, size, processing, broker_config) and, for
// strings with a fixed set of values, that set.
type KnobOutline struct {
	Key  string
	Kind string
	Enum []string
}

// knobEnums are the values validate.go accepts for the string knobs that
// take one of a fixed set (TestOutlineEnums checks them against it).
// The typed knobs' sets are their types' own lists.
var knobEnums = map[string][]string{
	"consumer_type":   strs(vocab.GroupTypes),
	"client":          strs(vocab.Clients),
	"key_mode":        {"round-robin", "none", "random", "hashed"},
	"acks":            {"all", "leader", "none"},
	"acquire_mode":    strs(vocab.AcquireModes),
	"ack_mode":        strs(vocab.AckModes),
	"renew":           strs(vocab.Renews),
	"style":           strs(vocab.Styles),
	"load_mode":       strs(LoadModes),
	"group_protocol":  strs(vocab.GroupProtocols),
	"remote_assignor": {"uniform", "range"},
	"assignor":        {"cooperative-sticky", "sticky", "range", "roundrobin"},
	"commit":          strs(vocab.Commits),
}

// strs spells typed values as strings.
func strs[T ~string](vals []T) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = string(v)
	}
	return out
}

var kindNames = map[kind]string{
	kindString: "string", kindInt: "int", kindFloat: "float", kindDuration: "duration",
	kindSize: "size", kindProcessing: "processing", kindBrokerConfig: "broker_config",
	kindGroupConfig: "group_config",
	kindBool:        "bool", kindHotKeys: "hot_keys",
}

// SchemaOutline returns the scenario schema's tables.
func SchemaOutline() Outline {
	o := Outline{
		MetaKeys:            slices.Clone(metaKeys),
		FileOnlyKeys:        slices.Clone(fileOnlyKeys),
		ProcessingModels:    slices.Clone(processingModels),
		ModelParams:         map[string][]string{},
		EventKeys:           slices.Clone(eventKeys),
		EventActions:        slices.Clone(eventActions),
		BrokerTargets:       slices.Clone(brokerTargets),
		MaxRateKeys:         slices.Clone(maxRateKeys),
		RecommendKeys:       slices.Clone(recommendKeys),
		DeadLetterKeys:      slices.Clone(deadLetterKeys),
		RateStepKeys:        slices.Clone(rateStepKeys),
		ExpectItemKeys:      slices.Clone(expectItemKeys),
		MeasureKeys:         slices.Clone(measureKeys),
		RatioKeys:           slices.Clone(ratioKeys),
		SideKeys:            slices.Clone(sideKeys),
		RunsValues:          slices.Clone(runsValues),
		ClauseOps:           []string{"<=", "<", ">=", ">", "==", "!="},
		NamePattern:         nameRE.String(),
		KafkaVersionPattern: kafkaVersionRE.String(),
		BrokerHeapPattern:   brokerHeapRE.String(),
		MaxRunsPerScenario:  MaxRuns,
	}
	for m, p := range modelParams {
		o.ModelParams[m] = slices.Clone(p)
	}
	for _, k := range knobs {
		o.Knobs = append(o.Knobs, KnobOutline{Key: k.key, Kind: kindNames[k.kind], Enum: slices.Clone(knobEnums[k.key])})
	}
	return o
}
