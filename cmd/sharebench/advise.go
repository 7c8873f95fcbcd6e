package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sharebench/sharebench/advisor"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// newAdviseCmd is `sharebench advise`: flags → advisor.Input → advisor.Advise
// → text or JSON. All the math lives in package advisor.
func newAdviseCmd() *cobra.Command {
	in := advisor.Defaults()
	var processing string
	var asJSON, verify bool
	var rf runFlags
	var verifyOnly []string // set below, once the flags are registered
	vopt := advisor.DefaultVerifyOptions()
	cmd := &cobra.Command{
		Use:   "advise",
		Short: "Size a share group for a target rate: members, max.poll.records, record locks, lock duration, ceiling",
		Long: "advise applies the capacity formulas (Little's law on the in-flight window) to a target rate and a\n" +
			"processing time, and says whether a consumer group on the existing partitions could do the same.\n" +
			"Every number is printed with the formula behind it. Nothing is run against Kafka.",
		Example: "  sharebench advise --rate 1000 --processing 10ms --partitions 4\n" +
			"  sharebench advise --rate 5000 --processing lognormal:median=10ms,p99=50ms --partitions 12 --workers 4 --json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var missing []error
			for _, r := range []struct{ flag, what string }{
				{"rate", "the target records/s, e.g. --rate 1000"},
				{"processing", "the processing time per record: " + advisor.ProcessingSyntax},
				{"partitions", "the topic's partitions, e.g. --partitions 4"},
			} {
				if !cmd.Flags().Changed(r.flag) {
					missing = append(missing, fmt.Errorf("--%s: required, %s", r.flag, r.what))
				}
			}
			if len(missing) > 0 {
				return usageError(errors.Join(missing...))
			}
			if err := ignoredWithoutVerify(cmd, verify, verifyOnly); err != nil {
				return usageError(err)
			}
			if err := adviseFlagBounds(cmd); err != nil {
				return usageError(err)
			}
			if verify && (cmd.Flags().Changed("destination-capacity") || cmd.Flags().Changed("destination-write")) {
				return usageError(errors.New("--verify with --destination-capacity or --destination-write: the verify sweep writes to no destination; " +
					"measure a destination with a scenario's destination: block (the destination-bound built-in) instead"))
			}
			for i, w := range vopt.Where {
				if _, err := scenarios.ParseClause(w); err != nil {
					return usageError(fmt.Errorf("--verify-where[%d]: %w", i+1, err))
				}
			}
			p, err := advisor.ParseProcessing(processing)
			if err != nil {
				return usageError(err)
			}
			in.Processing = p
			a, err := advisor.Advise(in)
			if err != nil {
				return usageError(err)
			}
			out := cmd.OutOrStdout()
			if asJSON && !verify {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(a)
			}
			if err := a.WriteText(out); err != nil || !verify {
				return err
			}
			return verifyAdvice(cmd, in, a, vopt, rf)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&in.Rate, "rate", 0, fmt.Sprintf("target records/s (required, 0 < rate ≤ %g)", advisor.MaxRate))
	f.StringVar(&processing, "processing", "", "processing time per record (required): "+advisor.ProcessingSyntax)
	f.IntVar(&in.Partitions, "partitions", 0, fmt.Sprintf("partitions of the topic (required, 1–%d)", advisePartitionsMax))
	f.IntVar(&in.Workers, "workers", in.Workers, fmt.Sprintf("workers per member (1–%d)", adviseWorkersMax))
	f.IntVar(&in.RecordLocks, "record-locks", in.RecordLocks, "current group.share.partition.max.record.locks (100-10000)")
	f.DurationVar(&in.LockDuration, "lock-duration", in.LockDuration, "current group.share.record.lock.duration.ms, as a duration")
	f.Float64Var(&in.Headroom, "headroom", in.Headroom, fmt.Sprintf("plan for this fraction above --rate (0.2 = 20%%; 0–%v)", advisor.MaxHeadroom))
	f.DurationVar(&in.PollOverhead, "poll-overhead", in.PollOverhead, "time per poll/ack round trip, added to W")
	f.DurationVar(&in.P99Budget, "p99-budget", 0, "completion p99 the plan must stay within; with it the plan takes the smallest max.poll.records that meets the rate (0: none)")
	f.DurationVar(&in.MaxHold, "max-hold", 0, "longest a record may stay Acquired, W = max.poll.records·P/workers + poll overhead (0: none)")
	f.StringVar(&in.Ordering, "ordering", "none", "the order the application needs: none, or per-key (rules a share group out; sizes a consumer group of single-worker members)")
	f.Float64Var(&in.DestinationCapacity, "destination-capacity", 0, "records/s the consumers' destination sustains (e.g. a destination-bound run's ceiling.destination): members are sized for at most this (0: none)")
	f.DurationVar(&in.DestinationWrite, "destination-write", 0, "time of a record's write to the destination, added to P: the write holds the worker (0: none)")
	f.BoolVar(&asJSON, "json", false, "print the plan as JSON (the fields of advisor.Advice)")
	f.BoolVar(&verify, "verify", false, "run a narrow sweep around the plan on a cluster (members ± a step, max.poll.records ÷2 and ×2, "+
		"share and consumer) and report the measured best next to it; takes the provider flags of run")
	f.DurationVar(&vopt.Warmup, "verify-warmup", vopt.Warmup, "--verify: warm-up of each run")
	f.DurationVar(&vopt.Duration, "verify-duration", vopt.Duration, "--verify: measurement window of each run")
	f.StringArrayVar(&vopt.Where, "verify-where", nil, "--verify: a constraint the measured best must meet, e.g. 'latency.completion_ms.p99<=500ms' (repeatable)")
	before := map[string]bool{}
	f.VisitAll(func(fl *pflag.Flag) { before[fl.Name] = true })
	rf.register(cmd)
	verifyOnly = []string{"verify-warmup", "verify-duration", "verify-where"}
	f.VisitAll(func(fl *pflag.Flag) {
		if !before[fl.Name] {
			verifyOnly = append(verifyOnly, fl.Name)
		}
	})
	return cmd
}

// ignoredWithoutVerify refuses the verify-only flags (the verify-* flags
// and the provider flags of run) given without --verify: the plan alone
// runs nothing, so they would change nothing.
func ignoredWithoutVerify(cmd *cobra.Command, verify bool, verifyOnly []string) error {
	if verify {
		return nil
	}
	var errs []error
	for _, name := range verifyOnly {
		if cmd.Flags().Changed(name) {
			errs = append(errs, fmt.Errorf("--%s: only advise --verify reads it (without --verify nothing runs, so it would be ignored); add --verify or drop it", name))
		}
	}
	return errors.Join(errs...)
}

// Bounds of advise's numeric flags: the advisor's own limits, and the
// scenario limits for counts (a plan must be runnable with --verify).
const (
	advisePartitionsMax = 10000
	adviseWorkersMax    = 10000
	advisePollOverMax   = time.Hour
	adviseVerifyMax     = 24 * time.Hour
)

// adviseFlagBounds refuses numeric flags out of their range, naming the
// flag, the bounds and the value as given (before any arithmetic on it).
func adviseFlagBounds(cmd *cobra.Command) error {
	f := cmd.Flags()
	val := func(name string) string { return f.Lookup(name).Value.String() }
	var errs []error
	float := func(name string, lo, hi float64, loOpen bool, unit string) {
		v, _ := f.GetFloat64(name)
		if math.IsNaN(v) || v < lo || v > hi || loOpen && v == lo {
			open := "["
			if loOpen {
				open = "("
			}
			errs = append(errs, fmt.Errorf("--%s: must be in %s%g, %g]%s, got %s", name, open, lo, hi, unit, val(name)))
		}
	}
	integer := func(name string, lo, hi int, unit string) {
		if v, _ := f.GetInt(name); v < lo || v > hi {
			errs = append(errs, fmt.Errorf("--%s: must be in [%d, %d]%s, got %s", name, lo, hi, unit, val(name)))
		}
	}
	duration := func(name string, lo, hi time.Duration) {
		if v, _ := f.GetDuration(name); v < lo || v > hi {
			errs = append(errs, fmt.Errorf("--%s: must be in [%v, %v], got %s", name, lo, hi, val(name)))
		}
	}
	float("rate", 0, advisor.MaxRate, true, " records/s")
	float("headroom", 0, advisor.MaxHeadroom, false, " (0.2 plans for 20% above --rate)")
	integer("partitions", 1, advisePartitionsMax, "")
	integer("workers", 1, adviseWorkersMax, " per member")
	integer("record-locks", advisor.MinRecordLocks, advisor.MaxRecordLocks, " (Kafka's range for "+scenarios.KeyRecordLocks+")")
	duration("lock-duration", advisor.MinLockDuration, advisor.MaxLockDuration)
	duration("poll-overhead", 0, advisePollOverMax)
	float("destination-capacity", 0, advisor.MaxRate, false, " records/s (0: none)")
	duration("destination-write", 0, advisePollOverMax)
	duration("verify-warmup", 0, adviseVerifyMax)
	if v, _ := f.GetDuration("verify-warmup"); v > 0 && v < time.Second {
		// The verify scenario's warmup: 0 or ≥ 1 s, checked here so the
		// error names the flag, not a line of the generated scenario.
		errs = append(errs, fmt.Errorf("--verify-warmup: must be 0 (none) or ≥ 1s: the time series has one-second resolution, got %s", val("verify-warmup")))
	}
	duration("verify-duration", time.Second, adviseVerifyMax)
	return errors.Join(errs...)
}

// verifyAdvice runs the verify sweep around the advice and prints the
// measured best next to it; verify.json goes into the campaign folder.
func verifyAdvice(cmd *cobra.Command, in advisor.Input, a advisor.Advice, opt advisor.VerifyOptions, rf runFlags) error {
	yaml, err := advisor.VerifyScenario(in, a, opt)
	if err != nil {
		return err
	}
	sc, err := scenarios.LoadBytes("advise --verify", yaml, os.Environ(), rf.sets)
	if err != nil {
		return fmt.Errorf("verify scenario: %w", err)
	}
	if sc.Recommend == nil {
		return fmt.Errorf("verify scenario: no recommend block")
	}
	if rf.dist.Distribute == "" {
		rf.dist.Distribute = "local" // advise has no distribute flags: one process
	}
	if err := preflight(rf, sc, cmd.Flags().Changed); err != nil {
		return err
	}
	res, err := runCampaign(cmd, sc, rf)
	if err != nil {
		return err
	}
	v, err := advisor.Verify(a, res.Runs, sc.Recommend.Where)
	if err != nil {
		return err
	}
	v.WriteText(cmd.OutOrStdout())
	return runs.WriteJSON(filepath.Join(res.Dir, "verify.json"), v)
}
