package poc

import (
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

// Profile is a team's workload in its own terms: one YAML file (LoadProfile),
// checked like a scenario (file:line:key errors, a JSON Schema, a generated
// reference). Durations are Go durations, rates records/s, sizes like 1KiB.
type Profile struct {
	Name        string `json:"name"`                  // names the campaign: letters, digits, '.', '_', '-'
	Description string `json:"description,omitempty"` // a sentence for the reports
	Source      string `json:"source" yaml:"-"`       // the file it was read from

	// Load.
	SteadyRate float64       `json:"steady_rate"`        // records/s most of the time, > 0
	PeakRate   float64       `json:"peak_rate"`          // records/s at the peak, ≥ steady_rate [steady_rate]
	PeakFor    time.Duration `json:"peak_for,omitempty"` // how long a peak lasts [0: no peak]

	// Work.
	Processing scenarios.Processing `json:"processing"` // as the advisor takes it (constant/uniform/exponential/lognormal)
	Workers    int                  `json:"workers"`    // workers per member [1]

	// Topic.
	Partitions  int    `json:"partitions"`     // the topic's partitions today, ≥ 1
	RecordBytes int    `json:"record_bytes"`   // bytes of a record's value [1KiB]
	Keys        string `json:"keys,omitempty"` // none, uniform or hot (the scenario's key models) [none]

	// Restrictions (stage 1): facts about the application and platform.
	Restrictions Restrictions `json:"restrictions"`

	// Failures.
	TransientRate float64 `json:"transient_rate"` // fraction of records that fail once and succeed on retry [0]
	PoisonRate    float64 `json:"poison_rate"`    // fraction that always fail [0]
	DeliveryLimit int     `json:"delivery_limit"` // group.share.delivery.count.limit [5]

	// Destination: a dsn, the embedded server (Embedded), or a modelled
	// write (WriteTime and Capacity); nil: none.
	Destination *ProfileDestination `json:"destination,omitempty"`

	// Client is the client arm: franz-go (default), java, librdkafka.
	Client string `json:"client"`

	// Budget is the wall time the whole proof of concept may take [15m];
	// --budget overrides it.
	Budget time.Duration `json:"budget"`
}

// Restrictions are the stage-1 facts: any that holds keeps the workload on
// a consumer group.
type Restrictions struct {
	OrderingPerKey     bool          `json:"ordering_per_key"`     // the application needs each key's records in order
	ExactlyOnce        bool          `json:"exactly_once"`         // consume-transform-produce in transactions
	Framework          string        `json:"framework"`            // plain, spring, kafka_connect, kafka_streams [plain]
	FetchFromFollower  bool          `json:"fetch_from_follower"`  // client.rack / replica selection in use
	StaticMembership   bool          `json:"static_membership"`    // group.instance.id in use
	ClientSideAssignor bool          `json:"client_side_assignor"` // a custom client-side partition assignor
	Platform           string        `json:"platform"`             // apache (default), msk_standard, msk_express, confluent_cloud, other
	KafkaVersion       string        `json:"kafka_version"`        // the production brokers' version, e.g. 4.2.0
	RetentionBytes     int64         `json:"retention_bytes"`      // per partition, 0: by time only
	RetentionTime      time.Duration `json:"retention_time"`       // 0: unknown
}

// ProfileDestination is where the workers write. Exactly one of DSN,
// Embedded, or WriteTime (with Capacity) is set.
type ProfileDestination struct {
	DSN       string        `json:"-" yaml:"dsn"`         // never written out; masked in every message
	Embedded  bool          `json:"embedded,omitempty"`   // the embedded PostgreSQL server
	WriteTime time.Duration `json:"write_time,omitempty"` // a modelled write holding the worker
	Capacity  float64       `json:"capacity,omitempty"`   // records/s the destination sustains
	// Connections is the connections the database gives the whole consumer
	// group (dsn or embedded only): the members' writes share them, so they
	// bound the destination's capacity as they will in production [0: no cap].
	Connections int `json:"connections,omitempty"`
}

// Verdict is the decision's one word.
type Verdict string

const (
	VerdictShareGroup       Verdict = "share_group"
	VerdictConsumerGroup    Verdict = "consumer_group"
	VerdictDestinationBound Verdict = "destination_bound"
	VerdictInconclusive     Verdict = "inconclusive"
)

// Evidence is one figure a sentence of the decision rests on: the run it
// was measured in, the figure's name in the declared figures
// (results/runs.Figures, e.g. throughput.completed_per_sec) and its value,
// and where to read it (the run.json path inside the campaign folder and
// the report.html anchor).
type Evidence struct {
	RunID  string  `json:"run_id"`
	Figure string  `json:"figure"`
	Value  float64 `json:"value"`
	Path   string  `json:"path"`   // runs/<run-id>/run.json
	Anchor string  `json:"anchor"` // report.html#<anchor>
}

// Finding is one restriction (stage 1) or reason (stage 2) with what it
// means for this workload.
type Finding struct {
	Key      string     `json:"key"`      // a stable id: ordering_per_key, partition_cap, head_of_line, ...
	Applies  bool       `json:"applies"`  // the restriction holds / the reason is shown by the measurement
	Measured bool       `json:"measured"` // false: its experiment did not fit the budget or is not a measurement ("not measured")
	Says     string     `json:"says"`     // one sentence, with its numbers
	Evidence []Evidence `json:"evidence,omitempty"`
}

// Setting is one setting to run with and the measurement behind it.
type Setting struct {
	Name     string     `json:"name"` // members, max.poll.records, group.share.record.lock.duration.ms, ...
	Value    string     `json:"value"`
	Why      string     `json:"why"`
	Evidence []Evidence `json:"evidence,omitempty"`
}

// Decision is what `sharebench poc` writes as decision.json and renders
// as decision.md and the top of report.html.
type Decision struct {
	SchemaVersion int       `json:"schema_version"`
	Profile       string    `json:"profile"` // the profile's name
	Verdict       Verdict   `json:"verdict"`
	Headline      string    `json:"headline"`            // the verdict as one sentence with its number
	NotKafka      bool      `json:"not_kafka,omitempty"` // kfake: no verdict, a NOT KAFKA banner
	Restrictions  []Finding `json:"restrictions"`        // stage 1
	Reasons       []Finding `json:"reasons"`             // stage 2
	Settings      []Setting `json:"settings"`
	Cost          []Finding `json:"cost,omitempty"`     // broker CPU per record of both group types at the same throughput
	LeftOut       []string  `json:"left_out,omitempty"` // experiments the budget did not fit, each with why
	Problems      []string  `json:"problems,omitempty"` // failed or unbalanced runs that made it inconclusive
}

// Experiment is one measured question of the plan: the runs that answer
// one reason (Finding.Key) or one setting, on the profile's workload.
type Experiment struct {
	Key      string        `json:"key"`      // the Finding.Key it answers (partition_cap, head_of_line, scale_event, failures, peak_autoscale, destination, settings_sweep, cost_pair)
	Label    string        `json:"label"`    // the run-name label its runs carry (RunSpec.Label), unique in the plan
	Estimate time.Duration `json:"estimate"` // its wall time on one broker, set-up included
	Why      string        `json:"why"`      // what it measures and why it is in the plan
}

// Plan is what Plan returns: the experiments that fit the budget in the
// order they run, the ones left out (each with why), the advisor's sizing
// behind it, and the one scenario the campaign runs (every experiment's
// runs, each run's Label naming its experiment).
type Plan struct {
	Profile     Profile             `json:"profile"`
	Budget      time.Duration       `json:"budget"`
	Experiments []Experiment        `json:"experiments"`
	LeftOut     []string            `json:"left_out,omitempty"`
	Scenario    *scenarios.Scenario `json:"-"`
}
