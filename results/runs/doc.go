// Package runs owns the record of a benchmark run and its analysis:
// run.json and campaign.json (Record, Campaign, Environment; old files load,
// the field names and schema_version are kept), writing a run folder and
// loading a campaign folder, theoretical ceilings, validity flags, event
// analysis, the max-rate search, consumer/share pairing, scenario
// expectations, recommend: queries and the comparison of two campaigns (the
// verdicts, not their rendering).
//
// Every figure of a record is declared once in the figure registry
// (figures.go, figures_table.go): run.json path, unit, label, runs.csv
// column, threshold name, direction and a typed accessor. The renderers,
// compare, expectations, recommendations and history read it; the scenario
// vocabulary (scenarios/figures_gen.go) and docs/reference/figures.md are generated
// from it (go generate ./results/runs).
//
// A record's spec is the typed scenarios.RunSpec: selectors, pairing and
// recommendations read its knobs through a typed accessor table
// (SpecValue), keyed by the scenario file's key names.
//
// runs may import results and scenarios only; it must not import
// results/report, any renderer or template, or the fleets, collectors,
// providers or CLI.
package runs
