package scenarios

import (
	"fmt"
	"slices"
)

// LabelledScenario is one part of a joined scenario: a scenario file's
// contents, the name it is known by in errors (its Source), and the label
// its runs carry (RunSpec.Label).
type LabelledScenario struct {
	Label string
	Name  string
	YAML  []byte
}

// Join builds one scenario from several: each part is loaded like a file
// (LoadBytes, no environment and no --set: every part is validated as its
// own scenario), its runs get its Label, and the runs are concatenated in
// part order. The joined scenario keeps what run names need: the union of
// the parts' Dimensions (first seen first), the largest repeat (a "-t"
// suffix once any part repeats) and the largest jit_warmup (one warm-up
// bounds the campaign's first run). name replaces the parts' names. A part
// with expect: is refused (its claims would select the other parts' runs
// too), and so is a second part with recommend:. Labels must be non-empty,
// unique and file-name safe ([A-Za-z0-9._-]).
func Join(name string, parts []LabelledScenario) (*Scenario, error) {
	if !nameRE.MatchString(name) || len(name) > MaxNameLen {
		return nil, fmt.Errorf("join: name %q: use 1 to %d letters, digits, '.', '_' and '-'", name, MaxNameLen)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("join %s: no parts", name)
	}
	out := &Scenario{Name: name, Source: name, Repeat: 1}
	seen := map[string]bool{}
	for i, p := range parts {
		switch {
		case p.Label == "" || fsSafe(p.Label) != p.Label:
			return nil, fmt.Errorf("join %s: part %d (%s): label %q: use letters, digits, '.', '_' and '-' only", name, i+1, p.Name, p.Label)
		case seen[p.Label]:
			return nil, fmt.Errorf("join %s: part %d (%s): label %q: already used by an earlier part", name, i+1, p.Name, p.Label)
		}
		seen[p.Label] = true
		sc, err := LoadBytes(p.Name, p.YAML, nil, nil)
		if err != nil {
			return nil, err
		}
		switch {
		case len(sc.Expectations) > 0:
			return nil, fmt.Errorf("%s: expect: a joined scenario's claims would select the other parts' runs too; check them on the part alone", p.Name)
		case sc.Recommend != nil && out.Recommend != nil:
			return nil, fmt.Errorf("%s: recommend: only one part of a joined scenario may ask for a recommendation", p.Name)
		case len(out.Runs)+len(sc.Runs) > MaxRuns:
			return nil, fmt.Errorf("join %s: more than %d runs", name, MaxRuns)
		}
		if sc.Recommend != nil {
			out.Recommend = sc.Recommend
		}
		if i == 0 {
			out.RepeatOrder, out.RepeatSeed = sc.RepeatOrder, sc.RepeatSeed
		}
		out.Repeat = max(out.Repeat, sc.Repeat)
		out.JITWarmup = max(out.JITWarmup, sc.JITWarmup)
		for _, d := range sc.Dimensions {
			if !slices.Contains(out.Dimensions, d) {
				out.Dimensions = append(out.Dimensions, d)
			}
		}
		for _, r := range sc.Runs {
			r.Label = p.Label
			out.Runs = append(out.Runs, r)
		}
	}
	return out, nil
}
