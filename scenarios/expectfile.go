package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Keys of the expect: schema.
var (
	expectItemKeys = []string{"name", "measure", "ratio", "per"}
	measureKeys    = []string{"runs", "where", "field", "min", "max"}
	ratioKeys      = []string{"measure", "numerator", "denominator", "where", "min", "max"}
	sideKeys       = []string{"runs", "where"}
	runsValues     = []string{"consumer", "share", "all"}
)

// expectParser reads one expect: item, reporting problems through the
// file checker with the item's number and name.
type expectParser struct {
	c      *fileChecker
	prefix string // "expect[2]" or "expect[2] (no record lost)"
}

func (p *expectParser) errorf(line int, format string, args ...any) {
	p.c.errorf(line, "%s: %s", p.prefix, fmt.Sprintf(format, args...))
}

// expect checks the expect: list and collects its expectations.
func (c *fileChecker) expect(v *yaml.Node) {
	if v.Kind != yaml.SequenceNode {
		c.errorf(v.Line, "expect: expected a list of expectations like - {name: no record lost, measure: {runs: all, field: audit.lost, max: 0}}, got %s", nodeKind(v))
		return
	}
	if c.longList("expect", v, maxExpectations, "each expectation is matched against every run") {
		return
	}
	for i, item := range v.Content {
		p := &expectParser{c: c, prefix: fmt.Sprintf("expect[%d]", i+1)}
		if e, ok := p.item(resolve(item)); ok {
			c.info.expect = append(c.info.expect, e)
		}
	}
}

// mapping returns a map node's entries by key, reporting unknown keys.
func (p *expectParser) mapping(n *yaml.Node, where string, valid []string) (map[string]*yaml.Node, bool) {
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, "%s: expected a map with keys %s, got %s", where, strings.Join(valid, ", "), nodeKind(n))
		return nil, false
	}
	out := map[string]*yaml.Node{}
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !slices.Contains(valid, k.Value) {
			p.errorf(k.Line, "unknown key %q in %s%s", k.Value, where, suggest(k.Value, valid))
			ok = false
			continue
		}
		out[k.Value] = resolve(n.Content[i+1])
	}
	return out, ok
}

func (p *expectParser) item(n *yaml.Node) (Expectation, bool) {
	var e Expectation
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if v := resolve(n.Content[i+1]); n.Content[i].Value == "name" && v.Kind == yaml.ScalarNode {
			e.Name = v.Value
		}
	}
	if e.Name != "" {
		p.prefix += fmt.Sprintf(" (%s)", e.Name)
	}
	m, ok := p.mapping(n, "expect", expectItemKeys)
	if m == nil {
		return e, false
	}
	if e.Name == "" {
		p.errorf(n.Line, "name: required; say what the expectation claims, like \"no record lost\"")
		ok = false
	}
	if per := m["per"]; per != nil {
		if per.Kind != yaml.ScalarNode || per.Value != "client" {
			p.errorf(per.Line, "per: expected client (check the claim once for each client the campaign ran), got %s", nodeKind(per))
			ok = false
		}
		e.PerClient = true
	}
	measure, ratio := m["measure"], m["ratio"]
	switch {
	case !ok && measure == nil && ratio == nil:
		return e, false // an unknown key already explains it
	case (measure == nil) == (ratio == nil):
		p.errorf(n.Line, "give exactly one of measure: {runs, where, field, min, max} or ratio: {measure, numerator, denominator, where, min, max}")
		return e, false
	case measure != nil:
		e.Measure = p.measure(measure)
		ok = ok && e.Measure != nil
	default:
		e.Ratio = p.ratio(ratio)
		ok = ok && e.Ratio != nil
	}
	return e, ok
}

func (p *expectParser) measure(n *yaml.Node) *MeasureClaim {
	m, ok := p.mapping(n, "measure", measureKeys)
	if m == nil {
		return nil
	}
	c := &MeasureClaim{}
	c.Field, ok = p.field(n, "measure.field", m["field"], ok)
	c.RunSelector, ok = p.selector(m, "measure", RunSelector{Runs: "all"}, ok)
	c.Bounds, ok = p.bounds(n, "measure", m, ok)
	if !ok {
		return nil
	}
	return c
}

func (p *expectParser) ratio(n *yaml.Node) *RatioClaim {
	m, ok := p.mapping(n, "ratio", ratioKeys)
	if m == nil {
		return nil
	}
	c := &RatioClaim{}
	c.Field, ok = p.field(n, "ratio.measure", m["measure"], ok)
	common, ok := p.selector(m, "ratio", RunSelector{}, ok)
	c.Numerator, ok = p.side(n, "ratio.numerator", m["numerator"], common.Where, ok)
	c.Denominator, ok = p.side(n, "ratio.denominator", m["denominator"], common.Where, ok)
	c.Bounds, ok = p.bounds(n, "ratio", m, ok)
	if !ok {
		return nil
	}
	return c
}

// field reads and resolves a field name.
func (p *expectParser) field(parent *yaml.Node, key string, n *yaml.Node, ok bool) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Value == "" {
		p.errorf(parent.Line, "%s: required; a run.json field like throughput.completed_per_sec or audit.lost", key)
		return "", false
	}
	full, err := resolveField(n.Value)
	if err != nil {
		p.errorf(n.Line, "%s: %v", key, err)
		return "", false
	}
	return full, ok
}

// side reads a ratio side: a consumer type, or a selector map.
func (p *expectParser) side(parent *yaml.Node, key string, n *yaml.Node, common map[string]string, ok bool) (RunSelector, bool) {
	s := RunSelector{Runs: "all"}
	switch {
	case n == nil:
		p.errorf(parent.Line, "%s: required; a consumer type (consumer, share) or {runs: share, where: {members: 8}}", key)
		return s, false
	case n.Kind == yaml.ScalarNode:
		s.Runs = n.Value
		if !slices.Contains(runsValues, n.Value) {
			p.errorf(n.Line, "%s: expected one of %s, got %q", key, strings.Join(runsValues, ", "), n.Value)
			ok = false
		}
	default:
		m, good := p.mapping(n, key, sideKeys)
		if m == nil {
			return s, false
		}
		s, ok = p.selector(m, key, s, ok && good)
	}
	for k, v := range common {
		if s.Where == nil {
			s.Where = map[string]string{}
		}
		if _, own := s.Where[k]; !own {
			s.Where[k] = v
		}
	}
	return s, ok
}

// selector reads runs: and where: from a map into def.
func (p *expectParser) selector(m map[string]*yaml.Node, key string, def RunSelector, ok bool) (RunSelector, bool) {
	s := def
	if r := m["runs"]; r != nil {
		s.Runs = r.Value
		if r.Kind != yaml.ScalarNode || !slices.Contains(runsValues, r.Value) {
			p.errorf(r.Line, "%s.runs: expected one of %s, got %s", key, strings.Join(runsValues, ", "), nodeKind(r))
			ok = false
		}
	}
	w := m["where"]
	if w == nil {
		return s, ok
	}
	if w.Kind != yaml.MappingNode || len(w.Content) == 0 {
		p.errorf(w.Line, "%s.where: expected a map of scenario keys to values like {max_poll_records: 1000}, got %s", key, nodeKind(w))
		return s, false
	}
	s.Where = map[string]string{}
	for i := 0; i+1 < len(w.Content); i += 2 {
		k, v := w.Content[i], resolve(w.Content[i+1])
		var val any
		if v.Kind != yaml.ScalarNode || v.Decode(&val) != nil {
			p.errorf(v.Line, "%s.where: %s: expected a single value, got %s", key, k.Value, nodeKind(v))
			ok = false
			continue
		}
		norm, err := whereValue(k.Value, val)
		if err != nil {
			p.errorf(k.Line, "%s.where: %v", key, err)
			ok = false
			continue
		}
		s.Where[k.Value] = norm
	}
	return s, ok
}

// bounds reads min: and max:.
func (p *expectParser) bounds(parent *yaml.Node, key string, m map[string]*yaml.Node, ok bool) (Bounds, bool) {
	var b Bounds
	for _, bk := range []string{"min", "max"} {
		n := m[bk]
		if n == nil {
			continue
		}
		f, err := parseFinite(n.Value)
		if n.Kind != yaml.ScalarNode || err != nil || n.Tag == "!!str" {
			p.errorf(n.Line, "%s.%s: expected a finite number, got %s", key, bk, nodeKind(n))
			ok = false
			continue
		}
		if bk == "min" {
			b.Min = &f
		} else {
			b.Max = &f
		}
	}
	switch {
	case b.Min == nil && b.Max == nil && ok:
		p.errorf(parent.Line, "%s: give min:, max: or both (inclusive bounds)", key)
		ok = false
	case b.Min != nil && b.Max != nil && *b.Min > *b.Max:
		p.errorf(parent.Line, "%s: min %g is above max %g", key, *b.Min, *b.Max)
		ok = false
	}
	return b, ok
}
