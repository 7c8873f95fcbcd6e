// Package destination owns where a run's workers write the records they
// complete: PostgreSQL first (github.com/jackc/pgx/v5). A Sink is one run's
// table; Open checks the database before the first run (reachable, the
// credentials right, the grants to create, write, read and drop a table)
// and says in words what to fix; each member gets a Writer with its own
// connection pool, which writes a record with an upsert keyed by a stable
// id (topic + partition + offset, or the record's producer and sequence),
// per record or in batches; after the drain ReadBack reads the table back
// for the audit (results.ReconcileDestination).
//
// The embedded server a run uses when no dsn is given is started by infra
// (infra.StartPostgres), beside the brokers. Its Config embeds the
// scenario's destination: block as package blocks declares it.
// destination imports blocks, results and internal/redact only; it must not import consumers, campaign,
// scenarios or infra.
package destination
