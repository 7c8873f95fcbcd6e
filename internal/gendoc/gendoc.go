package gendoc

import (
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sharebench/sharebench/scenarios"
)

// Files are the generated files, relative to the repository root.
const (
	ReferencePath = "docs/reference/scenario-keys.md"
	SchemaPath    = "docs/reference/scenario.schema.json"
)

// field is one documented key of a scenario block.
type field struct {
	key  string // file key (mapstructure or json tag)
	name string // Go field name
	doc  string // the field's doc comment, as written
}

// source is the parsed scenarios package.
type source struct {
	pkg   *doc.Package
	types map[string]*doc.Type
}

// load parses the non-test Go files of the scenarios package in dir.
func load(dir string) (*source, error) { return loadPackage(dir, "scenarios") }

// loadPackage parses the non-test Go files of package name (of this
// module) in dir.
func loadPackage(dir, name string) (*source, error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", n, err)
		}
		if f.Name.Name != name {
			continue // a //go:build ignore generator of another package
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no Go files of package %s", dir, name)
	}
	pkg, err := doc.NewFromFiles(fset, files, "github.com/sharebench/sharebench/"+name, doc.AllDecls)
	if err != nil {
		return nil, err
	}
	s := &source{pkg: pkg, types: map[string]*doc.Type{}}
	for _, t := range pkg.Types {
		s.types[t.Name] = t
	}
	return s, nil
}

// typeDoc returns a type's doc comment.
func (s *source) typeDoc(name string) string {
	if t, ok := s.types[name]; ok {
		return t.Doc
	}
	return ""
}

// fields returns the documented, tagged fields of a struct type, keyed by
// the first of the given tags the field has ("mapstructure", "json", or
// "yaml,json": the yaml tag, else the json one); fields tagged "-" are
// skipped. A field's doc is its line comment, else its doc comment (a
// doc comment over a line-commented field heads a group of fields). The
// fields of an embedded struct of the package (RunSpec's groups, squashed
// into the file's top level) are listed where it is embedded.
func (s *source) fields(typeName, tag string) ([]field, error) {
	t, ok := s.types[typeName]
	if !ok {
		return nil, fmt.Errorf("type %s not found in %s", typeName, s.pkg.Name)
	}
	spec := t.Decl.Specs[0].(*ast.TypeSpec)
	st, ok := spec.Type.(*ast.StructType)
	if !ok {
		return nil, fmt.Errorf("type %s is not a struct", typeName)
	}
	var out []field
	for _, f := range st.Fields.List {
		if embedded, ok := f.Type.(*ast.Ident); ok && len(f.Names) == 0 {
			inner, err := s.fields(embedded.Name, tag)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", typeName, embedded.Name, err)
			}
			out = append(out, inner...)
			continue
		}
		if f.Tag == nil || len(f.Names) == 0 {
			continue
		}
		raw, err := strconv.Unquote(f.Tag.Value)
		if err != nil {
			return nil, err
		}
		var key string
		for t := range strings.SplitSeq(tag, ",") {
			if v, ok := reflect.StructTag(raw).Lookup(t); ok {
				key, _, _ = strings.Cut(v, ",")
				break
			}
		}
		if key == "" || key == "-" {
			continue
		}
		text := f.Comment.Text()
		if text == "" {
			text = f.Doc.Text()
		}
		out = append(out, field{key: key, name: f.Names[0].Name, doc: text})
	}
	return out, nil
}

// defaultRE matches the "[key: default]" note that closes a RunSpec field
// comment; the generated pages show the evaluated Defaults() instead.
var defaultRE = regexp.MustCompile(`(?s)\s*\[[a-z_]+: .*\]\s*$`)

// prose turns a field comment into one paragraph without its default note,
// naming the field by its file key instead of its Go name
// ("MaxPollRecords is" becomes "`max_poll_records` is").
func prose(f field) string {
	words := strings.Fields(defaultRE.ReplaceAllString(f.doc, ""))
	if len(words) > 0 && words[0] == f.name {
		words[0] = "`" + f.key + "`"
	}
	return strings.Join(words, " ")
}

// flow writes a default value the way a scenario file would: YAML flow style.
func flow(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = flow(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			// model first, the rest alphabetical
			if (keys[i] == "model") != (keys[j] == "model") {
				return keys[i] == "model"
			}
			return keys[i] < keys[j]
		})
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + flow(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}

// Generate writes both files under root (the repository root): the
// scenarios package is read from root/scenarios.
func Generate(root string) error {
	ref, err := Reference(filepath.Join(root, "scenarios"))
	if err != nil {
		return err
	}
	schema, err := Schema(filepath.Join(root, "scenarios"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(root, "docs", "reference"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, ReferencePath), ref, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, SchemaPath), schema, 0o644)
}

// knobFields returns RunSpec's file keys with their comments, checked
// against the outline so a knob without a documented field fails.
func (s *source) knobFields() (map[string]field, error) {
	fs, err := s.fields("RunSpec", "mapstructure")
	if err != nil {
		return nil, err
	}
	out := map[string]field{}
	for _, f := range fs {
		out[f.key] = f
	}
	for _, k := range scenarios.SchemaOutline().Knobs {
		if strings.TrimSpace(out[k.Key].doc) == "" {
			return nil, fmt.Errorf("RunSpec has no documented field for knob %q", k.Key)
		}
	}
	return out, nil
}

// eventFields returns Event's keys with their comments, in the outline's order.
func (s *source) eventFields() ([]field, error) {
	fs, err := s.fields("Event", "json")
	if err != nil {
		return nil, err
	}
	for _, k := range scenarios.SchemaOutline().EventKeys {
		if !slices.ContainsFunc(fs, func(f field) bool { return f.key == k }) {
			return nil, fmt.Errorf("scenarios.Event has no documented field for key %q", k)
		}
	}
	return fs, nil
}
