package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// FigureName is what the scenario vocabulary knows of a run figure: its
// run.json path (the name every reader prints), its unit (a clause's
// duration converts to it) and the other names it answers to (the
// compare threshold name, the runs.csv column, older spellings).
//
// The figures themselves are declared once, in the figure registry of
// results/runs (figures_table.go), with their accessors; that package
// imports this one, so the list scenarios validates against is generated
// from the registry into figures_gen.go (go generate ./results/runs), and a
// test there fails when the two differ.
type FigureName struct {
	Path    string
	Unit    string
	Aliases []string
}

// ExpectFields is the vocabulary of expectation and recommendation fields:
// the run.json paths of the figure registry, in registry order. A field
// may also be written by another of its names (ResolveFigure).
func ExpectFields() []string {
	out := make([]string, len(figureNames))
	for i, f := range figureNames {
		out[i] = f.Path
	}
	return out
}

// ResolveFigure turns a figure's name as a user wrote it into its run.json
// path, trying in turn: the path itself ("latency.completion_ms.p99"), one
// of the figure's aliases ("completion_p99", "completion_p99_ms"), and the
// last part of a path when only one figure has it ("efficiency",
// "completed_per_sec", "lost"). The error says what was expected; names is
// the vocabulary (results/runs passes its live registry, scenarios its
// generated copy).
func ResolveFigure(name string, names []FigureName) (string, error) {
	var matches []string
	for _, f := range names {
		if f.Path == name || slices.Contains(f.Aliases, name) {
			return f.Path, nil
		}
		if strings.HasSuffix(f.Path, "."+name) {
			matches = append(matches, f.Path)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		all := make([]string, len(names))
		for i, f := range names {
			all[i] = f.Path
		}
		return "", fmt.Errorf("unknown field %q%s", name, suggestField(name, all))
	}
	return "", fmt.Errorf("field %q is ambiguous: write one of %s", name, strings.Join(matches, ", "))
}

// resolveField resolves a field against the generated vocabulary.
func resolveField(f string) (string, error) { return ResolveFigure(f, figureNames) }

// figureUnit is the unit of a resolved path ("" when unknown).
func figureUnit(path string) string {
	for _, f := range figureNames {
		if f.Path == path {
			return f.Unit
		}
	}
	return ""
}

// suggestField is suggest for fields, without listing the whole vocabulary.
func suggestField(f string, all []string) string {
	s := suggest(f, all)
	if strings.HasPrefix(s, " (valid keys:") {
		return " (expected a run.json path like throughput.completed_per_sec, latency.completion_ms.p99, " +
			"ceiling.efficiency, audit.lost, outcomes.redelivered or polls.empty_ratio; see docs/reference/figures.md)"
	}
	return s
}
