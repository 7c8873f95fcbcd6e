// Package campaign orchestrates campaigns: campaign.Run(ctx, scenario,
// Options{…}) provisions one cluster per broker configuration, runs every
// RunSpec of the scenario through its phases (PhaseSetup: topic, group and
// members joining; then the load mode's phases; the record) and writes the
// campaign folder. Progress and the harness's live metrics travel in
// Options, to a runner that carries them to each run; nothing rides on the
// context but cancellation.
//
// Files: campaign.go runs the clusters and finishes the campaign;
// folder.go owns the campaign folder (created exclusively, campaign.json
// with status running → complete, interrupted or failed); run.go holds the
// one run lifecycle every run goes through at any scale (phases: setup,
// recording, the load, the mode's part, the reconciliations, the record);
// load.go the load the phases drive, in this process (localLoad); sharded.go
// the same load spread over a sharded run's agents by commands over the
// control topic, and agent.go the agent that carries them out on a
// localLoad of its own. mode_rate.go, mode_backlog.go and mode_maxrate.go
// hold what differs per load mode, each with the checks it needs of a
// spec. A max_rate run is a sequence of rate runs, one per step of its
// schedule, each on a fresh topic, group and member fleet, judged by
// runs.SearchMaxRate. environment.go records where the runs ran;
// summary.go turns a run's measurements into its runs.Record. After the
// runs the campaign evaluates the scenario's expect: claims and answers its
// recommend: query.
//
// campaign sits above producer, consumers, collectors, infra, scenarios and
// results; none of them imports campaign.
package campaign
