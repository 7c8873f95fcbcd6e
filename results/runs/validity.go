package runs

import (
	"fmt"
	"strings"
	"time"

	"github.com/sharebench/sharebench/results"
)

// Validity lists the reasons a run's numbers may not be about Kafka.
type Validity struct {
	Valid bool   `json:"valid"`
	Flags []Flag `json:"flags,omitempty"`
}

// Code is a validity flag's code, for machines: run.json's
// validity.flags[].code and compare's --deny-flags.
type Code string

// The codes Check (and the flags of group.go, deadletter.go, shards.go)
// can raise.
const (
	// not_kafka: numbers come from kfake, not Apache Kafka.
	CodeNotKafka Code = "not_kafka"
	// audit_unbalanced: the audit does not balance.
	CodeAuditUnbalanced Code = "audit_unbalanced"
	// lost_records: produced records Kafka can no longer deliver (deleted by
	// retention, or committed past without processing); records still
	// deliverable when the drain stopped are undelivered, not lost.
	CodeLostRecords Code = "lost_records"
	// drain_timeout: the drain timed out with records unfinished.
	CodeDrainTimeout Code = "drain_timeout"
	// schedule_lag: the load generator fell behind the offered rate.
	CodeScheduleLag Code = "schedule_lag"
	// harness_cpu: the harness used more than 90% of all cores.
	CodeHarnessCPU Code = "harness_cpu"
	// host_cpu: the host CPU was more than 95% busy.
	CodeHostCPU Code = "host_cpu"
	// above_ceiling: measured throughput exceeds the ceiling by more than 5%.
	CodeAboveCeiling Code = "above_ceiling"
	// warmup_short: completions were still climbing in the window.
	CodeWarmupShort Code = "warmup_short"
	// lock_expiry_risk: records can outlive their acquisition locks.
	CodeLockExpiryRisk Code = "lock_expiry_risk"
	// client_errors: consumers saw acknowledgement, commit or poll errors.
	CodeClientErrors Code = "client_errors"
	// produce_failed: records failed to produce.
	CodeProduceFailed Code = "produce_failed"
	// collector_failed: a sampler beside the workload failed.
	CodeCollectorFailed Code = "collector_failed"
	// tls_insecure: the brokers' certificates were not verified.
	CodeTLSInsecure Code = "tls_insecure"
	// throttled: brokers throttled the run's clients (quotas).
	CodeThrottled Code = "throttled"
	// error: an error the run reported.
	CodeError Code = "error"
	// protocol_fallback: the broker ran another group protocol than requested.
	CodeProtocolFallback Code = "protocol_fallback"
	// dead_letter_unreconciled: the dead-letter topic does not reconcile with the audit.
	CodeDeadLetterUnreconciled Code = "dead_letter_unreconciled"
	// destination_unreconciled: the destination table does not reconcile
	// with the ledger (a completed record missing, foreign rows, or the
	// table's write count differing from the members'), or could not be
	// read back.
	CodeDestinationUnreconciled Code = "destination_unreconciled"
	// destination_write_errors: writes to the destination failed (their
	// records were handed back and retried).
	CodeDestinationWriteErrors Code = "destination_write_errors"
	// clock_skew: a shard's clock is too far from the coordinator's.
	CodeClockSkew Code = "clock_skew"
	// CodeUnexplained: the measured rate is far below every bound and no
	// saturation explains it (Ceiling.Judge).
	CodeUnexplained Code = "unexplained"
	// stalled: completions stopped while records were available, for longer
	// than the run's stall bound (run.json stall, with the brokers' thread
	// dumps and the clients' state beside it).
	CodeStalled Code = "stalled"
	// client_close_timeout: the consumer client process (the Java runner)
	// did not close its members within the close timeout: it said which
	// members were still closing, or the harness killed it after the
	// close timeout and its margin.
	CodeClientCloseTimeout Code = "client_close_timeout"
	// client_killed: the consumer client process was killed by a signal
	// the harness did not send (the kernel's OOM killer, another process).
	CodeClientKilled Code = "client_killed"
)

// FlagCodes are the validity flag codes a run can carry, in the order
// errors and help list them.
var FlagCodes = []Code{
	CodeNotKafka, CodeAuditUnbalanced, CodeLostRecords, CodeDrainTimeout, CodeScheduleLag, CodeHarnessCPU, CodeHostCPU, CodeAboveCeiling, CodeWarmupShort, CodeLockExpiryRisk, CodeClientErrors, CodeProduceFailed, CodeCollectorFailed, CodeTLSInsecure, CodeThrottled, CodeError, CodeProtocolFallback, CodeDeadLetterUnreconciled, CodeDestinationUnreconciled, CodeDestinationWriteErrors, CodeClockSkew, CodeUnexplained, CodeStalled, CodeClientCloseTimeout, CodeClientKilled, CodeHarnessGrowth,
}

// Codes spells strings (a command line's) as codes, unchecked
// (CheckDenyFlags checks them).
func Codes(s []string) []Code {
	out := make([]Code, len(s))
	for i, v := range s {
		out[i] = Code(v)
	}
	return out
}

// Flag is one validity problem, with a code for machines and words for people.
type Flag struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

// ValidityInput is what the validity checks look at.
type ValidityInput struct {
	IsKafka          bool
	Audit            results.Audit
	DrainTimedOut    bool
	ScheduleLagP99Ms float64
	// ScheduleLagLimitMs flags a generator that fell behind (default 100).
	ScheduleLagLimitMs float64
	HarnessCPUPercent  float64 // harness process CPU over the run, % of all cores
	HostCPUPercent     float64 // host CPU busy over the run, %
	Ceiling            Ceiling
	UsefulPerSec       float64 // throughput.useful_per_sec: the ceiling's basis
	ProduceFailed      int64
	AckErrors          int64 // refused acknowledgements / commits
	PollErrors         int64
	// CompletedThirds are completions in the first, middle and last third of
	// the measurement window (Series.Thirds).
	CompletedThirds [3]int64
	// LockExpiry is what the lock_expiry_risk check needs (share groups;
	// zero: not checked).
	LockExpiry LockExpiryInput
	// Collectors are the samplers that ran beside the workload (broker
	// metrics scrapes, group lag).
	Collectors []CollectorHealth
	// TLSInsecure: the clients did not verify the brokers' certificates
	// (tls.insecure_skip_verify).
	TLSInsecure bool
	// Throttle is the throttling brokers imposed on the run's clients
	// (quotas), from franz-go's broker-throttle hook.
	Throttle ThrottleSummary
	// Stall is the run's stall (nil: none).
	Stall *Stall
	// ClientExit is how the consumer client process (the Java runner)
	// ended when it did not stop cleanly and the run can say why; nil
	// otherwise.
	ClientExit *ClientExit
	Errors     []string
}

// ClientExit is a consumer client process's end that has a flag of its
// own: Killed, a signal the harness did not send (client_killed); else its
// members did not close within the close timeout (client_close_timeout).
type ClientExit struct {
	Killed  bool
	Message string
}

// ThrottleSummary counts the throttles brokers imposed on a run's clients.
type ThrottleSummary struct {
	Count   int           // throttle responses with a positive throttle time
	Total   time.Duration // summed throttle time
	Longest time.Duration
}

// LockExpiryInput is a share run's lock duration beside its measured
// acquisitions and hold times.
type LockExpiryInput struct {
	LockDurationMs        float64 // group.share.record.lock.duration.ms; 0: not checked
	RecordsPerAcquisition float64 // measured (p90)
	ProcessingMs          float64 // mean processing time P
	Workers               int
	Hold                  results.Percentiles // latency.hold_ms
	BufferedP99Ms         float64             // latency.buffered_ms p99
}

// Risk reports whether records could outlive their locks: an acquisition's
// processing (records per acquisition × P ÷ workers) or the measured hold
// time (handed to a worker → completed, plus the p99 wait in the client
// before it) exceeds the lock duration.
func (l LockExpiryInput) Risk() (bool, float64) {
	if l.LockDurationMs <= 0 {
		return false, 0
	}
	batch := l.RecordsPerAcquisition * l.ProcessingMs / float64(max(1, l.Workers))
	return batch > l.LockDurationMs || l.Hold.Max+l.BufferedP99Ms > l.LockDurationMs, batch
}

// CollectorHealth is how one sampler fared over a run.
type CollectorHealth struct {
	Name      string
	Attempts  int // readings tried
	Failures  int // readings that failed
	LastError string
	// NoWindow: the sampler gave no figures for the measurement window.
	NoWindow bool
	// Missing are the figures the report prints that the readings could
	// not give (run.json paths, e.g. lag.at_window_end).
	Missing []string
}

// failed reports whether a figure the report prints is missing: every
// reading failed, the window has no figures, or a printed figure could
// not be computed. Failed readings between good ones are gaps in the
// series (timeseries.csv marks them), not a failed collector: a busy
// broker answers some readings late.
func (c CollectorHealth) failed() bool {
	return c.NoWindow || len(c.Missing) > 0 || c.Failures > 0 && c.Failures >= c.Attempts
}

// Check applies the validity rules.
func Check(in ValidityInput) Validity {
	var flags []Flag
	add := func(code Code, format string, args ...any) {
		flags = append(flags, Flag{Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if !in.IsKafka {
		add(CodeNotKafka, "numbers come from kfake, franz-go's in-process fake cluster, not Apache Kafka")
	}
	if !in.Audit.Balanced {
		add(CodeAuditUnbalanced, "the audit does not balance: %d produced, %d classified, %d unacknowledged, %d foreign",
			in.Audit.Produced, in.Audit.Categorized(),
			in.Audit.Unacknowledged, in.Audit.Foreign)
	}
	if in.Audit.Lost > 0 {
		add(CodeLostRecords, "%d produced records were lost: never delivered, and Kafka can no longer deliver them (deleted before delivery, or committed past)", in.Audit.Lost)
	}
	if in.Stall != nil {
		flags = append(flags, in.Stall.flag())
	}
	if in.DrainTimedOut {
		add(CodeDrainTimeout, "the drain timed out with records unfinished: %d still deliverable (undelivered), %d delivered and unfinished (in flight); Kafka still held them",
			in.Audit.Undelivered, in.Audit.InFlight)
	}
	limit := in.ScheduleLagLimitMs
	if limit <= 0 {
		limit = 100
	}
	if in.ScheduleLagP99Ms > limit {
		add(CodeScheduleLag, "producer schedule lag p99 %.1f ms exceeds %.0f ms: the load generator fell behind the offered rate", in.ScheduleLagP99Ms, limit)
	}
	if in.HarnessCPUPercent > 90 {
		add(CodeHarnessCPU, "the harness used %.0f%% of all cores: client-side limits may shape the numbers", in.HarnessCPUPercent)
	}
	if in.HostCPUPercent > 95 {
		add(CodeHostCPU, "the host CPU was %.0f%% busy: brokers and harness competed for cores", in.HostCPUPercent)
	}
	if cc := in.Ceiling.RecordsPerSec; cc > 0 && in.UsefulPerSec > cc*1.05 {
		add(CodeAboveCeiling, "measured %.0f records/s exceeds the %.0f records/s ceiling by more than 5%%: a backlog from before the window was consumed inside it (lengthen warmup), or the model is wrong",
			in.UsefulPerSec, cc)
	}
	if in.Ceiling.Held == BoundUnexplained {
		add(CodeUnexplained, "the model does not explain this run: %s", in.Ceiling.Evidence)
	}
	if f, l := in.CompletedThirds[0], in.CompletedThirds[2]; l >= 100 && float64(f) < 0.85*float64(l) {
		add(CodeWarmupShort, "completions were still climbing in the window (first third %d, last third %d): lengthen warmup", f, l)
	}
	if risk, batch := in.LockExpiry.Risk(); risk {
		l := in.LockExpiry
		add(CodeLockExpiryRisk, "records can outlive their %.0f ms acquisition locks: %.0f records per acquisition × %.1f ms ÷ %d workers = %.0f ms "+
			"per acquisition; measured hold p50 %.0f / p99 %.0f / max %.0f ms, plus p99 %.0f ms waiting in the client: "+
			"lower max_poll_records, add workers, lengthen the lock or use renew: auto",
			l.LockDurationMs, l.RecordsPerAcquisition, l.ProcessingMs, max(1, l.Workers), batch,
			l.Hold.P50, l.Hold.P99, l.Hold.Max, l.BufferedP99Ms)
	}
	if in.AckErrors > 0 || in.PollErrors > 0 {
		add(CodeClientErrors, "consumers saw %d acknowledgement/commit errors and %d poll errors", in.AckErrors, in.PollErrors)
	}
	if in.ProduceFailed > 0 {
		add(CodeProduceFailed, "%d records failed to produce", in.ProduceFailed)
	}
	for _, c := range in.Collectors {
		if c.failed() {
			msg := fmt.Sprintf("collector %s: %d of %d readings failed", c.Name, c.Failures, c.Attempts)
			if c.NoWindow {
				msg += ", no figures for the measurement window"
			}
			if len(c.Missing) > 0 {
				msg += ", missing " + strings.Join(c.Missing, ", ")
			}
			if c.LastError != "" {
				msg += "; last error: " + c.LastError
			}
			add(CodeCollectorFailed, "%s", msg)
		}
	}
	if in.TLSInsecure {
		add(CodeTLSInsecure, "tls.insecure_skip_verify: the brokers' certificates were not verified: the cluster measured may not be the one named")
	}
	if t := in.Throttle; t.Count > 0 {
		add(CodeThrottled, "brokers throttled the run's clients %d time(s), %v in all (longest %v): a quota shaped the numbers",
			t.Count, t.Total.Round(time.Millisecond), t.Longest.Round(time.Millisecond))
	}
	if x := in.ClientExit; x != nil {
		code := CodeClientCloseTimeout
		if x.Killed {
			code = CodeClientKilled
		}
		add(code, "%s", x.Message)
	}
	for _, e := range in.Errors {
		add(CodeError, "%s", e)
	}
	return Validity{Valid: len(flags) == 0, Flags: flags}
}

// Codes lists the flags' codes.
func (v Validity) Codes() []Code {
	codes := make([]Code, len(v.Flags))
	for i, f := range v.Flags {
		codes[i] = f.Code
	}
	return codes
}
