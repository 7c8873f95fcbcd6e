// Package runs owns the record of a benchmark run and its analysis:
// run.json and campaign.json (Record, Campaign, Environment; old files load,
// the field names and schema_version are kept), writing a run folder and
// loading a campaign folder, theoretical ceilings, validity flags, event
// analysis, the max-rate search, consumer/share pairing, scenario
// expectations, recommend: queries and the comparison of two campaigns (the
// verdicts, not their rendering).
//
// A record's spec is the typed scenarios.RunSpec: selectors, pairing and
// recommendations read its knobs through a typed accessor table
// (SpecValue), keyed by the scenario file's key names.
//
// runs may import results and scenarios only; it must not import
// results/report, any renderer or template, or the fleets, collectors,
// providers or CLI.
package runs
