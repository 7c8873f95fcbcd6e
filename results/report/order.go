package report

import (
	"fmt"

	"github.com/sharebench/sharebench/results/runs"

	"github.com/sharebench/sharebench/vocab"
)

// groupCell is the side-by-side table's "group protocol" cell: the protocol
// the broker ran and its assignor, "FELL BACK" when it is not the one asked
// for, "-" for records without it.
func groupCell(r runs.Record) string {
	g := r.Group
	if g == nil {
		return "-"
	}
	if g.Protocol == "" {
		return g.Requested + " (not read back)"
	}
	s := g.Protocol
	if g.Assignor != "" {
		s += " " + g.Assignor
	}
	if g.Rebalance != "" && g.Rebalance != "none" {
		s += ", " + g.Rebalance
	}
	if g.Static {
		s += ", static"
	}
	if g.Commit == vocab.CommitAuto {
		s += ", autocommit"
	}
	if g.Fallback {
		s += " (FELL BACK from " + g.Requested + ")"
	}
	return s
}

// orderCell is the "order violations" cell: per key (key_mode hashed) as
// "violations (share of keys, max displacement records / ms)", else per
// partition with a "part." prefix; "-" when order was not measured.
func orderCell(r runs.Record) string {
	o := r.Audit.Order
	if o == nil {
		return "-"
	}
	f, what := o.OrderFigures, "keys"
	if !o.Keyed {
		f, what = o.Partition, "partitions"
	}
	if f.Violations == 0 {
		return "0 (" + what + ")"
	}
	return fmt.Sprintf("%d (%.0f%% of %s, max %d rec / %.0f ms)", f.Violations, 100*f.AffectedShare, what,
		f.MaxDisplacementRecords, f.MaxDisplacementMs)
}

// OrderLine states a run's order audit as one sentence ("" when it was not
// measured).
func OrderLine(r runs.Record) string {
	o := r.Audit.Order
	if o == nil {
		return ""
	}
	part := o.Partition
	line := fmt.Sprintf("order per partition: %d of %d processed records out of order (%d of %d partitions, max %d records / %.1f ms behind)",
		part.Violations, part.Checked, part.Affected, part.Streams, part.MaxDisplacementRecords, part.MaxDisplacementMs)
	if o.Keyed {
		line = fmt.Sprintf("order per key: %d of %d processed records out of order (%d of %d keys, %.1f%%, max %d records / %.1f ms behind); ",
			o.Violations, o.Checked, o.Affected, o.Streams, 100*o.AffectedShare, o.MaxDisplacementRecords, o.MaxDisplacementMs) + line
	}
	return line
}
