package runs

//go:generate go run gen_figures.go

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sharebench/sharebench/scenarios"
)

// Figure is one number a run reports, declared once (figures_table.go):
// every reader (console, summary.md, report.html, runs.csv, compare
// thresholds, expect:, recommend:, history, the generated docs) takes its
// names, unit and direction from here and reads it with Value.
type Figure struct {
	// Path is the figure's run.json path, dotted ("latency.completion_ms.p99"):
	// its name everywhere; the other names are aliases.
	Path string
	// Unit is what the number counts: "ms", "s", "records/s", "records",
	// "ratio", "%", "bytes", "count", "" for a yes/no.
	Unit string
	// Label names it for people: the console, summary.md and report.html
	// ("completion p99 ms").
	Label string
	// Column is its runs.csv column ("completion_p99_ms"); "" keeps it out
	// of runs.csv.
	Column string
	// Threshold is its name in compare thresholds ("completion_p99"); ""
	// keeps it out of `sharebench compare`.
	Threshold string
	// Aliases are other names it answers to (older spellings).
	Aliases []string
	// Better says which way the figure improves: compare and history call
	// a change the other way worse.
	Better Direction
	// Kind says how it prints: a quantity ("%.1f"), a count, a yes/no.
	Kind Kind
	// Console puts it in the side-by-side table of the console and
	// summary.md (after the table's own rows when the table does not place
	// it).
	Console bool
	// Doc is a short definition for docs/reference/figures.md; "" refers to the
	// section of docs/explanation/measurement.md its path belongs to.
	Doc string
	// Value reads it from a record; ok is false when the record has no such
	// figure (an absent block: no burst, no max-rate search, no dead-letter
	// read-back).
	Value func(r *Record) (v float64, ok bool)
}

// Direction is which way a figure gets better.
type Direction int8

// Directions; the zero value is refused, so every figure says its own.
const (
	directionUnset Direction = iota
	LowerIsBetter            // latencies, CPU, memory, lag, counts of trouble
	HigherIsBetter           // throughput, efficiency, capacity
)

func (d Direction) String() string {
	switch d {
	case LowerIsBetter:
		return "lower"
	case HigherIsBetter:
		return "higher"
	}
	return "unset"
}

// Kind is how a figure's number reads.
type Kind int8

// Kinds of figure.
const (
	Quantity Kind = iota // a measured amount: "%.1f" on the console, shortest float in CSV
	Count                // a whole number of things
	YesNo                // yes (1) or no (0)
)

// Names are every name the figure answers to, the path first.
func (f Figure) Names() []string {
	names := []string{f.Path}
	for _, n := range append([]string{f.Threshold, f.Column}, f.Aliases...) {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// Cell is the figure as the console and summary.md print it: "-" when
// the record has none.
func (f Figure) Cell(r *Record) string {
	v, ok := f.Value(r)
	switch {
	case !ok:
		return "-"
	case f.Kind == YesNo && v != 0:
		return "yes"
	case f.Kind == YesNo:
		return "NO"
	case f.Kind == Count:
		return fmt.Sprint(int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}

// CSV is the figure as runs.csv writes it: "" when the record has none.
func (f Figure) CSV(r *Record) string {
	v, ok := f.Value(r)
	switch {
	case !ok:
		return ""
	case f.Kind == YesNo:
		return fmt.Sprint(v != 0)
	case f.Kind == Count:
		return fmt.Sprint(int64(v))
	}
	return fmtFloat(v)
}

// registry is the ordered list of figures. Built-ins are added at init;
// RegisterFigure adds more (tests, extensions) before any reader runs.
var registry struct {
	sync.RWMutex
	list []Figure
}

func init() {
	for _, f := range builtinFigures() {
		if _, err := RegisterFigure(f); err != nil {
			panic(err) // a declaration error in figures_table.go; TestFigureRegistry names it
		}
	}
}

// Figures are the registered figures in registry order (the order of the
// docs and of the scenario vocabulary).
func Figures() []Figure {
	registry.RLock()
	defer registry.RUnlock()
	return slices.Clone(registry.list)
}

// RegisterFigure adds a figure at the end of the registry and returns the
// function that removes it again. A figure needs a path, a unit or the
// YesNo kind, a direction and a Value; none of its names may be a name of
// another figure, nor the last part of another figure's path (that short
// form would change meaning).
func RegisterFigure(f Figure) (remove func(), err error) {
	registry.Lock()
	defer registry.Unlock()
	if err := checkFigure(f, registry.list); err != nil {
		return nil, err
	}
	registry.list = append(registry.list, f)
	return func() {
		registry.Lock()
		defer registry.Unlock()
		registry.list = slices.DeleteFunc(registry.list, func(g Figure) bool { return g.Path == f.Path })
	}, nil
}

func checkFigure(f Figure, list []Figure) error {
	switch {
	case f.Path == "" || strings.Contains(f.Path, " "):
		return fmt.Errorf("figure %q: the path must be a dotted run.json path", f.Path)
	case f.Value == nil:
		return fmt.Errorf("figure %s: no Value", f.Path)
	case f.Better == directionUnset:
		return fmt.Errorf("figure %s: Better must be LowerIsBetter or HigherIsBetter", f.Path)
	case f.Unit == "" && f.Kind != YesNo:
		return fmt.Errorf("figure %s: no unit", f.Path)
	case f.Label == "":
		return fmt.Errorf("figure %s: no label", f.Path)
	}
	for _, g := range list {
		for _, n := range f.Names() {
			if slices.Contains(g.Names(), n) {
				return fmt.Errorf("figure %s: name %q is taken by %s", f.Path, n, g.Path)
			}
			if n != f.Path && strings.HasSuffix(g.Path, "."+n) {
				return fmt.Errorf("figure %s: alias %q is the short form of %s", f.Path, n, g.Path)
			}
		}
		for _, n := range g.Names()[1:] {
			if strings.HasSuffix(f.Path, "."+n) {
				return fmt.Errorf("figure %s: its short form %q is an alias of %s", f.Path, n, g.Path)
			}
		}
	}
	return nil
}

// FigureNames are the registry's names as the scenario vocabulary takes
// them (scenarios/figures_gen.go is generated from these).
func FigureNames() []scenarios.FigureName {
	figs := Figures()
	out := make([]scenarios.FigureName, len(figs))
	for i, f := range figs {
		out[i] = scenarios.FigureName{Path: f.Path, Unit: f.Unit, Aliases: f.Names()[1:]}
	}
	return out
}

// LookupFigure finds a figure by any of its names: the run.json path, an
// alias (threshold name, runs.csv column, older spelling) or the last part
// of the path when unique (scenarios.ResolveFigure's rule).
func LookupFigure(name string) (Figure, error) {
	path, err := scenarios.ResolveFigure(strings.TrimSpace(name), FigureNames())
	if err != nil {
		return Figure{}, err
	}
	for _, f := range Figures() {
		if f.Path == path {
			return f, nil
		}
	}
	return Figure{}, fmt.Errorf("figure %q: not registered", name) // removed meanwhile
}

// FieldValue reads a figure of a run by any of its names
// ("latency.completion_ms.p99", "completion_p99"; flags read as 0 or 1).
// ok is false for an unknown name or a figure the run lacks.
func FieldValue(r Record, name string) (float64, bool) {
	f, err := LookupFigure(name)
	if err != nil {
		return 0, false
	}
	return f.Value(&r)
}
