package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// builtinFS holds the built-in catalog: one scenario per file, named after
// the file without .yaml.
//
//go:embed builtin/*.yaml
var builtinFS embed.FS

// BuiltinPrefix marks a built-in scenario in Scenario.Source and in Open's
// reference argument: "builtin:partition-cap".
const BuiltinPrefix = "builtin:"

// BuiltinNames lists the built-in scenarios, sorted.
func BuiltinNames() []string {
	entries, _ := fs.ReadDir(builtinFS, "builtin")
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, n)
		}
	}
	return names
}

// BuiltinSource is the YAML text of a built-in scenario, for showing users.
func BuiltinSource(name string) ([]byte, error) {
	data, err := builtinFS.ReadFile(path.Join("builtin", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("unknown built-in scenario %q (built-in scenarios: %s; for a file, give its path)",
			name, strings.Join(BuiltinNames(), ", "))
	}
	return data, nil
}

// Builtin loads a built-in scenario as written, without environment or
// --set overrides.
func Builtin(name string) (*Scenario, error) {
	return BuiltinWith(name, nil, nil)
}

// BuiltinWith loads a built-in scenario with SHAREBENCH_* variables from env
// and --set overrides applied, as Load does for a file.
func BuiltinWith(name string, env, sets []string) (*Scenario, error) {
	data, err := BuiltinSource(name)
	if err != nil {
		return nil, err
	}
	return LoadBytes(BuiltinPrefix+name, data, env, sets)
}

// Open loads a scenario by reference: "builtin:<name>", a path to a YAML
// file, or the bare name of a built-in scenario when no such file exists.
func Open(ref string, env, sets []string) (*Scenario, error) {
	if name, ok := strings.CutPrefix(ref, BuiltinPrefix); ok {
		return BuiltinWith(name, env, sets)
	}
	if _, err := os.Stat(ref); err != nil && !strings.ContainsAny(ref, `/\`) && !strings.HasSuffix(ref, ".yaml") {
		return BuiltinWith(ref, env, sets)
	}
	return Load(ref, env, sets)
}
