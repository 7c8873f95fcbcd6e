package runs

import (
	"fmt"
	"strings"
)

// Bounds is the documented set a run's binding constraint comes from
// (docs/explanation/measurement.md#bounds): the formula bounds ComputeCeiling takes the
// minimum of, then the measured ones Judge may put in their place.
var Bounds = []Bound{BoundProducer, BoundWorkers, BoundLocks, BoundLockWindow, BoundLockExpiry, BoundFetchWaits,
	BoundDestination, BoundBrokerSaturation, BoundHostSaturation, BoundUnexplained}

// explainedShare is how close to the formula ceiling a measured rate must
// come for the formula bound to count as what held: further below, a
// saturated broker or host holds, or the model does not explain the run.
const explainedShare = 0.75

// Saturation is what a run measured of its broker and host, and of its
// requests: the evidence of the measured bounds.
type Saturation struct {
	HandlerIdleMin   float64 // broker request_handler_idle_min (0–1); <0: not measured
	BrokerCPUPercent float64 // broker cpu_percent_avg: a share of all host cores (0–100)
	HostCPUPercent   float64 // host busy share of all cores (0–100)
	Requests         []RequestFigure
}

// saturated names the measured bound that holds, with its evidence: the
// host above 95 % busy, or the brokers' request handlers under 10 % idle
// or their CPU above 90 % of the host's cores.
func (s Saturation) saturated() (Bound, string) {
	if s.HostCPUPercent > 95 {
		return BoundHostSaturation, fmt.Sprintf("host CPU %.0f%% busy", s.HostCPUPercent)
	}
	if s.HandlerIdleMin >= 0 && s.HandlerIdleMin < 0.1 {
		return BoundBrokerSaturation, fmt.Sprintf("request handlers %.0f%% idle at the lowest", 100*s.HandlerIdleMin)
	}
	if s.BrokerCPUPercent > 90 {
		return BoundBrokerSaturation, fmt.Sprintf("broker CPU %.0f%% of the host's cores", s.BrokerCPUPercent)
	}
	return "", ""
}

// moves is, per bound, what would move it.
var moves = map[Bound]string{
	BoundProducer:         "raise the offered rate: the consumers kept up",
	BoundWorkers:          "add members or workers, or shorten processing",
	BoundLocks:            "raise share.partition.max.record.locks, lower max_poll_records or add partitions",
	BoundLockWindow:       "raise share.partition.max.record.locks or add partitions; shorten the hold time",
	BoundLockExpiry:       "lower max_poll_records, add workers, lengthen the record lock or use renew: auto",
	BoundFetchWaits:       "acquire_mode batch_optimized, or members ≥ partitions, or fetch_max_wait 100ms",
	BoundDestination:      "a larger pool, more destination connections or a larger batch_size, or a faster destination: more members help only while they get connections and the destination's write time holds",
	BoundBrokerSaturation: "more brokers or broker cores, or fewer requests (larger max_poll_records)",
	BoundHostSaturation:   "give the brokers and the harness their own cores",
	BoundUnexplained:      "the model does not explain this run: read the request timings and broker metrics",
}

// Move is what would move a bound.
func Move(bound Bound) string { return moves[bound] }

// Judge names the bound that held for a measured useful rate
// (throughput.useful_per_sec, the basis of RecordsPerSec): the formula
// bound when the rate came within explainedShare of it; else a
// saturated host or broker; else "unexplained" (Check flags it). It sets
// Held, Evidence and Move.
func (c Ceiling) Judge(usefulPerSec float64, s Saturation) Ceiling {
	c.Held, c.Evidence = c.Bound, c.evidence(s)
	if c.RecordsPerSec > 0 && c.Bound != BoundNone && usefulPerSec < explainedShare*c.RecordsPerSec {
		short := fmt.Sprintf("measured %.0f records/s is %.0f%% of the %.0f records/s %s bound",
			usefulPerSec, 100*usefulPerSec/c.RecordsPerSec, c.RecordsPerSec, c.Bound)
		if b, ev := s.saturated(); b != "" {
			c.Held, c.Evidence = b, short+"; "+ev
		} else {
			c.Held, c.Evidence = BoundUnexplained, short+"; no broker or host saturation seen"
		}
	}
	c.Move = Move(c.Held)
	return c
}

// evidence is the formula bound's figures, with the fetches' measured
// empty share and wait under fetch_waits.
func (c Ceiling) evidence(s Saturation) string {
	switch c.Bound {
	case BoundWorkers:
		return fmt.Sprintf("%d active members × workers at the mean processing time", c.ActiveMembers)
	case BoundLocks:
		return fmt.Sprintf("holders %v per partition at %.0f records/acquisition", c.HoldersPerPartition, c.RecordsPerAcquisition)
	case BoundLockWindow:
		return fmt.Sprintf("partitions × record locks ÷ hold time = %.0f records/s", c.Locks)
	case BoundDestination:
		ev := fmt.Sprintf("%.0f records/s: statements at once ÷ service time per record (workers %.0f records/s with the write)", c.Destination, c.Workers)
		if c.DestinationDuty > 0 {
			ev += fmt.Sprintf("; each member's connections busy %.0f%% of its time, idle between its batches", 100*c.DestinationDuty)
		}
		return ev
	case BoundLockExpiry:
		return fmt.Sprintf("%.0f%% of each acquisition finishes inside its lock, the rest is redone", 100*c.UsefulShare)
	case BoundFetchWaits:
		var parts []string
		for _, m := range c.FetchMembers {
			parts = append(parts, fmt.Sprintf("%d/%d", m.Busy, m.Brokers))
		}
		ev := "members' brokers with records/brokers [" + strings.Join(parts, " ") + "]"
		if c.FetchRoundTripMs > 0 {
			ev += fmt.Sprintf("; %.1f ms a fetch's round trip", c.FetchRoundTripMs)
		}
		for _, r := range s.Requests {
			if IsFetch(r.Kind) && r.EmptyShare > 0 {
				ev += fmt.Sprintf("; broker %d: %.0f%% of %d %s empty, %.0f ms each", r.Broker, 100*r.EmptyShare, r.Count, r.Kind, r.EmptyMeanMs)
			}
		}
		return ev
	}
	return ""
}

// HeldBound is the bound that held: Held after Judge, else the formula's.
func (c Ceiling) HeldBound() Bound {
	if c.Held != "" {
		return c.Held
	}
	return c.Bound
}
