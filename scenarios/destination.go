package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/vocab"
)

// Destination is the destination: block: where the workers write each
// record they complete, after processing and before the acknowledgement
// (share) or commit (consumer group), as at-least-once delivery asks of a
// real consumer. The write's time is part of the hold time; after the
// drain the harness reads the table back and reconciles it with the ledger
// (destination.rows, .duplicates_absorbed, .missing; see
// docs/destinations.md). The same for every run; not a sweep dimension.
//
//	destination:
//	  kind: postgres        # the only kind [postgres]
//	  dsn: postgres://app:${PGPASSWORD}@db.internal:5432/bench  # [an embedded server]
//	  key: offset           # offset | key_sequence [offset]
//	  idempotent: true      # upsert on the key; false: insert a row per write [true]
//	  batch_size: 1         # records per statement [1]
//	  batch_wait: 5ms       # a batch's wait for more records [5ms]
//	  pool: 2               # connections per member [2]
//	  connections: 4        # connections of the whole group, shared [0: no cap]
//
// Without a dsn the harness starts a PostgreSQL of its own for the
// campaign (the machine's PostgreSQL server binaries, initdb into a
// temporary folder, a free 127.0.0.1 port) and stops it at the end.
type Destination struct {
	// Kind is the destination's kind: postgres (PostgreSQL, through pgx).
	// [postgres]
	Kind string `json:"kind"`
	// DSN is the database's connection string, a URL
	// (postgres://user:password@host:5432/db) or key=value pairs; ${VAR}
	// takes a value from the environment, so the password need not be in
	// the file. --destination-dsn overrides it. Never written to run.json
	// or a report (the password is masked in every message). [an embedded
	// server]
	DSN string `json:"-"`
	// DSNSource is where the dsn is written (file:line), for the errors
	// of its check before the campaign; "" without a dsn.
	DSNSource string `json:"-"`
	// Key is the row's id: offset (topic + partition + offset) or
	// key_sequence (the producer's id and sequence stamped in the record:
	// an event id). [offset]
	Key string `json:"key"`
	// Idempotent writes with an upsert on the key (INSERT … ON CONFLICT DO
	// UPDATE), which absorbs a redelivered record's second write; false
	// inserts a row per write into a table without a key, and the audit
	// counts the duplicate rows a non-idempotent consumer leaves. [true]
	Idempotent bool `json:"idempotent"`
	// BatchSize is the most records one statement writes; a worker's
	// record waits in its member's batch until the batch is full or
	// batch_wait has passed, and each record is acknowledged after its
	// batch's statement committed. [1]
	BatchSize int `json:"batch_size"`
	// BatchWait is how long a batch waits for more records after its
	// first (batch_size above 1). [5ms]
	BatchWait time.Duration `json:"batch_wait_ns,omitempty"`
	// Pool is the connections of each member's pool: a member writes at
	// most pool statements at once, so the destination's capacity is
	// members × pool statements at a time. [2]
	Pool int `json:"pool"`
	// Connections caps the connections of the whole group: the members'
	// writes share one pool of this many connections, each member taking
	// at most pool of them, and wait for a free one, as the clients of a
	// pooler in front of the database (PgBouncer's pool_size) or of the
	// application's connection budget wait. The destination's capacity is
	// then min(members × pool, connections) statements at once, however
	// many members join. 0: no cap, each member has its own pool. [0]
	Connections int `json:"connections,omitempty"`
}

// destinationKeys are the keys of the destination: block.
var destinationKeys = []string{"kind", "dsn", "key", "idempotent", "batch_size", "batch_wait", "pool", "connections"}

// DestinationKinds are the destination kinds.
var DestinationKinds = []string{"postgres"}

// DestinationKeyModes are the values of destination.key.
var DestinationKeyModes = []string{"offset", "key_sequence"}

// Bounds of the destination's sizes.
const (
	maxDestinationPool  = 64
	maxDestinationBatch = 10_000
	// maxDestinationConnections is the connections a run may open in
	// all: below the embedded server's max_connections, which leaves room
	// for the campaign's own connection and superuser ones.
	maxDestinationConnections = 250
)

// destination reads the destination: block.
func (c *fileChecker) destination(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		c.errorf(v.Line, "destination: expected a map like {kind: postgres, pool: 2}, got %s", nodeKind(v))
		return
	}
	d := Destination{Kind: "postgres", Key: "offset", Idempotent: true, BatchSize: 1, BatchWait: 5 * time.Millisecond, Pool: 2}
	bad := false
	fail := func(line int, format string, args ...any) {
		c.errorf(line, format, args...)
		bad = true
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], resolve(v.Content[i+1])
		c.info.lines["destination."+k.Value] = k.Line
		if !slices.Contains(destinationKeys, k.Value) {
			fail(k.Line, "unknown key %q in destination%s", k.Value, suggest(k.Value, destinationKeys))
			continue
		}
		if val.Kind != yaml.ScalarNode || isNull(val) {
			fail(val.Line, "destination.%s: expected a single value, got %s (destination is not swept)", k.Value, nodeKind(val))
			continue
		}
		switch k.Value {
		case "kind":
			if d.Kind = val.Value; !slices.Contains(DestinationKinds, d.Kind) {
				fail(val.Line, "destination.kind: expected one of %v, got %q", DestinationKinds, d.Kind)
			}
		case "dsn":
			if d.DSN, d.DSNSource = val.Value, fmt.Sprintf("%s:%d", c.src, val.Line); d.DSN == "" {
				fail(val.Line, "destination.dsn: expected a connection string (postgres://user:${PGPASSWORD}@host:5432/db), or leave dsn out for an embedded server")
			}
			redact.AddDSNSecrets(d.DSN) // a password written in the file is masked wherever it is shown
		case "key":
			if d.Key = val.Value; !slices.Contains(DestinationKeyModes, d.Key) {
				fail(val.Line, "destination.key: expected one of %v, got %q", DestinationKeyModes, d.Key)
			}
		case "idempotent":
			b, err := strconv.ParseBool(val.Value)
			if err != nil {
				fail(val.Line, "destination.idempotent: expected true or false, got %q", val.Value)
			}
			d.Idempotent = b
		case "batch_size":
			n, err := strconv.Atoi(val.Value)
			if err != nil || n < 1 || n > maxDestinationBatch {
				fail(val.Line, "destination.batch_size: expected a whole number of records from 1 to %d, got %q", maxDestinationBatch, val.Value)
			}
			d.BatchSize = n
		case "batch_wait":
			w, err := time.ParseDuration(val.Value)
			if err != nil || w < 0 || w > 10*time.Second {
				fail(val.Line, "destination.batch_wait: expected a duration from 0 to 10s (like 5ms), got %q", val.Value)
			}
			d.BatchWait = w
		case "pool":
			n, err := strconv.Atoi(val.Value)
			if err != nil || n < 1 || n > maxDestinationPool {
				fail(val.Line, "destination.pool: expected a whole number of connections per member from 1 to %d, got %q", maxDestinationPool, val.Value)
			}
			d.Pool = n
		case "connections":
			n, err := strconv.Atoi(val.Value)
			if err != nil || n < 0 || n > maxDestinationConnections {
				fail(val.Line, "destination.connections: expected a whole number of connections for the whole group from 1 to %d (0: no cap, a pool per member), got %q", maxDestinationConnections, val.Value)
			}
			d.Connections = n
		}
	}
	if !bad {
		c.info.destination = &d
	}
}

// checkDestination checks the destination: block against a run: the
// write stage is in every client's members, in one process, after
// processing (a client runner's writes one record per statement).
func (r RunSpec) checkDestination(p *problems) {
	if r.Destination == nil {
		return
	}
	if r.Client != "" && r.Client != vocab.ClientFranzGo && r.Destination.BatchSize > 1 {
		p.addf("destination.batch_size", "client %s writes one record per statement (batch_size %d); use batch_size 1 or client franz-go", r.Client, r.Destination.BatchSize)
	}
	if r.Shards > 1 {
		p.addf("destination", "a sharded run (shards %d) cannot write to a destination yet; use shards 1", r.Shards)
	}
	if r.ConsumerType == vocab.ConsumerGroup && r.Commit == vocab.CommitAuto {
		p.addf("destination", "commit auto commits what was polled before it is written; use commit after_processing")
	}
	if n := r.MaxMembers() * r.Destination.Pool; n > maxDestinationConnections && r.Destination.Connections == 0 {
		p.addf("destination.pool", "%d members × pool %d = %d connections; a run may open at most %d (a real server usually allows fewer): lower pool or members, or cap them with destination.connections", r.MaxMembers(), r.Destination.Pool, n, maxDestinationConnections)
	}
}

// String describes the destination in one line, without its dsn.
func (d Destination) String() string {
	mode := "upsert"
	if !d.Idempotent {
		mode = "insert"
	}
	out := fmt.Sprintf("%s, %s by %s, batch %d, pool %d per member", d.Kind, mode, d.Key, d.BatchSize, d.Pool)
	if d.Connections > 0 {
		out += fmt.Sprintf(", %d connections shared", d.Connections)
	}
	return out
}
