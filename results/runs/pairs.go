package runs

import (
	"encoding/json"
	"fmt"

	"github.com/sharebench/sharebench/vocab"
)

// SpecKey is the canonical JSON of a run's spec without the fields named in
// ignore (e.g. "trial"): two runs with the same key ran the same settings.
// It is "" when the run has no spec.
func SpecKey(r Record, ignore ...string) string {
	if r.Spec == nil {
		return ""
	}
	b, err := json.Marshal(r.Spec)
	if err != nil {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	for _, k := range ignore {
		delete(m, k)
	}
	b, _ = json.Marshal(m) // map keys marshal sorted: canonical
	return string(b)
}

// Pair is a consumer-group run and a share-group run on otherwise identical
// settings.
type Pair struct {
	Consumer, Share Record
}

// Pairs matches each consumer-group run with the first unused share-group
// run whose spec differs only in consumer_type; runs without a spec pair in
// order of appearance.
func Pairs(runs []Record) []Pair {
	var shares []Record
	for _, r := range runs {
		if r.ConsumerType == vocab.ShareGroup {
			shares = append(shares, r)
		}
	}
	used := make([]bool, len(shares))
	var out []Pair
	for _, c := range runs {
		if c.ConsumerType == vocab.ShareGroup {
			continue
		}
		key := SpecKey(c, "consumer_type")
		for i, s := range shares {
			if !used[i] && SpecKey(s, "consumer_type") == key {
				used[i] = true
				out = append(out, Pair{Consumer: c, Share: s})
				break
			}
		}
	}
	return out
}

// RateText is the rate a line prints beside the ceiling, on its basis:
// "379 records/s", or with completions redone after their lock expired
// "18 records/s (23 completions/s, 5 of them redone after the lock expired)".
func (r Record) RateText() string {
	u, c := r.UsefulPerSec(), r.Throughput.CompletedPerSec
	if redone := c - u; redone >= 0.5 {
		return fmt.Sprintf("%.0f records/s (%.0f completions/s, %.0f of them redone after the lock expired)", u, c, redone)
	}
	return fmt.Sprintf("%.0f records/s", u)
}

// UsefulPerSec is throughput.useful_per_sec; in a file written before it
// (0 with no completion after a lock expired) throughput.completed_per_sec,
// which it then equals.
func (r Record) UsefulPerSec() float64 {
	if r.Throughput.UsefulPerSec == 0 && r.Outcomes.LockExpiredCompleted == 0 {
		return r.Throughput.CompletedPerSec
	}
	return r.Throughput.UsefulPerSec
}

// Verdict is one line on a pair: each arm's throughput, ceiling and bound,
// and the share/consumer throughput ratio.
func (p Pair) Verdict() string {
	c, s := p.Consumer, p.Share
	line := fmt.Sprintf("%s vs %s: consumer group %s (ceiling %.0f, %s-bound), share group %s (ceiling %.0f, %s-bound)",
		c.RunID, s.RunID, c.RateText(), c.Ceiling.RecordsPerSec, c.Ceiling.HeldBound(),
		s.RateText(), s.Ceiling.RecordsPerSec, s.Ceiling.HeldBound())
	if c.UsefulPerSec() > 0 {
		line += fmt.Sprintf(": share/consumer = %.2fx", s.UsefulPerSec()/c.UsefulPerSec())
	}
	for _, r := range []Record{c, s} {
		if r.Ceiling.Move != "" && r.Ceiling.HeldBound() != BoundProducer {
			line += fmt.Sprintf("; %s: %s would move it (%s)", r.RunID, r.Ceiling.Move, r.Ceiling.Evidence)
		}
	}
	return line
}
