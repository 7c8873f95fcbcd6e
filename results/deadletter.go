package results

import (
	"strconv"
)

// DeadLetterAudit reconciles a share group's dead-letter queue, read back
// after the drain, with the ledger: every archived record (REJECTed, or
// released at the delivery count limit) should be in the DLQ exactly once.
// The figures are nil (absent from run.json) for a run without a DLQ.
type DeadLetterAudit struct {
	// DeadLetterRecords is the number of records read from the DLQ topic.
	DeadLetterRecords *int64 `json:"dead_letter_records,omitempty"`
	// DeadLettered counts archived records found in the DLQ (once or more).
	DeadLettered *int64 `json:"dead_lettered,omitempty"`
	// DeadLetterMissing counts archived records not found in the DLQ:
	// archived − dead_lettered.
	DeadLetterMissing *int64 `json:"dead_letter_missing,omitempty"`
	// DeadLetterDuplicates counts DLQ records beyond the first for one
	// record.
	DeadLetterDuplicates *int64 `json:"dead_letter_duplicates,omitempty"`
	// DeadLetterUnmatched counts DLQ records that match no archived record
	// of the run: no stamp or another run's, a record the ledger has as
	// completed or never produced, another topic in the headers.
	DeadLetterUnmatched *int64 `json:"dead_letter_unmatched,omitempty"`
	// DeadLetterMatchedBy is how the DLQ records were matched: "stamp"
	// (copy_record: the stamp in the copied value names the record) or
	// "headers" (the __dlq.errors.topic/partition/offset headers; the
	// harness does not track offsets, so distinct offsets are counted
	// against audit.archived rather than matched record by record).
	DeadLetterMatchedBy string `json:"dead_letter_matched_by,omitempty"`
}

// DLQ header names (KIP-1191), seen on a 4.4.0 broker.
const (
	DLQHeaderTopic         = "__dlq.errors.topic"
	DLQHeaderPartition     = "__dlq.errors.partition"
	DLQHeaderOffset        = "__dlq.errors.offset"
	DLQHeaderGroup         = "__dlq.errors.group"
	DLQHeaderDeliveryCount = "__dlq.errors.delivery.count"
	DLQHeaderMessage       = "__dlq.errors.message"
)

// DeadLetterRecord is one record read from a DLQ topic: its value and
// headers (a header given twice keeps the last value).
type DeadLetterRecord struct {
	Value   []byte
	Headers map[string]string
}

// dlqOrigin is the (topic, partition, offset) a DLQ record's headers name.
type dlqOrigin struct {
	topic     string
	partition int32
	offset    int64
}

func (d DeadLetterRecord) origin() (dlqOrigin, bool) {
	p, err1 := strconv.ParseInt(d.Headers[DLQHeaderPartition], 10, 32)
	o, err2 := strconv.ParseInt(d.Headers[DLQHeaderOffset], 10, 64)
	t, ok := d.Headers[DLQHeaderTopic]
	return dlqOrigin{t, int32(p), o}, ok && err1 == nil && err2 == nil
}

// archivedOnly reports whether the ledger has (p, seq) as produced and
// archived, never completed: what the audit counts as archived.
func (l *Ledger) archivedOnly(p uint32, seq uint64) bool {
	if int(p) >= len(l.producers) || seq >= l.producers[p].capacity {
		return false
	}
	s := &l.producers[p]
	return s.produced.get(seq) && s.archived.get(seq) && !s.completed.get(seq)
}

// ReconcileDeadLetters matches the DLQ records of a run against its
// ledger and archived count (Audit().Archived). run is the run's RunTag;
// topic is the run's topic (the headers must name it). byStamp: the DLQ
// records carry the copied value (copy_record), so each is matched to its
// record by the stamp; otherwise the distinct (topic, partition, offset)
// headers are counted against archived.
func ReconcileDeadLetters(l *Ledger, archived int64, run uint64, topic string, recs []DeadLetterRecord, byStamp bool) DeadLetterAudit {
	var n, lettered, dups, unmatched int64
	n = int64(len(recs))
	if byStamp {
		seen := map[recordID]int{}
		for _, r := range recs {
			st, err := DecodeStamp(r.Value)
			if err != nil || st.Run != run || !l.archivedOnly(st.Producer, st.Seq) {
				unmatched++
				continue
			}
			seen[recordID{st.Producer, st.Seq}]++
		}
		for _, c := range seen {
			lettered++
			dups += int64(c - 1)
		}
	} else {
		seen := map[dlqOrigin]int{}
		for _, r := range recs {
			o, ok := r.origin()
			if !ok || o.topic != topic {
				unmatched++
				continue
			}
			seen[o]++
		}
		for _, c := range seen {
			lettered++
			dups += int64(c - 1)
		}
		if lettered > archived { // more distinct offsets than archived records
			unmatched += lettered - archived
			lettered = archived
		}
	}
	missing := archived - lettered
	by := "headers"
	if byStamp {
		by = "stamp"
	}
	return DeadLetterAudit{DeadLetterRecords: &n, DeadLettered: &lettered, DeadLetterMissing: &missing,
		DeadLetterDuplicates: &dups, DeadLetterUnmatched: &unmatched, DeadLetterMatchedBy: by}
}

// Reconciled reports whether the DLQ holds every archived record exactly
// once and nothing else (true for a run without a DLQ).
func (d DeadLetterAudit) Reconciled() bool {
	if d.DeadLettered == nil {
		return true
	}
	return *d.DeadLetterMissing == 0 && *d.DeadLetterDuplicates == 0 && *d.DeadLetterUnmatched == 0
}
