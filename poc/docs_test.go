package poc_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/internal/gendoc"
	"github.com/sharebench/sharebench/poc"
)

// TestGeneratedDocsUpToDate regenerates the profile's reference and JSON
// Schema and compares them with the committed files, so a field comment,
// default or key changed without go generate ./poc fails here.
func TestGeneratedDocsUpToDate(t *testing.T) {
	for _, c := range []struct {
		path string
		gen  func(string) ([]byte, error)
	}{{gendoc.ProfileReferencePath, gendoc.ProfileReference}, {gendoc.ProfileSchemaPath, gendoc.ProfileSchema}} {
		want, err := c.gen(".")
		if err != nil {
			t.Fatalf("generate %s: %v", c.path, err)
		}
		got, err := os.ReadFile(filepath.Join("..", c.path))
		if err != nil {
			t.Fatalf("%v: run go generate ./poc", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./poc (or make docs)", c.path)
		}
	}
}

// TestProfileSchema: the schema accepts a profile the loader accepts and
// refuses an unknown key and a wrong enum, as the loader does.
func TestProfileSchema(t *testing.T) {
	f, err := os.Open(filepath.Join("..", gendoc.ProfileSchemaPath))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("poc-profile.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("poc-profile.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	const good = `name: orders
steady_rate: 1000
peak_rate: 3000
peak_for: 2m
processing: {model: lognormal, median: 10ms, p99: 50ms}
partitions: 4
record_bytes: 4KiB
restrictions: {framework: spring, platform: apache, kafka_version: 4.2.2, retention_bytes: 10GiB}
poison_rate: 0.001
destination: {write_time: 5ms, capacity: 2500}
budget: 15m
`
	validate := func(body string) error {
		var v any
		if err := yaml.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		j, _ := json.Marshal(v)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
		if err != nil {
			t.Fatal(err)
		}
		return schema.Validate(inst)
	}
	if _, err := poc.ParseProfile("good.yaml", []byte(good)); err != nil {
		t.Fatalf("the loader refuses the example: %v", err)
	}
	if err := validate(good); err != nil {
		t.Errorf("the schema refuses a good profile: %v", err)
	}
	for _, bad := range []string{good + "steady_rte: 5\n", strings.Replace(good, "framework: spring", "framework: flink", 1), "steady_rate: 1\n"} {
		if validate(bad) == nil {
			t.Errorf("the schema accepts %q", bad)
		}
		if _, err := poc.ParseProfile("bad.yaml", []byte(bad)); err == nil {
			t.Errorf("the loader accepts %q", bad)
		}
	}
}
