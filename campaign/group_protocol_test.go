package campaign

import (
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// The protocols built-in's where: selectors find its runs, and figures as
// each protocol's join predicts them (eager: all 4 partitions paused at
// once, a group stop; cooperative: 2 moved, the longest 0.5 s; KIP-848: 2
// moved, the longest 3.2 s, new members' first record after 5.0 s; share:
// none) meet its expectations; the same figures with eager's and KIP-848's
// swapped do not.
func TestProtocolsExpectationsEvaluate(t *testing.T) {
	sc, err := scenarios.Builtin("protocols")
	if err != nil {
		t.Fatal(err)
	}
	eager := runs.EventSummary{RebalancePauses: 4, RebalancePartitions: 4, RebalancePeakPaused: 4, GroupStopSec: 0.03,
		RebalancePauseMaxS: 0.05, FirstRecordMaxSec: fptr(0.8)}
	coop := runs.EventSummary{RebalancePauses: 2, RebalancePartitions: 2, RebalancePeakPaused: 2, RebalancePauseMaxS: 0.5,
		FirstRecordMaxSec: fptr(1.8)}
	kip848 := runs.EventSummary{RebalancePauses: 2, RebalancePartitions: 2, RebalancePeakPaused: 2, RebalancePauseMaxS: 3.2,
		FirstRecordMaxSec: fptr(5.0)}
	share := runs.EventSummary{FirstRecordMaxSec: fptr(0.01)}
	records := func(swap bool) []runs.Record {
		var recs []runs.Record
		for i, spec := range sc.Runs {
			r := runs.Record{RunID: sc.RunName(i), ConsumerType: spec.ConsumerType, Spec: &spec,
				Group: &runs.GroupInfo{Requested: string(spec.GroupProtocol), Protocol: string(spec.GroupProtocol)}}
			var sum runs.EventSummary
			switch {
			case spec.ConsumerType == "share":
				sum = share
				r.Group.Protocol, r.Group.Requested = "share", "share"
			case spec.GroupProtocol == "consumer":
				sum = kip848
				if swap {
					sum = eager
				}
			case spec.Assignor == "range":
				sum = eager
				if swap {
					sum = kip848
				}
			default:
				sum = coop
			}
			r.EventSummary = &sum
			r.Audit = results.Audit{Produced: 5400, CompletedOnce: 5400, Balanced: true}
			recs = append(recs, r)
		}
		return recs
	}
	for _, o := range EvaluateExpectations(sc, records(false)) {
		if !o.Met {
			t.Errorf("%s: %s", o.Name, o.Line())
		}
	}
	failed := 0
	for _, o := range EvaluateExpectations(sc, records(true)) {
		if !o.Met {
			failed++
		}
	}
	// eager: 4 partitions, 4 at once, a stop; KIP-848: 1–2 partitions, no
	// stop, first record ≥ 4.5 s.
	if failed < 6 {
		t.Errorf("eager's and KIP-848's figures swapped: %d expectations not met, want at least 6", failed)
	}
}

func fptr(v float64) *float64 { return &v }
