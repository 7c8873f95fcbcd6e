// Package gendoc generates the scenario reference (docs/scenario-reference.md)
// and the JSON Schema for scenario files (docs/scenario.schema.json) from the
// scenarios package itself: the field doc comments of RunSpec, Event and the
// block types (read with go/parser and go/doc), the defaults of
// scenarios.Defaults() and the schema tables of scenarios.SchemaOutline().
// The pages cannot drift from the code: a test in scenarios regenerates both
// and compares them with the committed files.
//
// gendoc imports scenarios and the standard library only.
package gendoc
