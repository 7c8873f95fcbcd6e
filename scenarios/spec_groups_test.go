package scenarios

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// RunSpec's groups of fields are Go's only: each is embedded with
// mapstructure squash and no JSON name, so the scenario file and run.json
// keep every knob at the top level; every knob of the outline is a field
// found through them. (The outline's order is the expansion order and the
// struct's the JSON order; they differ at group_config, which run.json
// writes after broker_config.)
func TestRunSpecGroupsAreFlat(t *testing.T) {
	var keys []string
	var walk func(rt reflect.Type)
	walk = func(rt reflect.Type) {
		for i := range rt.NumField() {
			f := rt.Field(i)
			if f.Anonymous {
				if got := f.Tag.Get("mapstructure"); got != ",squash" || f.Tag.Get("json") != "" {
					t.Errorf("RunSpec.%s: embedded with mapstructure %q json %q, want mapstructure \",squash\" and no json tag",
						f.Name, got, f.Tag.Get("json"))
				}
				walk(f.Type)
				continue
			}
			if k := f.Tag.Get("mapstructure"); k != "-" {
				keys = append(keys, k)
			}
		}
	}
	walk(reflect.TypeFor[RunSpec]())
	var knobKeys []string
	for _, k := range knobs {
		knobKeys = append(knobKeys, k.key)
	}
	slices.Sort(keys)
	slices.Sort(knobKeys)
	if !slices.Equal(keys, knobKeys) {
		t.Errorf("RunSpec's file keys, groups included:\n %v\nwant the outline's knobs:\n %v", keys, knobKeys)
	}
}

// A run travels to agents as JSON (sharded runs) and is read back from
// run.json: every built-in run decodes, groups and all, into a RunSpec
// that writes the same JSON, and that is the run (empty maps and lists
// aside, which JSON omits).
func TestRunSpecJSONRoundTrip(t *testing.T) {
	for _, name := range BuiltinNames() {
		sc, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range sc.Runs {
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var back RunSpec
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			again, err := json.Marshal(back)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(b) {
				t.Errorf("%s %s: JSON round trip changed the run:\n got %s\nwant %s", name, sc.RunName(i), again, b)
			}
			if back.Rate != r.Rate || back.Members != r.Members || back.LoadMode != r.LoadMode || back.FetchMaxWait != r.FetchMaxWait ||
				back.Commit != r.Commit || back.KafkaVersion != r.KafkaVersion || back.HotKeys != r.HotKeys || !reflect.DeepEqual(back.MaxRate, r.MaxRate) {
				t.Errorf("%s %s: a grouped field did not come back: %+v", name, sc.RunName(i), back)
			}
		}
	}
}

// Value reads a knob inside a group like one at the top level.
func TestValueThroughGroups(t *testing.T) {
	r := mustLoad(t, "name: x\nrate: 250.5\nmembers: 7\nfetch_max_wait: 2s\nstatic_membership: true\nload_mode: backlog\nbacklog_records: 9\nkeys: 0\n", nil, nil).Runs[0]
	for key, want := range map[string]string{
		"rate": "250.5", "members": "7", "fetch_max_wait": "2s", "static_membership": "true",
		"load_mode": "backlog", "backlog_records": "9", "consumer_type": "consumer", "partitions": "4", "shards": "1",
		"hot_keys": "none", "hot_keys.share": "0", "no_such_key": "",
	} {
		if got := r.Value(key); got != want {
			t.Errorf("Value(%q) = %q, want %q", key, got, want)
		}
	}
}
