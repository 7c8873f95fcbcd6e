package results

// DestinationRecord is what a worker writes to the destination for one
// completed record: its stamp's id and its place in the topic.
type DestinationRecord struct {
	Producer  uint32
	Seq       uint64
	Partition int32
	Offset    int64
}

// DestinationRows is what the destination table holds for one record (one
// (producer, sequence) of the run), read back after the drain: how many
// rows carry its id and how many writes those rows absorbed (an
// idempotent table keeps one row whose write count rises with every
// upsert; a table without a key gets a row per write, each counting 1).
type DestinationRows struct {
	Producer uint32
	Seq      uint64
	Rows     int64
	Writes   int64
}

// DestinationAudit reconciles the destination table, read back after the
// drain, with the ledger and the members' write counters. Every figure is
// defined in docs/explanation/measurement.md ("Destination").
type DestinationAudit struct {
	// Writes are the record writes the members saw succeed (a batch of n
	// records is n writes): every write preceded an acknowledgement or
	// commit, and a redelivered record is written again.
	Writes int64 `json:"writes"`
	// WriteErrors are record writes that failed; each record was handed
	// back (share RELEASE, consumer group retry in place), never dropped.
	WriteErrors int64 `json:"write_errors"`
	// TableWrites is the table's own count of the writes it applied (the
	// sum of its write counters); it equals Writes unless a write the
	// member saw fail reached the table anyway, or one it saw succeed did
	// not.
	TableWrites int64 `json:"table_writes"`
	// Rows are the table's rows of this run.
	Rows int64 `json:"rows"`
	// Records are the distinct records (producer, sequence) among the rows.
	Records int64 `json:"records"`
	// DuplicatesAbsorbed are the writes the upsert absorbed: Writes − Rows
	// (idempotent mode; 0 without a key, where every write is a row).
	DuplicatesAbsorbed int64 `json:"duplicates_absorbed"`
	// DuplicateRows are rows beyond the first for one record: Rows −
	// Records (0 with the key: what a non-idempotent consumer leaves).
	DuplicateRows int64 `json:"duplicate_rows"`
	// Missing are records the ledger has completed (acknowledged or
	// committed) with no row: a write skipped before an acknowledgement.
	// Must be 0.
	Missing int64 `json:"missing"`
	// WrittenNotCompleted are records with a row that the ledger never
	// completed: written, then the member crashed, or the record was
	// archived or still in flight when the drain ended.
	WrittenNotCompleted int64 `json:"written_not_completed"`
	// Foreign are rows whose id the ledger never had as produced or
	// completed (another run's, or beyond the run's bounds).
	Foreign int64 `json:"foreign"`
}

// produced and completed report the ledger's marks of one record; false
// outside its bounds.
func (l *Ledger) produced(p uint32, seq uint64) bool {
	return int(p) < len(l.producers) && seq < l.producers[p].capacity && l.producers[p].produced.get(seq)
}

func (l *Ledger) completedMark(p uint32, seq uint64) bool {
	return int(p) < len(l.producers) && seq < l.producers[p].capacity && l.producers[p].completed.get(seq)
}

// ReconcileDestination reconciles the destination table (rows, one entry
// per distinct record id) with the ledger of a run whose fleets have
// stopped. writes and writeErrors are the members' counters; idempotent
// says the table has the key (upserts), so Writes − Rows are duplicates the
// upsert absorbed.
func ReconcileDestination(l *Ledger, writes, writeErrors int64, idempotent bool, rows []DestinationRows) DestinationAudit {
	a := DestinationAudit{Writes: writes, WriteErrors: writeErrors}
	var matched int64
	for _, r := range rows {
		a.Rows += r.Rows
		a.TableWrites += r.Writes
		if !l.produced(r.Producer, r.Seq) && !l.completedMark(r.Producer, r.Seq) {
			a.Foreign += r.Rows
			continue
		}
		a.Records++
		a.DuplicateRows += r.Rows - 1
		if l.completedMark(r.Producer, r.Seq) {
			matched++
		} else {
			a.WrittenNotCompleted++
		}
	}
	a.Missing = l.CompletedUnique() - matched
	if idempotent {
		a.DuplicatesAbsorbed = a.Writes - a.Rows
	}
	return a
}

// Reconciled reports whether every completed record reached the table,
// nothing foreign is in it, and the table applied exactly the writes the
// members counted. Failed writes are flagged on their own
// (destination_write_errors): the records they concerned were retried.
func (d DestinationAudit) Reconciled() bool {
	return d.Missing == 0 && d.Foreign == 0 && d.TableWrites == d.Writes
}
