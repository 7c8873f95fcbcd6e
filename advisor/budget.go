package advisor

import (
	"fmt"
	"math"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

// BoundRateBudget names the rule that set max.poll.records when a p99
// budget or a hold-time limit is given: the smallest max.poll.records whose
// members meet the design rate, within the budget.
const BoundRateBudget = "smallest_meeting_rate"

// processingP99Ms is the processing model's 99th percentile in ms.
func processingP99Ms(p scenarios.Processing) float64 {
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	switch p.Model {
	case "constant":
		return ms(p.Time)
	case "uniform":
		return ms(p.Min) + 0.99*(ms(p.Max)-ms(p.Min))
	case "exponential":
		return ms(p.Mean) * math.Log(100)
	case "lognormal":
		return ms(p.P99)
	}
	return ms(p.Average())
}

// memberRate is what a member completes with batches of mpr records: a
// batch takes mpr·P/workers of processing plus one poll round trip.
func (a *Advice) memberRate(mpr int) float64 {
	return float64(mpr) * 1000 / (float64(mpr)*a.ProcessingMs/float64(a.Workers) + a.PollOverheadMs)
}

// predictedP99 is the completion p99 the plan predicts with batches of mpr:
// the batch (the last record waits for the ones before it on its worker),
// the poll round trip, and the processing tail above the mean.
func (a *Advice) predictedP99(mpr int, p99Ms float64) float64 {
	return float64(mpr)*a.ProcessingMs/float64(a.Workers) + a.PollOverheadMs + max(0, p99Ms-a.ProcessingMs)
}

// budget applies --p99-budget and --max-hold: it takes the smallest
// max.poll.records with which the members meet the design rate (each batch
// costs a poll round trip, so very small batches cost throughput), and
// keeps it within the lock and lock-duration bounds, the hold limit
// (mpr·P/workers + poll overhead ≤ max hold) and the p99 budget. When no
// max.poll.records fits, it finds how many members (up to Kafka's limit)
// one would fit with and sets a.raise: Advise then plans again with them.
// Small batches keep records Acquired for less time and completion latency
// low; the explanation goes into the notes.
func (a *Advice) budget(in Input) {
	if in.P99Budget <= 0 && in.MaxHold <= 0 {
		return
	}
	p99 := processingP99Ms(in.Processing)
	// upper is the largest max.poll.records allowed with m members, and the
	// bound that sets it.
	upper := func(m int) (int, string) {
		u, why := a.MaxPollRecords, a.MaxPollRecordsBound
		if m != a.Members {
			cpp := ceilInt(float64(m) / float64(a.Partitions))
			u = max(1, min(floorInt(LockShare*float64(in.RecordLocks)/float64(cpp)), a.MaxPollRecordsDurationBound))
		}
		if in.MaxHold > 0 {
			if h := floorInt((ms(in.MaxHold) - a.PollOverheadMs) * float64(a.Workers) / a.ProcessingMs); h < u {
				u, why = h, "max_hold"
			}
		}
		if in.P99Budget > 0 {
			if b := floorInt((ms(in.P99Budget) - a.PollOverheadMs - max(0, p99-a.ProcessingMs)) * float64(a.Workers) / a.ProcessingMs); b < u {
				u, why = b, "p99_budget"
			}
		}
		return u, why
	}
	_, firstWhy := upper(a.Members)
	for m := a.Members; ; m++ {
		u, why := upper(m)
		chosen := 0
		for mpr := 1; mpr <= u; mpr++ {
			if float64(m)*a.memberRate(mpr) >= a.DesignRate {
				chosen = mpr
				break
			}
		}
		switch {
		case chosen > 0 && m == a.Members:
			a.setBudgetPlan(in, chosen, u, why, p99)
			return
		case chosen > 0:
			a.raise = membersRaise{from: a.Members, to: m, why: firstWhy}
			return
		case u < 1 || m >= MaxShareGroupMaxSize:
			a.note("no max.poll.records meets %s records/s within the budget (p99 %v, max hold %v): even one record per poll "+
				"predicts p99 %s ms; the plan keeps max.poll.records %d", num(a.DesignRate), in.P99Budget, in.MaxHold,
				num(a.predictedP99(1, p99)), a.MaxPollRecords)
			a.PredictedP99Ms = a.predictedP99(a.MaxPollRecords, p99)
			return
		}
	}
}

// setBudgetPlan records the budget's choice and explains it.
func (a *Advice) setBudgetPlan(in Input, mpr, upper int, why string, p99 float64) {
	a.MaxPollRecords, a.MaxPollRecordsBound = mpr, BoundRateBudget
	a.BatchMs = float64(mpr) * a.ProcessingMs / float64(a.Workers)
	a.WMs = a.BatchMs + a.PollOverheadMs
	a.PredictedP99Ms = a.predictedP99(mpr, p99)
	a.formula("max_poll_records", "smallest n ≤ %d (%s) with members·n·1000/(n·P/workers + poll overhead) ≥ rate·(1+headroom): "+
		"%d·%d·1000/(%d·%s/%d + %s) = %s ≥ %s → %d", upper, why, a.Members, mpr, mpr, num(a.ProcessingMs), a.Workers,
		num(a.PollOverheadMs), num(float64(a.Members)*a.memberRate(mpr)), num(a.DesignRate), mpr)
	a.formula("predicted_p99_ms", "n·P/workers + poll overhead + (processing p99 − P) = %d·%s/%d + %s + %s = %s",
		mpr, num(a.ProcessingMs), a.Workers, num(a.PollOverheadMs), num(max(0, p99-a.ProcessingMs)), num(a.PredictedP99Ms))
	a.formula("batch_ms", "max.poll.records·P/workers = %d·%s/%d = %s", mpr, num(a.ProcessingMs), a.Workers, num(a.BatchMs))
	a.formula("w_ms", "batch + poll overhead = %s + %s = %s", num(a.BatchMs), num(a.PollOverheadMs), num(a.WMs))
	a.note("max.poll.records %d is the smallest that meets %s records/s with %d members (a poll round trip of %s ms per batch "+
		"costs throughput below it); larger batches, up to %d (%s), would only lengthen the time records stay Acquired "+
		"and the completion latency: predicted p99 %s ms%s",
		mpr, num(a.DesignRate), a.Members, num(a.PollOverheadMs), upper, why, num(a.PredictedP99Ms), budgetWords(a, in))
}

func budgetWords(a *Advice, in Input) string {
	var s string
	if in.P99Budget > 0 {
		s += fmt.Sprintf(" within the %v budget", in.P99Budget)
	}
	if in.MaxHold > 0 {
		s += fmt.Sprintf("; W %s ms within the %v hold limit", num(a.WMs), in.MaxHold)
	}
	return s
}
