package results

import (
	"strconv"
	"testing"
)

func stampedValue(run uint64, p uint32, seq uint64) []byte {
	b := make([]byte, StampSize+8)
	Stamp{Run: run, Producer: p, Seq: seq}.Put(b)
	return b
}

func dlqHeaders(topic string, part int32, off int64) map[string]string {
	return map[string]string{DLQHeaderTopic: topic, DLQHeaderPartition: strconv.Itoa(int(part)),
		DLQHeaderOffset: strconv.FormatInt(off, 10), DLQHeaderGroup: "g", DLQHeaderDeliveryCount: "2"}
}

// A ledger of 2 producers × 10 records: 0..9 of producer 0 completed, 0..3
// of producer 1 archived (never completed), 4..9 completed.
func dlqLedger() (*Ledger, int64) {
	l := NewLedger(2, 10)
	for p := uint32(0); p < 2; p++ {
		for s := uint64(0); s < 10; s++ {
			l.Produced(p, s)
			l.Delivered(p, s)
			if p == 1 && s < 4 {
				l.Archived(p, s)
			} else {
				l.Completed(p, s)
			}
		}
	}
	return l, l.Audit().Archived
}

func TestReconcileDeadLettersByStamp(t *testing.T) {
	const run = 77
	for _, c := range []struct {
		name                               string
		recs                               []DeadLetterRecord
		lettered, missing, dups, unmatched int64
		ok                                 bool
	}{
		{"every archived record once", []DeadLetterRecord{
			{Value: stampedValue(run, 1, 0)}, {Value: stampedValue(run, 1, 1)}, {Value: stampedValue(run, 1, 2)}, {Value: stampedValue(run, 1, 3)}},
			4, 0, 0, 0, true},
		{"one missing", []DeadLetterRecord{
			{Value: stampedValue(run, 1, 0)}, {Value: stampedValue(run, 1, 1)}, {Value: stampedValue(run, 1, 3)}},
			3, 1, 0, 0, false},
		{"a duplicate", []DeadLetterRecord{
			{Value: stampedValue(run, 1, 0)}, {Value: stampedValue(run, 1, 1)}, {Value: stampedValue(run, 1, 2)}, {Value: stampedValue(run, 1, 3)},
			{Value: stampedValue(run, 1, 3)}},
			4, 0, 1, 0, false},
		{"a completed record, another run's, no stamp, out of bounds", []DeadLetterRecord{
			{Value: stampedValue(run, 1, 0)}, {Value: stampedValue(run, 1, 1)}, {Value: stampedValue(run, 1, 2)}, {Value: stampedValue(run, 1, 3)},
			{Value: stampedValue(run, 0, 5)}, {Value: stampedValue(run+1, 1, 0)}, {Value: []byte("x")}, {Value: stampedValue(run, 5, 0)}},
			4, 0, 0, 4, false},
		{"empty DLQ", nil, 0, 4, 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, archived := dlqLedger()
			if archived != 4 {
				t.Fatalf("archived %d", archived)
			}
			d := ReconcileDeadLetters(l, archived, run, "t", c.recs, true)
			if *d.DeadLettered != c.lettered || *d.DeadLetterMissing != c.missing || *d.DeadLetterDuplicates != c.dups ||
				*d.DeadLetterUnmatched != c.unmatched || *d.DeadLetterRecords != int64(len(c.recs)) || d.DeadLetterMatchedBy != "stamp" {
				t.Errorf("got lettered %d missing %d dups %d unmatched %d records %d by %s; want %d %d %d %d",
					*d.DeadLettered, *d.DeadLetterMissing, *d.DeadLetterDuplicates, *d.DeadLetterUnmatched, *d.DeadLetterRecords,
					d.DeadLetterMatchedBy, c.lettered, c.missing, c.dups, c.unmatched)
			}
			if d.Reconciled() != c.ok {
				t.Errorf("reconciled %v, want %v", d.Reconciled(), c.ok)
			}
		})
	}
}

func TestReconcileDeadLettersByHeaders(t *testing.T) {
	l, archived := dlqLedger()
	recs := []DeadLetterRecord{
		{Headers: dlqHeaders("t", 0, 5)}, {Headers: dlqHeaders("t", 1, 5)}, {Headers: dlqHeaders("t", 0, 7)},
		{Headers: dlqHeaders("t", 0, 7)},     // duplicate
		{Headers: dlqHeaders("other", 0, 1)}, // another topic
		{Headers: map[string]string{}},       // no headers
	}
	d := ReconcileDeadLetters(l, archived, 1, "t", recs, false)
	if *d.DeadLettered != 3 || *d.DeadLetterMissing != 1 || *d.DeadLetterDuplicates != 1 || *d.DeadLetterUnmatched != 2 ||
		d.DeadLetterMatchedBy != "headers" || d.Reconciled() {
		t.Errorf("got %+v", d)
	}
	// More distinct offsets than archived records: the excess is unmatched.
	recs = nil
	for off := range int64(6) {
		recs = append(recs, DeadLetterRecord{Headers: dlqHeaders("t", 0, off)})
	}
	d = ReconcileDeadLetters(l, archived, 1, "t", recs, false)
	if *d.DeadLettered != 4 || *d.DeadLetterMissing != 0 || *d.DeadLetterUnmatched != 2 {
		t.Errorf("excess: got lettered %d missing %d unmatched %d", *d.DeadLettered, *d.DeadLetterMissing, *d.DeadLetterUnmatched)
	}
}

// Without a DLQ the audit has no dead-letter figures and reconciles.
func TestDeadLetterAuditAbsent(t *testing.T) {
	var a Audit
	if !a.DeadLetterAudit.Reconciled() || a.DeadLettered != nil {
		t.Fatal("zero audit")
	}
}
