package runs

import (
	"fmt"
	"time"

	"github.com/sharebench/sharebench/results"
)

// Validity lists the reasons a run's numbers may not be about Kafka.
type Validity struct {
	Valid bool   `json:"valid"`
	Flags []Flag `json:"flags,omitempty"`
}

// Flag is one validity problem, with a code for machines and words for people.
type Flag struct {
	Code    string `json:"code"`
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
	CompletedPerSec    float64
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
	Errors   []string
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
}

// failed reports whether the sampler's figures cannot be trusted: every
// reading failed, more than a quarter did, or the window has no figures.
// An occasional timeout on a saturated host is not a failure.
func (c CollectorHealth) failed() bool {
	return c.NoWindow || c.Failures > 0 && (c.Failures >= c.Attempts || 4*c.Failures > c.Attempts)
}

// Check applies the validity rules.
func Check(in ValidityInput) Validity {
	var flags []Flag
	add := func(code, format string, args ...any) {
		flags = append(flags, Flag{Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if !in.IsKafka {
		add("not_kafka", "numbers come from kfake, franz-go's in-process fake cluster, not Apache Kafka")
	}
	if !in.Audit.Balanced {
		add("audit_unbalanced", "the audit does not balance: %d produced, %d classified, %d unacknowledged, %d foreign",
			in.Audit.Produced, in.Audit.Classified(),
			in.Audit.Unacknowledged, in.Audit.Foreign)
	}
	if in.Audit.Lost > 0 {
		add("lost_records", "%d produced records were lost: never delivered, and Kafka can no longer deliver them (deleted before delivery, or committed past)", in.Audit.Lost)
	}
	if in.DrainTimedOut {
		add("drain_timeout", "the drain timed out with records unfinished: %d still deliverable (undelivered), %d delivered and unfinished (in flight); Kafka still held them",
			in.Audit.Undelivered, in.Audit.InFlight)
	}
	limit := in.ScheduleLagLimitMs
	if limit <= 0 {
		limit = 100
	}
	if in.ScheduleLagP99Ms > limit {
		add("schedule_lag", "producer schedule lag p99 %.1f ms exceeds %.0f ms: the load generator fell behind the offered rate", in.ScheduleLagP99Ms, limit)
	}
	if in.HarnessCPUPercent > 90 {
		add("harness_cpu", "the harness used %.0f%% of all cores: client-side limits may shape the numbers", in.HarnessCPUPercent)
	}
	if in.HostCPUPercent > 95 {
		add("host_cpu", "the host CPU was %.0f%% busy: brokers and harness competed for cores", in.HostCPUPercent)
	}
	if in.Ceiling.RecordsPerSec > 0 && in.CompletedPerSec > in.Ceiling.RecordsPerSec*1.05 {
		add("above_ceiling", "measured %.0f records/s exceeds the %.0f records/s ceiling by more than 5%%: a backlog from before the window was consumed inside it (lengthen warmup), or the model is wrong",
			in.CompletedPerSec, in.Ceiling.RecordsPerSec)
	}
	if f, l := in.CompletedThirds[0], in.CompletedThirds[2]; l >= 100 && float64(f) < 0.85*float64(l) {
		add("warmup_short", "completions were still climbing in the window (first third %d, last third %d): lengthen warmup", f, l)
	}
	if risk, batch := in.LockExpiry.Risk(); risk {
		l := in.LockExpiry
		add("lock_expiry_risk", "records can outlive their %.0f ms acquisition locks: %.0f records per acquisition × %.1f ms ÷ %d workers = %.0f ms "+
			"per acquisition; measured hold p50 %.0f / p99 %.0f / max %.0f ms, plus p99 %.0f ms waiting in the client: "+
			"lower max_poll_records, add workers, lengthen the lock or use renew: auto",
			l.LockDurationMs, l.RecordsPerAcquisition, l.ProcessingMs, max(1, l.Workers), batch,
			l.Hold.P50, l.Hold.P99, l.Hold.Max, l.BufferedP99Ms)
	}
	if in.AckErrors > 0 || in.PollErrors > 0 {
		add("client_errors", "consumers saw %d acknowledgement/commit errors and %d poll errors", in.AckErrors, in.PollErrors)
	}
	if in.ProduceFailed > 0 {
		add("produce_failed", "%d records failed to produce", in.ProduceFailed)
	}
	for _, c := range in.Collectors {
		if c.failed() {
			msg := fmt.Sprintf("collector %s: %d of %d readings failed", c.Name, c.Failures, c.Attempts)
			if c.NoWindow {
				msg += ", no figures for the measurement window"
			}
			if c.LastError != "" {
				msg += "; last error: " + c.LastError
			}
			add("collector_failed", "%s", msg)
		}
	}
	if in.TLSInsecure {
		add("tls_insecure", "tls.insecure_skip_verify: the brokers' certificates were not verified: the cluster measured may not be the one named")
	}
	if t := in.Throttle; t.Count > 0 {
		add("throttled", "brokers throttled the run's clients %d time(s), %v in all (longest %v): a quota shaped the numbers",
			t.Count, t.Total.Round(time.Millisecond), t.Longest.Round(time.Millisecond))
	}
	for _, e := range in.Errors {
		add("error", "%s", e)
	}
	return Validity{Valid: len(flags) == 0, Flags: flags}
}

// Codes lists the flags' codes.
func (v Validity) Codes() []string {
	codes := make([]string, len(v.Flags))
	for i, f := range v.Flags {
		codes[i] = f.Code
	}
	return codes
}
