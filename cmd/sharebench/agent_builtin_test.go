package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/sharebench/sharebench/scenarios"
)

// A sharded campaign of a built-in scenario hands its agents a file with
// the built-in's exact source (the k8s launcher puts it in the ConfigMap).
func TestBuiltinScenarioFile(t *testing.T) {
	path, err := builtinScenarioFile("partition-cap")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := scenarios.BuiltinSource("partition-cap")
	if !bytes.Equal(got, want) {
		t.Fatalf("%s holds %d bytes, want the built-in's %d", path, len(got), len(want))
	}
	again, err := builtinScenarioFile("partition-cap")
	if err != nil || again != path {
		t.Fatalf("second call: %q, %v; want the same file %q", again, err, path)
	}
	if _, err := builtinScenarioFile("no-such-scenario"); err == nil {
		t.Fatal("an unknown built-in gave a file")
	}
	f := runFlags{scenario: "partition-cap"}
	f.dist.Distribute = "local"
	o, err := f.shardOptions(true)
	if err != nil || o.ScenarioFile != path || o.HashFile != path {
		t.Fatalf("shardOptions: %+v, %v; want scenario and hash file %s", o, err, path)
	}
}
