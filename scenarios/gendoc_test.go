package scenarios_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/internal/gendoc"
	"github.com/sharebench/sharebench/scenarios"
)

// TestGeneratedDocsUpToDate regenerates docs/reference/scenario-keys.md and
// docs/reference/scenario.schema.json in memory and compares them with the
// committed files, so a RunSpec comment, default or key changed without
// regenerating fails here.
func TestGeneratedDocsUpToDate(t *testing.T) {
	for _, c := range []struct {
		path string
		gen  func(string) ([]byte, error)
	}{
		{gendoc.ReferencePath, gendoc.Reference},
		{gendoc.SchemaPath, gendoc.Schema},
	} {
		want, err := c.gen(".")
		if err != nil {
			t.Fatalf("generate %s: %v", c.path, err)
		}
		got, err := os.ReadFile(filepath.Join("..", c.path))
		if err != nil {
			t.Fatalf("%v: run go generate ./scenarios", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./scenarios (first difference at line %d)", c.path, firstDiffLine(got, want))
		}
	}
}

func firstDiffLine(a, b []byte) int {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

// compileSchema compiles the committed JSON Schema.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("..", gendoc.SchemaPath))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("scenario.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// instance turns a scenario's YAML into the JSON value the schema checks,
// as an editor's YAML language server does.
func instance(t *testing.T, name string, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return inst
}

// TestScenarioFilesMatchSchema validates every built-in and example
// scenario against the generated JSON Schema: the schema an editor uses
// must accept every file the loader accepts.
func TestScenarioFilesMatchSchema(t *testing.T) {
	schema := compileSchema(t)
	files := map[string][]byte{}
	for _, name := range scenarios.BuiltinNames() {
		data, err := scenarios.BuiltinSource(name)
		if err != nil {
			t.Fatal(err)
		}
		files["builtin/"+name+".yaml"] = data
	}
	examples, err := filepath.Glob("examples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range examples {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = data
	}
	if len(files) < 10 {
		t.Fatalf("found %d scenario files; expected the built-ins and examples", len(files))
	}
	for name, data := range files {
		if _, err := scenarios.LoadBytes(name, data, nil, nil); err != nil {
			t.Errorf("%s: the loader refuses it: %v", name, err)
			continue
		}
		if err := schema.Validate(instance(t, name, data)); err != nil {
			t.Errorf("%s does not match %s: %v", name, gendoc.SchemaPath, err)
		}
	}
}

// TestSchemaRejects checks that the schema catches the mistakes an editor
// should underline, the same ones the loader refuses.
func TestSchemaRejects(t *testing.T) {
	schema := compileSchema(t)
	for _, c := range []struct{ name, yaml string }{
		{"no name", "partitions: 4\n"},
		{"unknown key", "name: x\nmax_pol_records: 10\n"},
		{"bad enum", "name: x\nconsumer_type: queue\n"},
		{"bad enum in a sweep", "name: x\nack_mode: [explicit, lazy]\n"},
		{"empty sweep", "name: x\nmembers: []\n"},
		{"not a duration", "name: x\nwarmup: 5 seconds\n"},
		{"not a size", "name: x\nmessage_size: 1 pint\n"},
		{"processing key", "name: x\nprocessing: {model: constant, tme: 10ms}\n"},
		{"processing model", "name: x\nprocessing: {model: gaussian}\n"},
		{"event action", "name: x\nevents: [{at: 1s, action: explode}]\n"},
		{"event without at", "name: x\nevents: [{action: join}]\n"},
		{"expect with both", "name: x\nexpect: [{name: y, measure: {field: lost, max: 0}, ratio: {measure: lost, numerator: share, denominator: consumer, max: 1}}]\n"},
		{"expect without bound", "name: x\nexpect: [{name: y, measure: {field: lost}}]\n"},
		{"max_rate step and factor", "name: x\nmax_rate: {start: 1, step: 1, factor: 2, max: 5}\n"},
		{"recommend clause", "name: x\nrecommend: {knob: members, where: [\"p99 about 5\"]}\n"},
		{"broker_config upper case", "name: x\nbroker_config: {Group.Share.Max.Size: 5}\n"},
	} {
		if err := schema.Validate(instance(t, c.name, []byte(c.yaml))); err == nil {
			t.Errorf("%s: the schema accepts %q", c.name, c.yaml)
		}
		if _, err := scenarios.LoadBytes(c.name, []byte(c.yaml), nil, nil); err == nil {
			t.Errorf("%s: the loader accepts %q, so the schema should not refuse it", c.name, c.yaml)
		}
	}
}

// TestOutlineEnums checks the value sets SchemaOutline gives the string
// knobs against the loader's own validation messages.
func TestOutlineEnums(t *testing.T) {
	re := regexp.MustCompile(`expected one of (.*), got "bogus"`)
	for _, k := range scenarios.SchemaOutline().Knobs {
		if len(k.Enum) == 0 {
			continue
		}
		_, err := scenarios.LoadBytes("x.yaml", []byte("name: x\n"+k.Key+": bogus\n"), nil, nil)
		if err == nil {
			t.Errorf("%s: bogus accepted", k.Key)
			continue
		}
		m := re.FindStringSubmatch(err.Error())
		if m == nil {
			t.Errorf("%s: no list of values in %v", k.Key, err)
			continue
		}
		loader := strings.Split(m[1], ", ")
		outline := slices.Clone(k.Enum)
		slices.Sort(loader)
		slices.Sort(outline)
		if !slices.Equal(loader, outline) {
			t.Errorf("%s: the outline says %v, the loader %v", k.Key, outline, loader)
		}
	}
}
