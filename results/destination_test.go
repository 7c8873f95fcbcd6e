package results

import "testing"

// destLedger: producer 0, records 0..9 produced; 0..7 completed (3 of them
// twice, a redelivery after a crash), 8 archived, 9 in flight.
func destLedger() *Ledger {
	l := NewLedger(1, 10)
	for s := uint64(0); s < 10; s++ {
		l.Produced(0, s)
		l.Delivered(0, s)
	}
	for s := uint64(0); s < 8; s++ {
		l.Completed(0, s)
	}
	l.Completed(0, 3)
	l.Archived(0, 8)
	return l
}

func TestReconcileDestination(t *testing.T) {
	one := func(seq uint64, rows, writes int64) DestinationRows {
		return DestinationRows{Producer: 0, Seq: seq, Rows: rows, Writes: writes}
	}
	each := func(n uint64, f func(uint64) DestinationRows) []DestinationRows {
		var out []DestinationRows
		for s := range n {
			out = append(out, f(s))
		}
		return out
	}
	for _, c := range []struct {
		name       string
		writes     int64
		idempotent bool
		rows       []DestinationRows
		want       DestinationAudit
		reconciled bool
	}{
		{"upserts: every completed record once, the redelivered one absorbed", 9, true,
			each(8, func(s uint64) DestinationRows {
				if s == 3 {
					return one(s, 1, 2)
				}
				return one(s, 1, 1)
			}),
			DestinationAudit{Writes: 9, TableWrites: 9, Rows: 8, Records: 8, DuplicatesAbsorbed: 1}, true},
		{"upserts: a crashed member's write of the in-flight record, then nothing", 10, true,
			append(each(8, func(s uint64) DestinationRows {
				if s == 3 {
					return one(s, 1, 2)
				}
				return one(s, 1, 1)
			}), one(9, 1, 1)),
			DestinationAudit{Writes: 10, TableWrites: 10, Rows: 9, Records: 9, DuplicatesAbsorbed: 1, WrittenNotCompleted: 1}, true},
		{"a completed record never written is missing", 7, true,
			append(each(5, func(s uint64) DestinationRows { return one(s, 1, 1) }), one(6, 1, 1), one(7, 1, 1)),
			DestinationAudit{Writes: 7, TableWrites: 7, Rows: 7, Records: 7, Missing: 1}, false},
		{"no key: the redelivered record leaves two rows", 9, false,
			each(8, func(s uint64) DestinationRows {
				if s == 3 {
					return one(s, 2, 2)
				}
				return one(s, 1, 1)
			}),
			DestinationAudit{Writes: 9, TableWrites: 9, Rows: 9, Records: 8, DuplicateRows: 1}, true},
		{"foreign rows: out of bounds and never produced", 8, true,
			append(each(8, func(s uint64) DestinationRows { return one(s, 1, 1) }),
				DestinationRows{Producer: 4, Seq: 0, Rows: 1, Writes: 1}, one(10, 1, 1)),
			DestinationAudit{Writes: 8, TableWrites: 10, Rows: 10, Records: 8, DuplicatesAbsorbed: -2, Foreign: 2}, false},
		{"the table applied a write the member saw fail", 7, true,
			each(8, func(s uint64) DestinationRows { return one(s, 1, 1) }),
			DestinationAudit{Writes: 7, WriteErrors: 1, TableWrites: 8, Rows: 8, Records: 8, DuplicatesAbsorbed: -1}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			errs := c.want.WriteErrors
			got := ReconcileDestination(destLedger(), c.writes, errs, c.idempotent, c.rows)
			if got != c.want {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
			if got.Reconciled() != c.reconciled {
				t.Errorf("reconciled %v, want %v", got.Reconciled(), c.reconciled)
			}
		})
	}
}
