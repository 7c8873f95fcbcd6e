// Package gendoc generates the scenario reference (docs/reference/scenario-keys.md)
// and the JSON Schema for scenario files (docs/reference/scenario.schema.json) from the
// scenarios package itself: the field doc comments of RunSpec, Event and the
// block types (read with go/parser and go/doc), the defaults of
// scenarios.Defaults() and the schema tables of scenarios.SchemaOutline().
// It generates the proof-of-concept profile's reference
// (docs/reference/poc-profile.md) and JSON Schema
// (docs/reference/poc-profile.schema.json) the same way from package poc: the field
// comments of poc.Profile and its blocks, and poc.Defaults().
// The pages cannot drift from the code: tests in scenarios and poc
// regenerate them and compare them with the committed files.
//
// gendoc imports scenarios, blocks, poc and the standard library only.
package gendoc
