package runs

import (
	"fmt"

	"github.com/sharebench/sharebench/results"
)

// DeadLetterFlag is the validity flag dead_letter_unreconciled of a run
// whose dead-letter queue does not hold every archived record exactly once
// (and nothing else); nil when it does, or without a DLQ.
func DeadLetterFlag(a results.Audit) *Flag {
	d := a.DeadLetterAudit
	if d.Reconciled() {
		return nil
	}
	return &Flag{Code: CodeDeadLetterUnreconciled, Message: fmt.Sprintf(
		"the DLQ does not match the archived records (matched by %s): %d archived, %d dead-lettered, %d missing, %d duplicates, %d unmatched of %d DLQ records",
		d.DeadLetterMatchedBy, a.Archived, *d.DeadLettered, *d.DeadLetterMissing, *d.DeadLetterDuplicates, *d.DeadLetterUnmatched, *d.DeadLetterRecords)}
}
