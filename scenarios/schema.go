package scenarios

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// kind is the type of value a scenario key holds.
type kind int

const (
	kindString       kind = iota // free text or one of a fixed set
	kindInt                      // a YAML integer
	kindFloat                    // a YAML number
	kindDuration                 // a Go duration string: "250ms", "30s", "2m"
	kindSize                     // bytes: an integer or "1KiB", "16KiB", "1MiB"
	kindProcessing               // a processing model map, or a list of them
	kindBrokerConfig             // a map of Kafka broker settings
	kindGroupConfig              // a map of share-group settings (groupconfig.go)
	kindBool                     // true or false
	kindHotKeys                  // {share: 0.2, keys: 3}, or a list of them
)

// knob is one run knob of the scenario schema. The order of knobs is the
// order of RunSpec's fields; keys a file leaves out join the expansion order
// after the file's own keys, in this order.
type knob struct {
	key   string
	kind  kind
	short string // prefix of the value in run names; "" means value only
}

var knobs = []knob{
	{"consumer_type", kindString, ""},
	{"client", kindString, ""},
	{"partitions", kindInt, "p"},
	{"producers", kindInt, "prod"},
	{"rate", kindFloat, "rate"},
	{"message_size", kindSize, "size"},
	{"key_mode", kindString, "key-"},
	{"acks", kindString, "acks-"},
	{"linger", kindDuration, "linger"},
	{"batch_size", kindSize, "batch"},
	{"members", kindInt, "m"},
	{"workers", kindInt, "w"},
	{"max_poll_records", kindInt, "mpr"},
	{"acquire_mode", kindString, ""},
	{"ack_mode", kindString, "ack-"},
	{"renew", kindString, "renew-"},
	{"style", kindString, ""},
	{"max_in_flight", kindInt, "inflight"},
	{"processing", kindProcessing, ""},
	{"transient_rate", kindFloat, "transient"},
	{"poison_rate", kindFloat, "poison"},
	{"stuck_rate", kindFloat, "stuck"},
	{"warmup", kindDuration, "warmup"},
	{"duration", kindDuration, "dur"},
	{"drain_timeout", kindDuration, "drain"},
	{"load_mode", kindString, ""},
	{"backlog_records", kindInt, "backlog"},
	{"nodes", kindInt, "n"},
	{"kafka_version", kindString, "kafka"},
	{"broker_heap", kindString, "heap"},
	{"broker_metrics_interval", kindDuration, "bmi"},
	{"broker_config", kindBrokerConfig, ""},
	{"prefetch", kindString, "prefetch-"},
	{"fetch_max_bytes", kindSize, "fmb"},
	{"fetch_max_partition_bytes", kindSize, "fmpb"},
	{"fetch_max_wait", kindDuration, "fmw"},
	{"fetch_min_bytes", kindSize, "fminb"},
	{"group_config", kindGroupConfig, ""},
	{"group_protocol", kindString, "proto-"},
	{"remote_assignor", kindString, "ra-"},
	{"assignor", kindString, ""},
	{"static_membership", kindBool, "static-"},
	{"commit", kindString, "commit-"},
	{"auto_commit_interval", kindDuration, "aci"},
	{"session_timeout", kindDuration, "st"},
	{"rebalance_timeout", kindDuration, "rt"},
	{"keys", kindInt, "keys"},
	{"hot_keys", kindHotKeys, "hot"},
	{"partition_skew", kindFloat, "zipf"},
	{"shards", kindInt, "shards"},
}

// metaKeys are the top-level keys that describe the scenario rather than a run.
var metaKeys = []string{"name", "description", "repeat", "repeat_order", "repeat_seed", "jit_warmup", "sweep", "expect", "events", "max_rate", "recommend", "dead_letter", "rate_schedule", "autoscale", "destination"}

// fileOnlyKeys are meta keys written in the scenario file only: neither the
// environment nor --set overrides them.
var fileOnlyKeys = []string{"sweep", "expect", "events", "max_rate", "recommend", "dead_letter", "rate_schedule", "autoscale", "destination"}

// processingKeys are the keys of a processing model map, and the short
// prefixes used for them in run names.
var processingKeys = []string{"model", "time", "min", "max", "mean", "median", "p99"}

var processingShort = map[string]string{
	"model": "", "time": "t", "min": "min", "max": "max",
	"mean": "mean", "median": "med", "p99": "p99-",
}

// modelParams lists the parameters each processing model takes.
var modelParams = map[string][]string{
	"none":        nil,
	"constant":    {"time"},
	"uniform":     {"min", "max"},
	"exponential": {"mean"},
	"lognormal":   {"median", "p99"},
}

// processingModels is modelParams' keys in documentation order.
var processingModels = []string{"none", "constant", "uniform", "exponential", "lognormal"}

// knobByKey returns the knob with the given top-level key.
func knobByKey(key string) (knob, bool) {
	for _, k := range knobs {
		if k.key == key {
			return k, true
		}
	}
	return knob{}, false
}

// topLevelKeys lists every valid top-level key: meta keys, then knobs.
func topLevelKeys() []string {
	keys := slices.Clone(metaKeys)
	for _, k := range knobs {
		keys = append(keys, k.key)
	}
	return keys
}

// overrideKeys lists the keys --set accepts, for suggestions.
func overrideKeys() []string {
	keys := topLevelKeys()
	for _, p := range processingKeys {
		keys = append(keys, "processing."+p)
	}
	return append(keys, "sweep.together", "broker_config.<kafka broker setting>", "group_config.<share group setting>")
}

// suggest returns a hint for an unknown key: the nearest valid keys, or the
// whole list when none is near.
func suggest(key string, valid []string) string {
	type cand struct {
		key  string
		dist int
	}
	var near []cand
	limit := max(2, len(key)/3)
	for _, v := range valid {
		d := editDistance(key, v)
		if d <= limit || (len(key) >= 4 && strings.Contains(v, key)) {
			near = append(near, cand{v, d})
		}
	}
	if len(near) == 0 {
		return fmt.Sprintf(" (valid keys: %s)", strings.Join(valid, ", "))
	}
	sort.SliceStable(near, func(i, j int) bool { return near[i].dist < near[j].dist })
	var quoted []string
	for i, c := range near {
		if i == 3 {
			break
		}
		quoted = append(quoted, fmt.Sprintf("%q", c.key))
	}
	return fmt.Sprintf(" (did you mean %s?)", strings.Join(quoted, " or "))
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
