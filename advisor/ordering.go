package advisor

import (
	"fmt"
	"slices"
	"strings"
)

// Orderings are the values of --ordering: what order the application needs.
var Orderings = []string{"none", "per-key"}

// ordering applies --ordering per-key: a share group hands one key's
// records to several members (and workers) at once, so it cannot keep a
// key's records in produce order (the ordering built-in measures it,
// audit.order.violations > 0). A consumer group keeps a key in order when
// each partition is processed by one worker: it needs one partition per
// single-worker member, ceil(rate·(1+headroom)·P/1000) of them.
func (a *Advice) ordering(in Input) {
	a.Ordering = in.Ordering
	if in.Ordering != "per-key" {
		return
	}
	a.OrderingRulesOutShare = true
	a.ShareWorthIt = false
	a.OrderedPartitionsNeeded = max(1, ceilInt(a.DesignRate*a.ProcessingMs/1000))
	a.formula("ordered_partitions_needed", "one single-worker member per partition: ceil(rate·(1+headroom)·P/1000) = ceil(%s·%s/1000) = %d",
		num(a.DesignRate), num(a.ProcessingMs), a.OrderedPartitionsNeeded)
	a.formula("share_worth_it", "--ordering per-key: a share group processes a key's records on several members at once, out of produce order")
	why := fmt.Sprintf("--ordering per-key rules a share group out: it hands one key's records to several members at once, "+
		"which finish them out of produce order; use a consumer group with ≥ %d partitions and %d members of 1 worker each "+
		"(one worker per partition keeps every key in order)", a.OrderedPartitionsNeeded, a.OrderedPartitionsNeeded)
	if a.OrderedPartitionsNeeded > a.Partitions {
		why += fmt.Sprintf("; the topic has %d partitions: add %d", a.Partitions, a.OrderedPartitionsNeeded-a.Partitions)
	}
	a.Reasons = append([]string{why}, a.Reasons...)
	if in.Workers > 1 {
		a.note("--workers %d per member keeps key order only if the workers shard records by key (one key, one worker); "+
			"otherwise use 1 worker per member and %d partitions", in.Workers, a.OrderedPartitionsNeeded)
	}
}

func checkOrdering(o string) error {
	if o == "" || slices.Contains(Orderings, o) {
		return nil
	}
	return fmt.Errorf("--ordering: expected one of %s, got %q", strings.Join(Orderings, ", "), o)
}
