package scenarios

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/builtin-runspecs.golden.json")

// Every built-in's runs marshal to the JSON that run.json's spec holds,
// byte for byte as recorded: a change of a key, its spelling, its order or
// its omission rule shows here. (Regenerate with go test -run
// TestRunSpecJSONGolden ./scenarios/ -args -update, only when run.json is
// meant to change.)
func TestRunSpecJSONGolden(t *testing.T) {
	var buf bytes.Buffer
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
			buf.WriteString(name + " " + sc.RunName(i) + " ")
			buf.Write(b)
			buf.WriteByte('\n')
		}
	}
	path := filepath.Join("testdata", "builtin-runspecs.golden.json")
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		got, wantLines := bytes.Split(buf.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := range min(len(got), len(wantLines)) {
			if !bytes.Equal(got[i], wantLines[i]) {
				t.Fatalf("line %d:\n got %s\nwant %s", i+1, got[i], wantLines[i])
			}
		}
		t.Fatalf("%d lines, want %d", len(got), len(wantLines))
	}
}
