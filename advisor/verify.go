package advisor

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

// VerifyOptions shape the narrow sweep of `sharebench advise --verify`.
type VerifyOptions struct {
	Warmup   time.Duration // per run [3s]
	Duration time.Duration // measurement window per run [10s]
	// Where are extra recommend: clauses ("latency.completion_ms.p99 <= 500ms")
	// the measured best must satisfy, besides no loss and no lock expiry.
	Where []string
}

// DefaultVerifyOptions are the CLI's defaults.
func DefaultVerifyOptions() VerifyOptions {
	return VerifyOptions{Warmup: 3 * time.Second, Duration: 10 * time.Second}
}

// VerifyPoint is one point of the verify sweep: members and max.poll.records.
type VerifyPoint struct{ Members, MaxPollRecords int }

// VerifyPoints is the plus-shaped neighbourhood of the advice: the
// recommendation, members one step below and above (step = max(1,
// round(members/4))) at the recommended max.poll.records, and
// max.poll.records halved and doubled (within 1–10000) at the recommended
// members. Points that coincide after clamping are dropped.
func VerifyPoints(a Advice) []VerifyPoint {
	m, mpr := a.Members, a.MaxPollRecords
	step := max(1, int(math.Round(float64(m)/4)))
	limit := a.ShareGroupMaxSize
	if limit < 1 {
		limit = 200
	}
	cands := []VerifyPoint{
		{m, mpr},
		{max(1, m-step), mpr}, {min(limit, m+step), mpr},
		{m, max(1, mpr/2)}, {m, min(10000, mpr*2)},
	}
	var out []VerifyPoint
	for _, c := range cands {
		dup := false
		for _, o := range out {
			dup = dup || o == c
		}
		if !dup {
			out = append(out, c)
		}
	}
	return out
}

// VerifyScenario writes the scenario `advise --verify` runs: both consumer
// types at each VerifyPoints point (members and max_poll_records advance
// together), offered the design rate R' on the given partitions, with the
// advice's record locks and lock duration as broker settings, and a
// recommend: block that names the best max_poll_records (and the grouping
// gives members too) under no loss, no lock expiry and opt.Where.
func VerifyScenario(in Input, a Advice, opt VerifyOptions) ([]byte, error) {
	pts := VerifyPoints(a)
	var members, mprs []string
	for _, p := range pts {
		members = append(members, fmt.Sprint(p.Members))
		mprs = append(mprs, fmt.Sprint(p.MaxPollRecords))
	}
	proc, err := ProcessingYAML(in.Processing)
	if err != nil {
		return nil, err
	}
	where := append([]string{"audit.lost == 0", "audit.undelivered == 0", "outcomes.lock_expired_completions == 0"}, opt.Where...)
	for i, w := range where {
		where[i] = fmt.Sprintf("%q", w)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "name: advise-verify\n")
	fmt.Fprintf(&b, "description: >-\n  advise --verify: %s at %.6g records/s offered (target %.6g + headroom), %s, %d partitions;\n"+
		"  recommended members %d, max_poll_records %d, ceiling %.6g records/s.\n",
		"both group types", a.DesignRate, a.TargetRate, a.Processing, a.Partitions, a.Members, a.MaxPollRecords, a.Ceiling)
	fmt.Fprintf(&b, "consumer_type: [share, consumer]\n")
	fmt.Fprintf(&b, "partitions: %d\nworkers: %d\nrate: %.6g\n", in.Partitions, a.Workers, a.DesignRate)
	fmt.Fprintf(&b, "producers: %d\n", max(1, min(4, int(math.Ceil(a.DesignRate/5000)))))
	fmt.Fprintf(&b, "members: [%s]\nmax_poll_records: [%s]\n", strings.Join(members, ", "), strings.Join(mprs, ", "))
	fmt.Fprintf(&b, "sweep: {together: [[members, max_poll_records]]}\n")
	fmt.Fprintf(&b, "processing: %s\n", proc)
	fmt.Fprintf(&b, "ack_mode: explicit\nwarmup: %s\nduration: %s\ndrain_timeout: 60s\n", opt.Warmup, opt.Duration)
	// The advice's lock duration lies within the default bounds
	// group.share.min/max.record.lock.duration.ms (15000–60000).
	fmt.Fprintf(&b, "broker_config:\n  %s: %d\n  %s: %d\n",
		scenarios.KeyRecordLocks, a.RecordLocks, scenarios.KeyRecordLockDuration, a.LockDurationMs)
	if a.Members > 200 {
		fmt.Fprintf(&b, "  %s: %d\n", scenarios.KeyShareGroupMaxSize, a.ShareGroupMaxSize)
	}
	fmt.Fprintf(&b, "recommend:\n  knob: max_poll_records\n  maximize: throughput.completed_per_sec\n  where: [%s]\n",
		strings.Join(where, ", "))
	return []byte(b.String()), nil
}

// ProcessingYAML writes a processing model as a scenario's flow map:
// "{model: lognormal, median: 10ms, p99: 50ms}".
func ProcessingYAML(p scenarios.Processing) (string, error) {
	switch p.Model {
	case "constant":
		return fmt.Sprintf("{model: constant, time: %s}", p.Time), nil
	case "uniform":
		return fmt.Sprintf("{model: uniform, min: %s, max: %s}", p.Min, p.Max), nil
	case "exponential":
		return fmt.Sprintf("{model: exponential, mean: %s}", p.Mean), nil
	case "lognormal":
		return fmt.Sprintf("{model: lognormal, median: %s, p99: %s}", p.Median, p.P99), nil
	}
	return "", fmt.Errorf("--processing: model %q cannot be verified", p.Model)
}

// Verified is the outcome of a verify sweep: the measured best next to the
// recommendation, and how close the share group came to the formula's
// ceiling at the recommended point.
type Verified struct {
	Recommended VerifyPoint `json:"recommended"`
	Ceiling     float64     `json:"ceiling_records_per_sec"` // the advice's ceiling
	// BestMaxPollRecords and BestMembers answer "best max_poll_records (at
	// each members value)" and "best members (at each max_poll_records
	// value)" per consumer type, under the clauses.
	BestMaxPollRecords runs.Recommendation `json:"best_max_poll_records"`
	BestMembers        runs.Recommendation `json:"best_members"`
	// At the recommended point, share group: completed records/s, its ratio
	// to min(offered, advice ceiling), and whether that is ≥ 0.95.
	Completed  float64 `json:"completed_per_sec"`
	Offered    float64 `json:"offered_per_sec"`
	Efficiency float64 `json:"efficiency"`
	Reached    bool    `json:"ceiling_reached"`
	RunID      string  `json:"run_id"`
}

// ReachedEfficiency is the share of min(offered, ceiling) the share group
// must complete at the recommended point for the ceiling to count as reached.
const ReachedEfficiency = 0.95

// Verify reads a verify campaign's runs against the advice.
func Verify(a Advice, recs []runs.Record, where []scenarios.Clause) (Verified, error) {
	v := Verified{Recommended: VerifyPoint{a.Members, a.MaxPollRecords}, Ceiling: a.Ceiling}
	var err error
	q := scenarios.Recommend{Knob: "max_poll_records", Maximize: "throughput.completed_per_sec", Where: where}
	if v.BestMaxPollRecords, err = runs.Recommend(recs, q); err != nil {
		return v, err
	}
	q.Knob = "members"
	if v.BestMembers, err = runs.Recommend(recs, q); err != nil {
		return v, err
	}
	for _, r := range recs {
		if r.ConsumerType == vocab.ShareGroup && r.Spec != nil && r.Spec.Members == a.Members && r.Spec.MaxPollRecords == a.MaxPollRecords {
			v.RunID, v.Completed, v.Offered = r.RunID, r.UsefulPerSec(), r.Throughput.OfferedPerSec // the ceiling's basis
			if bound := math.Min(v.Offered, a.Ceiling); bound > 0 {
				v.Efficiency = v.Completed / bound
			}
			v.Reached = v.Efficiency >= ReachedEfficiency
			return v, nil
		}
	}
	return v, fmt.Errorf("verify: no share run at members %d, max_poll_records %d", a.Members, a.MaxPollRecords)
}

// WriteText prints the verification.
func (v Verified) WriteText(w io.Writer) {
	reached := "no"
	if v.Reached {
		reached = "yes"
	}
	fmt.Fprintf(w, "\nverify: recommended members %d, max_poll_records %d, ceiling %.6g records/s\n",
		v.Recommended.Members, v.Recommended.MaxPollRecords, v.Ceiling)
	fmt.Fprintf(w, "  share at the recommendation (%s): completed %.1f records/s of %.6g offered = %.3f of min(offered, ceiling); ceiling reached (≥ %.2f): %s\n",
		v.RunID, v.Completed, v.Offered, v.Efficiency, ReachedEfficiency, reached)
	for i, rec := range []runs.Recommendation{v.BestMaxPollRecords, v.BestMembers} {
		recommended := fmt.Sprint([]int{v.Recommended.MaxPollRecords, v.Recommended.Members}[i])
		fmt.Fprintf(w, "  measured %s:\n", runs.QueryText(rec.Query))
		for _, g := range rec.Groups {
			if len(g.Candidates) < 2 {
				continue // a single point: nothing was compared
			}
			for _, l := range (runs.Recommendation{Query: rec.Query, Groups: []runs.RecommendGroup{g}}).Lines() {
				fmt.Fprintf(w, "    %s\n", l)
			}
			if line := versusRecommended(g, rec.Query, recommended); line != "" {
				fmt.Fprintf(w, "      %s\n", line)
			}
		}
	}
}

// versusRecommended compares a group's best with the recommended value:
// "recommended 800: 240.2 (best 400 is +0.5%)".
func versusRecommended(g runs.RecommendGroup, q scenarios.Recommend, recommended string) string {
	for _, c := range g.Candidates {
		if c.Value != recommended {
			continue
		}
		status := "qualifies"
		if !c.Qualifies() {
			status = "excluded"
		}
		if g.Best == "" || g.Best == recommended || c.Figure == 0 {
			return fmt.Sprintf("recommended %s=%s: %s %.4g (%s)", q.Knob, recommended, q.Maximize, c.Figure, status)
		}
		return fmt.Sprintf("recommended %s=%s: %s %.4g (%s); the best is %+.1f%% above it",
			q.Knob, recommended, q.Maximize, c.Figure, status, 100*(g.Figure/c.Figure-1))
	}
	return ""
}
