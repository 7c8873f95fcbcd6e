package blocks

import (
	"fmt"
	"time"
)

// Destination is the destination: block: where the workers write each
// record they complete, after processing and before the acknowledgement
// (share) or commit (consumer group), as at-least-once delivery asks of a
// real consumer. The write's time is part of the hold time; after the
// drain the harness reads the table back and reconciles it with the ledger
// (destination.rows, .duplicates_absorbed, .missing; see
// docs/how-to/test-a-destination.md). The same for every run; not a sweep dimension.
//
//	destination:
//	  kind: postgres        # the only kind
//	  dsn: postgres://app:${PGPASSWORD}@db.internal:5432/bench  # none: an embedded server
//	  key: key_sequence     # offset | key_sequence
//	  idempotent: true      # upsert on the key; false: insert a row per write
//	  batch_size: 50        # records per statement
//	  batch_wait: 2ms       # a batch's wait for more records
//	  pool: 4               # connections per member
//	  connections: 16       # connections of the whole group, shared (0: no cap)
//
// Without a dsn the harness starts a PostgreSQL of its own for the
// campaign (the machine's PostgreSQL server binaries, initdb into a
// temporary folder, a free 127.0.0.1 port) and stops it at the end. Each
// key's default and values come from DestinationDefaults and the struct's
// tags.
type Destination struct {
	// Kind is the destination's kind: postgres (PostgreSQL, through pgx).
	Kind DestinationKind `json:"kind" key:"kind"`
	// DSN is the database's connection string, a URL
	// (postgres://user:password@host:5432/db) or key=value pairs; ${VAR}
	// takes a value from the environment, so the password need not be in
	// the file. --destination-dsn overrides it. Never written to run.json
	// or a report (the password is masked in every message). Left out: an
	// embedded server.
	DSN string `json:"-" key:"dsn"`
	// DSNSource is where the dsn is written (file:line), for the errors
	// of its check before the campaign; "" without a dsn.
	DSNSource string `json:"-"`
	// Key is the row's id: offset (topic + partition + offset) or
	// key_sequence (the producer's id and sequence stamped in the record:
	// an event id).
	Key RowKey `json:"key" key:"key"`
	// Idempotent writes with an upsert on the key (INSERT … ON CONFLICT DO
	// UPDATE), which absorbs a redelivered record's second write; false
	// inserts a row per write into a table without a key, and the audit
	// counts the duplicate rows a non-idempotent consumer leaves.
	Idempotent bool `json:"idempotent" key:"idempotent"`
	// BatchSize is the most records one statement writes; a worker's
	// record waits in its member's batch until the batch is full or
	// batch_wait has passed, and each record is acknowledged after its
	// batch's statement committed.
	BatchSize int `json:"batch_size" key:"batch_size" min:"1" max:"10000"`
	// BatchWait is how long a batch waits for more records after its
	// first (batch_size above 1).
	BatchWait time.Duration `json:"batch_wait_ns,omitempty" key:"batch_wait" min:"0" max:"10s"`
	// Pool is the connections of each member's pool: a member writes at
	// most pool statements at once, so the destination's capacity is
	// members × pool statements at a time.
	Pool int `json:"pool" key:"pool" min:"1" max:"64"`
	// Connections caps the connections of the whole group: the members'
	// writes share one pool of this many connections, each member taking
	// at most pool of them, and wait for a free one, as the clients of a
	// pooler in front of the database (PgBouncer's pool_size) or of the
	// application's connection budget wait. The destination's capacity is
	// then min(members × pool, connections) statements at once, however
	// many members join. 0: no cap, each member has its own pool. The
	// most, below the embedded server's max_connections, leaves room for
	// the campaign's own connection and superuser ones.
	Connections int `json:"connections,omitempty" key:"connections" min:"0" max:"250"`
}

// DestinationDefaults is the destination: block's defaults: what a key
// left out of the file takes.
var DestinationDefaults = Destination{Kind: KindPostgres, Key: KeyOffset, Idempotent: true, BatchSize: 1, BatchWait: 5 * time.Millisecond, Pool: 2}

// DestinationKind is a destination's kind (destination.kind).
type DestinationKind string

// KindPostgres is PostgreSQL, through pgx: the only kind.
const KindPostgres DestinationKind = "postgres"

// Values are the destination kinds.
func (DestinationKind) Values() []string { return values(KindPostgres) }

// RowKey is how a row's id is derived from its record (destination.key).
type RowKey string

const (
	// KeyOffset keys a row by topic + partition + offset: the id Kafka
	// gives the record.
	KeyOffset RowKey = "offset"
	// KeySequence keys a row by the record's producer and sequence (the
	// event id the producer stamped), which a re-produced record would
	// keep.
	KeySequence RowKey = "key_sequence"
)

// Values are the row keys.
func (RowKey) Values() []string { return values(KeyOffset, KeySequence) }

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
