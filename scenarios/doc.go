// Package scenarios owns the scenario schema: loading a scenario from YAML
// (viper: file, SHAREBENCH_* environment, --set overrides), validating it
// against Kafka's own ranges with errors that name the file, key and expected
// value, and expanding list-valued knobs into the matrix of RunSpecs a
// campaign runs. It also embeds the built-in scenarios.
//
// scenarios imports only vocab and results (the stamp size) (the typed values it shares with the
// consumers and the run record); it must not import producer, consumers,
// collectors, infra or campaign;
// it describes runs, it does not run them.
//
// # Scenario files
//
// A scenario is a YAML map. Besides the run knobs documented on RunSpec
// (consumer_type, partitions, producers, rate, message_size, key_mode, acks,
// linger, batch_size, members, workers, max_poll_records, acquire_mode,
// ack_mode, processing, transient_rate, poison_rate, stuck_rate, warmup, duration,
// drain_timeout, load_mode, backlog_records, nodes, kafka_version, broker_heap, broker_config) it has:
//
//	name:        required; letters, digits, '.', '_', '-' (names the results directory)
//	description: optional free text
//	repeat:      trials of every run, ≥ 1 (default 1)
//	repeat_order: same | alternate (default) | shuffle: each trial's run order
//	repeat_seed: shuffle's seed (drawn and recorded when absent)
//	jit_warmup:  the bound of the brokers' JIT warm-up before the first run (0 or 10s–10m, default 20s)
//	sweep:
//	  together:  [[members, workers]]  groups of lists that advance in step
//	expect:      claims the report checks after the campaign (below)
//	max_rate:    the step schedule of load_mode max_rate (MaxRate)
//	recommend:   the best value of a swept knob under constraints (Recommend)
//
// Unknown keys are errors, at the top level and inside processing and sweep.
// Durations are Go durations ("250ms", "30s", "2m"); a bare 0 is allowed.
// Sizes (message_size, batch_size) are bytes or "1KiB", "16KiB", "1MiB",
// "4kB". Left-out knobs take Defaults().
//
// # Sweeps
//
// Any knob may be a list: consumer_type: [consumer, share],
// max_poll_records: [10, 100, 1000], processing: [{model: constant, time:
// 1ms}, {model: exponential, mean: 1ms}], processing: {model: constant,
// time: [5ms, 10ms]}, broker_config: {group.share.partition.max.record.locks:
// [500, 2000]}. The runs are the cross product of all lists, in the order
// the keys appear in the file (keys the file leaves out, such as the default
// consumer_type list, come after), the first list varying slowest. Lists
// named together in one sweep.together group must have equal lengths and
// advance in step instead of multiplying. The whole matrix is then repeated
// repeat times (RunSpec.Trial 0, 1, ...), each trial in repeat_order. Scenario.Dimensions records the
// keys with more than one value; Scenario.RunName and RunCoordinates name
// the runs by them. A scenario expands to at most MaxRuns runs.
//
// # Expectations
//
// expect: is a list of named claims, each a measure (bounds on a field in
// every selected run) or a ratio (bounds on field(numerator) /
// field(denominator) over pairs of runs whose settings differ only in what
// the two sides select by; consumer vs share pairs are runs.Pairs):
//
//	expect:
//	  - name: share group keeps up where partitions cap the consumer group
//	    ratio: {measure: completed_per_sec, numerator: share, denominator: consumer, min: 2.0}
//	  - name: consumer group reaches its worker ceiling
//	    measure: {runs: consumer, field: efficiency, min: 0.9, max: 1.05}
//	  - name: past the cliff throughput drops
//	    ratio: {measure: completed_per_sec, numerator: {runs: share, where: {max_poll_records: 200}},
//	            denominator: {runs: share, where: {max_poll_records: 10}}, max: 0.9}
//
// Fields are figure names (ExpectFields, generated from the figure registry
// of results/runs into figures_gen.go; ResolveFigure): dotted run.json paths
// (throughput.*, latency.<name>_ms.p99, outcomes.*, audit.*, ceiling.* ...;
// plus audit.archived_ratio = archived ÷ produced), an alias (completion_p99,
// completion_p99_ms), or the last part of a path when unique (efficiency, lost). runs: is consumer, share or all (the
// default); where: selects by other scenario keys (max_poll_records,
// processing.time, broker_config.<setting>), values checked like the knob's.
// min and max are inclusive; give one or both. Unknown keys and fields,
// bad values and a selector that picks no run of the file are load errors
// naming the file, line, expectation and key. expect: cannot be overridden
// by the environment or --set; a selector that an override empties is
// reported NOT MET after the campaign instead.
//
// # Overrides
//
// Sources, later wins: Defaults(), the file, SHAREBENCH_<KEY> environment
// variables (SHAREBENCH_MAX_POLL_RECORDS=50, SHAREBENCH_PROCESSING_TIME=5ms,
// SHAREBENCH_BROKER_CONFIG_GROUP_SHARE_MAX_SIZE=500: upper case, dots as
// underscores), then --set key=value (processing.time=5ms,
// broker_config.group.share.partition.max.record.locks=500). Values are
// parsed as YAML, so [10,50] is a list.
//
// # Validation
//
// Every run is checked; errors name the source, the run when the scenario
// has several ("run 3 (consumer_type=share, members=300)"), the key and the
// expected value, e.g.
//
//	scenario.yaml: run 2 (consumer_type=share): members: 300 exceeds
//	group.share.max.size (200); raise broker_config group.share.max.size
//	(max 1000) or use fewer members
package scenarios

//go:generate go run gen_docs.go
