// Package poc turns a team's workload profile into a proof-of-concept
// decision: should this workload move to a share group?
//
// The decision follows the two-stage adoption roadmap (docs/how-to/run-a-poc.md):
// stage 1 lists the restrictions that keep a workload on a consumer group
// (read from the profile alone); stage 2 tests each reason that would
// justify a share group with a measured pair of runs on the team's own
// workload. Every sentence of a decision cites the run and the figure it
// rests on; a reason whose experiment was not run is "not measured", never
// assumed.
//
// The package plans (Plan: a profile and a time budget → one scenario for
// the campaign runner, built with package advisor; no second planner or
// runner) and decides (Decide: a profile, the plan and the campaign's run
// records → a Decision, a pure function). It imports advisor, scenarios and
// results/runs; the command (cmd/sharebench poc) runs the campaign between
// the two.
package poc
