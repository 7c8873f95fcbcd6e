package runs

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sharebench/sharebench/results"
)

// builtinFigures declares every figure a run reports: the one place to add
// one (docs/contributing/architecture.md, "Adding a figure"). The order is the order of
// the docs and of the scenario vocabulary (scenarios/figures_gen.go, which
// go generate ./results/runs writes from this list).
func builtinFigures() []Figure {
	var out []Figure
	add := func(fs ...Figure) { out = append(out, fs...) }

	add(
		fig("throughput.offered_per_sec", "records/s", Quantity, HigherIsBetter, quantity(func(r *Record) float64 { return r.Throughput.OfferedPerSec })).
			label("offered records/s").column("offered_per_sec").console().doc("the configured open-loop rate"),
		fig("throughput.produced_per_sec", "records/s", Quantity, HigherIsBetter, quantity(func(r *Record) float64 { return r.Throughput.ProducedPerSec })).
			column("produced_per_sec").doc("produce acknowledgements of records intended in the window ÷ window length"),
		fig("throughput.completed_per_sec", "records/s", Quantity, HigherIsBetter, quantity(func(r *Record) float64 { return r.Throughput.CompletedPerSec })).
			label("completed records/s").column("completed_per_sec").threshold("throughput").console().
			doc("completions whose completion time falls in the measurement window ÷ window length"),
		fig("throughput.useful_per_sec", "records/s", Quantity, HigherIsBetter, quantity(func(r *Record) float64 { return r.UsefulPerSec() })).
			label("completed in lock records/s").column("useful_per_sec").console().
			doc("completions in the window made while the record's acquisition lock held ÷ window length: completed_per_sec without the completions redone after a lock expired; the basis of ceiling.records_per_sec, its efficiency and its checks"),
		fig("throughput.completed_ratio", "ratio", Quantity, HigherIsBetter, quantity(func(r *Record) float64 { return r.Throughput.CompletedRatio })).
			doc("completed_per_sec ÷ produced_per_sec: below 1 the consumers fell behind"),
	)
	add(percentiles(pctGroup{path: "latency.completion_ms", stem: "completion", unit: "ms",
		doc:    "completion − intended send, records intended in the window",
		get:    func(r *Record) *results.Percentiles { return &r.Latency.CompletionMs },
		column: "p50 p90 p99 p999 p9999 max", threshold: "p50 p99 p999", console: "p50 p99 p999 max"})...)
	add(percentiles(pctGroup{path: "latency.delivery_ms", stem: "delivery", unit: "ms",
		doc:    "handed to a worker − intended send, records intended in the window",
		get:    func(r *Record) *results.Percentiles { return &r.Latency.DeliveryMs },
		column: "p99", threshold: "p99"})...)
	add(percentiles(pctGroup{path: "latency.publish_ms", stem: "publish", unit: "ms",
		doc:    "broker acknowledgement − actual send",
		get:    func(r *Record) *results.Percentiles { return &r.Latency.PublishMs },
		column: "p99", threshold: "p99", console: "p99"})...)
	add(percentiles(pctGroup{path: "latency.schedule_lag_ms", stem: "schedule_lag", unit: "ms",
		doc:    "actual send − intended send: the load generator falling behind",
		get:    func(r *Record) *results.Percentiles { return &r.Latency.ScheduleLagMs },
		column: "p99"})...)
	add(percentiles(pctGroup{path: "latency.queue_ms", stem: "queue", unit: "ms",
		doc: "handed to a worker − broker log-append time, records intended in the window",
		get: func(r *Record) *results.Percentiles { return &r.Latency.QueueMs }})...)
	add(percentiles(pctGroup{path: "latency.hold_ms", stem: "hold", unit: "ms",
		doc: "completion − handed to a worker, all records",
		get: func(r *Record) *results.Percentiles { return &r.Latency.HoldMs }})...)
	add(percentiles(pctGroup{path: "latency.buffered_ms", stem: "buffered", unit: "ms",
		doc:    "handed to a worker − buffered by the client, all records",
		get:    func(r *Record) *results.Percentiles { return &r.Latency.BufferedMs },
		column: "p99"})...)
	add(
		fig("polls.count", "count", Count, LowerIsBetter, counted(func(r *Record) int64 { return r.Polls.Count })).doc("member polls"),
		fig("polls.empty", "count", Count, LowerIsBetter, counted(func(r *Record) int64 { return r.Polls.Empty })).doc("polls that returned no record"),
		fig("polls.empty_ratio", "ratio", Quantity, LowerIsBetter, quantity(func(r *Record) float64 { return r.Polls.EmptyRatio })).doc("empty ÷ count"),
	)
	add(percentiles(pctGroup{path: "polls.records_per_poll", stem: "records_per_poll", unit: "records",
		doc: "records per non-empty poll",
		get: func(r *Record) *results.Percentiles { return &r.Polls.RecordsPerPoll }})...)
	add(percentiles(pctGroup{path: "polls.gap_ms", stem: "poll_gap", unit: "ms",
		doc: "a member's latest finish → its next non-empty poll returned (blocking style: the time between two batches)",
		get: func(r *Record) *results.Percentiles { return &r.Polls.GapMs }})...)
	add(percentiles(pctGroup{path: "polls.records_per_acquisition", stem: "records_per_acquisition", unit: "records",
		doc:    "share: records acquired per partition per ShareFetch response",
		get:    func(r *Record) *results.Percentiles { return &r.Polls.RecordsPerAcquisition },
		column: "p90"})...)
	add(percentiles(pctGroup{path: "polls.records_per_response", stem: "records_per_response", unit: "records",
		doc: "share: records acquired per ShareFetch response, all partitions",
		get: func(r *Record) *results.Percentiles { return &r.Polls.RecordsPerResponse }})...)
	o := func(leaf string, better Direction, doc string, get func(o *Outcomes) int64) Figure {
		return fig("outcomes."+leaf, "records", Count, better, counted(func(r *Record) int64 { return get(&r.Outcomes) })).doc(doc)
	}
	add(
		o("delivered", LowerIsBetter, "records handed to a worker", func(o *Outcomes) int64 { return o.Delivered }),
		o("completed", HigherIsBetter, "records completed (ACCEPTed or committed)", func(o *Outcomes) int64 { return o.Completed }),
		o("redelivered", LowerIsBetter, "share: deliveries with delivery count > 1; consumer group: records delivered again", func(o *Outcomes) int64 { return o.Redelivered }).
			label("redelivered").column("redelivered").console(),
		o("released", LowerIsBetter, "share RELEASE acknowledgements", func(o *Outcomes) int64 { return o.Released }),
		o("rejected", LowerIsBetter, "share REJECT acknowledgements and consumer-group dead letters", func(o *Outcomes) int64 { return o.Rejected }),
		o("retried_in_place", LowerIsBetter, "consumer group: transient failures retried by the same worker", func(o *Outcomes) int64 { return o.RetriedInPlace }),
		o("lock_expired_completions", LowerIsBetter, "share: completions after the record's acquisition deadline", func(o *Outcomes) int64 { return o.LockExpiredCompleted }),
		o("renewals", LowerIsBetter, "share, renew: auto: RENEW acknowledgements sent", func(o *Outcomes) int64 { return o.Renewals }).unit("count"),
		o("ack_errors", LowerIsBetter, "acknowledgements or offset commits that failed, other than ack_lock_expired", func(o *Outcomes) int64 { return o.AckErrors }).unit("count"),
		o("ack_lock_expired", LowerIsBetter, "share acknowledgements the broker refused because the records' locks had expired (INVALID_RECORD_STATE, per partition and request): the records go out again, as lock expiry means; not a client error", func(o *Outcomes) int64 { return o.AckLockExpired }).unit("count"),
		o("poll_errors", LowerIsBetter, "polls that returned an error", func(o *Outcomes) int64 { return o.PollErrors }).unit("count"),
		o("produce_failed", LowerIsBetter, "produce requests that failed", func(o *Outcomes) int64 { return o.ProduceFailed }),
	)
	a := func(leaf string, better Direction, doc string, get func(a *results.Audit) int64) Figure {
		return fig("audit."+leaf, "records", Count, better, counted(func(r *Record) int64 { return get(&r.Audit) })).doc(doc)
	}
	dl := func(leaf, doc string, get func(a *results.Audit) *int64) Figure {
		return fig("audit."+leaf, "records", Count, LowerIsBetter, func(r *Record) (float64, bool) {
			if p := get(&r.Audit); p != nil {
				return float64(*p), true
			}
			return 0, false
		}).doc(doc)
	}
	add(
		a("produced", LowerIsBetter, "produce acknowledgements received", func(a *results.Audit) int64 { return a.Produced }).
			label("audit produced").column("audit_produced").console(),
		a("completed_once", HigherIsBetter, "records completed exactly once", func(a *results.Audit) int64 { return a.CompletedOnce }).
			label("audit completed once").column("audit_completed_once").console(),
		a("duplicates", LowerIsBetter, "records completed more than once", func(a *results.Audit) int64 { return a.Duplicates }).
			label("audit duplicates").column("audit_duplicates").console(),
		a("duplicate_completions", LowerIsBetter, "completions beyond the first, summed over duplicated records", func(a *results.Audit) int64 { return a.DuplicateCompletions }),
		a("archived", LowerIsBetter, "rejected, dead-lettered or at the delivery limit, never completed", func(a *results.Audit) int64 { return a.Archived }).
			label("audit archived").column("audit_archived").console(),
		a("in_flight", LowerIsBetter, "delivered, neither completed nor archived at the end", func(a *results.Audit) int64 { return a.InFlight }).
			label("audit in flight").column("audit_in_flight").console(),
		a("lost", LowerIsBetter, "produced, never delivered, and Kafka can no longer deliver them (deleted before delivery, or committed past)", func(a *results.Audit) int64 { return a.Lost }).
			label("audit lost").column("audit_lost").console(),
		a("undelivered", LowerIsBetter, "produced, never delivered, still deliverable when a drain that timed out stopped", func(a *results.Audit) int64 { return a.Undelivered }).
			label("audit undelivered").column("audit_undelivered").console(),
		a("unacknowledged", LowerIsBetter, "records seen whose produce was never acknowledged", func(a *results.Audit) int64 { return a.Unacknowledged }),
		a("foreign", LowerIsBetter, "stamped records outside this run's bounds", func(a *results.Audit) int64 { return a.Foreign }),
		fig("audit.balanced", "", YesNo, HigherIsBetter, yesNo(func(r *Record) bool { return r.Audit.Balanced })).
			label("audit balanced").column("audit_balanced").console().doc("the audit categories add up to the records produced"),
		fig("audit.archived_ratio", "ratio", Quantity, LowerIsBetter, func(r *Record) (float64, bool) {
			if r.Audit.Produced == 0 {
				return 0, false
			}
			return float64(r.Audit.Archived) / float64(r.Audit.Produced), true
		}).doc("archived ÷ produced (computed, not in run.json)"),
		dl("dead_letter_records", "records read back from the dead-letter topic", func(a *results.Audit) *int64 { return a.DeadLetterRecords }),
		dl("dead_lettered", "archived records found in the dead-letter topic", func(a *results.Audit) *int64 { return a.DeadLettered }),
		dl("dead_letter_missing", "archived records missing from the dead-letter topic", func(a *results.Audit) *int64 { return a.DeadLetterMissing }),
		dl("dead_letter_duplicates", "archived records found more than once in the dead-letter topic", func(a *results.Audit) *int64 { return a.DeadLetterDuplicates }),
		dl("dead_letter_unmatched", "dead-letter records matching no archived record", func(a *results.Audit) *int64 { return a.DeadLetterUnmatched }),
	)
	add(destinationFigureList()...)
	add(orderFigures("audit.order", "per key", func(r *Record) *results.OrderFigures {
		if r.Audit.Order == nil {
			return nil
		}
		return &r.Audit.Order.OrderFigures
	})...)
	add(orderFigures("audit.order.partition", "per partition", func(r *Record) *results.OrderFigures {
		if r.Audit.Order == nil {
			return nil
		}
		return &r.Audit.Order.Partition
	})...)
	add(
		fig("group.fallback", "", YesNo, LowerIsBetter, func(r *Record) (float64, bool) {
			if r.Group == nil {
				return 0, false
			}
			return b01(r.Group.Fallback), true
		}).doc("the broker ran another group protocol than the one asked for"),
	)
	c := func(leaf, unit string, better Direction, doc string, get func(c *Ceiling) float64) Figure {
		return fig("ceiling."+leaf, unit, Quantity, better, quantity(func(r *Record) float64 { return get(&r.Ceiling) })).doc(doc)
	}
	add(
		c("records_per_sec", "records/s", HigherIsBetter, "min(producer rate, worker ceiling, lock-holding ceiling, lock window)", func(c *Ceiling) float64 { return c.RecordsPerSec }).
			label("ceiling records/s").column("ceiling_per_sec").console(),
		c("producer_rate", "records/s", HigherIsBetter, "the producer term of the ceiling", func(c *Ceiling) float64 { return c.ProducerRate }),
		c("workers", "records/s", HigherIsBetter, "the worker ceiling", func(c *Ceiling) float64 { return c.Workers }),
		c("locks", "records/s", HigherIsBetter, "share: the lock window (Little's law)", func(c *Ceiling) float64 { return c.Locks }),
		c("lock_holders", "records/s", HigherIsBetter, "share: the lock-holding ceiling", func(c *Ceiling) float64 { return c.LockHolders }).
			column("lock_holders_per_sec"),
		c("records_per_acquisition", "records", LowerIsBetter, "share: records per acquisition the lock-holding ceiling assumed", func(c *Ceiling) float64 { return c.RecordsPerAcquisition }),
		fig("ceiling.active_members", "members", Count, HigherIsBetter, counted(func(r *Record) int64 { return int64(r.Ceiling.ActiveMembers) })).
			doc("members that can hold records: all (share) or min(members, partitions) (consumer group)"),
		c("efficiency", "ratio", HigherIsBetter, "throughput.useful_per_sec ÷ ceiling.records_per_sec (both the useful rate: completions while the lock held)", func(c *Ceiling) float64 { return c.Efficiency }).
			label("efficiency vs ceiling").column("efficiency").threshold("efficiency").console(),
		c("lock_expiry", "records/s", HigherIsBetter, "share: records/s finished inside their lock when acquisitions outlive it (0: none do)", func(c *Ceiling) float64 { return c.LockExpiry }).
			column("lock_expiry_per_sec"),
		c("useful_share", "ratio", HigherIsBetter, "share: the share of an acquisition finished before its lock expires (0: not computed)", func(c *Ceiling) float64 { return c.UsefulShare }),
		c("fetch_waits", "records/s", HigherIsBetter, "share, record_limit: the fetch-wait bound (0: no member has a broker without records)", func(c *Ceiling) float64 { return c.FetchWaits }).
			column("fetch_waits_per_sec"),
		c("fetch_round_trip_ms", "ms", LowerIsBetter, "share, record_limit: the round trip each fetch of the fetch-wait bound's cycle pays, the smallest mean over brokers of the fetches that returned records (0: the client does not count empty fetches)", func(c *Ceiling) float64 { return c.FetchRoundTripMs }),
		fig("ceiling.destination", "records/s", Quantity, HigherIsBetter, func(r *Record) (float64, bool) {
			return r.Ceiling.Destination, r.Ceiling.Destination > 0
		}).doc("the destination's capacity: statements at once (active members × min(pool, workers) × destination_duty, at most destination.connections) ÷ service time per record (not measured: no destination)").
			label("destination capacity records/s").column("destination_capacity_per_sec").console(),
		c("destination_duty", "ratio", HigherIsBetter, "blocking members with a destination: the share of a member's time its connections can be busy, a batch's writes ÷ (the writes + the gap between batches + the first processing), when it lowered ceiling.destination (0: not measured, or members beyond the connections fill the gaps)", func(c *Ceiling) float64 { return c.DestinationDuty }),
		fig("ceiling.destination_utilization", "ratio", Quantity, HigherIsBetter, func(r *Record) (float64, bool) {
			if r.Ceiling.Destination <= 0 {
				return 0, false
			}
			return r.Throughput.CompletedPerSec / r.Ceiling.Destination, true
		}).doc("completed_per_sec ÷ ceiling.destination: how close the run came to the destination's capacity (computed, not in run.json)"),
	)
	rq := func(leaf, unit string, kind Kind, better Direction, doc string, get func(t FetchTotals) float64) Figure {
		return fig("requests.fetch."+leaf, unit, kind, better, func(r *Record) (float64, bool) {
			t, ok := SumFetches(r.Requests)
			if !ok {
				return 0, false
			}
			return get(t), true
		}).doc(doc + " (computed from requests, not in run.json)")
	}
	add(
		rq("count", "count", Count, LowerIsBetter, "fetch requests (Fetch, ShareFetch), all brokers", func(t FetchTotals) float64 { return float64(t.Count) }),
		rq("per_sec", "requests/s", Quantity, LowerIsBetter, "fetch requests per second of consuming, all brokers", func(t FetchTotals) float64 { return t.PerSec }).
			column("fetches_per_sec"),
		rq("empty_share", "ratio", Quantity, LowerIsBetter, "the share of fetch responses that carried no record, all brokers", func(t FetchTotals) float64 { return t.EmptyShare }).
			label("fetches empty share").column("fetch_empty_share").threshold("fetch_empty_share").console(),
		rq("wait_s", "s", Quantity, LowerIsBetter, "the members' summed time waiting on fetches, all brokers", func(t FetchTotals) float64 { return t.WaitSec }).
			column("fetch_wait_s"),
	)
	ph := func(leaf, doc string, get func(p *Phases) float64) Figure {
		return fig("phases."+leaf, "s", Quantity, LowerIsBetter, quantity(func(r *Record) float64 { return get(&r.Phases) })).doc(doc)
	}
	add(
		ph("group_ready_s", "consumers started → group formed (the older name of group_formation_s)", func(p *Phases) float64 { return p.GroupReadySec }),
		ph("group_formation_s", "consumers started → group formed, consumption held", func(p *Phases) float64 { return p.GroupFormationSec }).
			label("group formation s").column("group_formation_s"),
		fig("phases.formation_rebalances", "count", Count, LowerIsBetter, counted(func(r *Record) int64 { return int64(r.Phases.FormationRounds) })).
			doc("assignment rounds before the group formed"),
		ph("warmup_s", "warm-up length", func(p *Phases) float64 { return p.WarmupSec }),
		ph("measure_s", "measurement window length", func(p *Phases) float64 { return p.MeasureSec }),
		ph("drain_s", "producers done → all records finished (backlog mode: the measured time to drain)", func(p *Phases) float64 { return p.DrainSec }).
			label("drain s").console(),
		fig("phases.drain_timed_out", "", YesNo, LowerIsBetter, yesNo(func(r *Record) bool { return r.Phases.DrainTimedOut })).
			doc("the drain stopped at its timeout"),
	)
	bu := func(leaf, unit string, kind Kind, better Direction, doc string, get func(b *Burst) float64) Figure {
		return fig("burst."+leaf, unit, kind, better, func(r *Record) (float64, bool) {
			if r.Burst == nil {
				return 0, false
			}
			return get(r.Burst), true
		}).doc(doc)
	}
	add(
		bu("records", "records", Count, LowerIsBetter, "records produced, warm-up included", func(b *Burst) float64 { return float64(b.Records) }),
		bu("end_to_end_s", "s", Quantity, LowerIsBetter, "first intended send → last completion", func(b *Burst) float64 { return b.EndToEndSec }).
			column("end_to_end_s"),
		bu("predicted_s", "s", Quantity, LowerIsBetter, "the formula's end-to-end time", func(b *Burst) float64 { return b.PredictedSec }),
		bu("consume_ceiling", "records/s", Quantity, HigherIsBetter, "the ceiling without the producer rate", func(b *Burst) float64 { return b.ConsumeCeiling }),
	)
	add(
		fig("resources.host_percent", "%", Quantity, LowerIsBetter, quantity(func(r *Record) float64 { return r.Resources.HostPercent })).doc("host busy % over the window"),
		fig("resources.harness_percent", "%", Quantity, LowerIsBetter, quantity(func(r *Record) float64 { return r.Resources.HarnessPercent })).doc("harness CPU % of all cores"),
		fig("resources.broker_percent", "%", Quantity, LowerIsBetter, quantity(func(r *Record) float64 { return r.Resources.BrokerPercent })).doc("broker JVMs' CPU % of all cores (/proc)"),
		fig("resources.harness_rss_max_mib", "MiB", Quantity, LowerIsBetter, optional(func(r *Record) *float64 { return r.Resources.HarnessRSSMaxMiB })).
			column("harness_rss_max_mib").doc("the harness's largest resident memory (VmRSS), 1 s samples over the run"),
		fig("resources.collector_cpu_s", "s", Quantity, LowerIsBetter, optional(func(r *Record) *float64 { return r.Resources.CollectorCPUSeconds })).
			doc("harness CPU its collectors (scrapes, lag and /proc readings) spent in the window; a lower bound"),
		fig("resources.collector_percent", "%", Quantity, LowerIsBetter, optional(func(r *Record) *float64 { return r.Resources.CollectorPercent })).
			column("collector_percent").doc("collector_cpu_s ÷ the harness's CPU seconds in the window: what observing cost the harness"),
		harnessGrowth("rss_percent", "the harness's RSS: median of the window's last minute ÷ median of minute 5–6, − 1, in %; windows of 10 min or more",
			func(g *Growth) *float64 { return g.RSSPercent }),
		harnessGrowth("goroutines_percent", "the harness's goroutines, grown as harness.growth.rss_percent",
			func(g *Growth) *float64 { return g.GoroutinesPercent }),
		harnessGrowth("open_files_percent", "the harness's open file descriptors, grown as harness.growth.rss_percent",
			func(g *Growth) *float64 { return g.OpenFilesPercent }),
		harnessGrowth("recorder_percent", "the recorder's memory without its interval logs, grown as harness.growth.rss_percent",
			func(g *Growth) *float64 { return g.RecorderPercent }),
		fig("lag.max", "records", Count, LowerIsBetter, counted(func(r *Record) int64 { return r.Lag.Max })).doc("largest group lag read"),
		fig("lag.at_window_end", "records", Count, LowerIsBetter, counted(func(r *Record) int64 { return r.Lag.AtWindowEnd })).doc("group lag at the window's end"),
		fig("lag.errors", "count", Count, LowerIsBetter, counted(func(r *Record) int64 { return int64(r.Lag.Errors) })).
			doc("lag readings that failed: gaps in the lag series (timeseries.csv lag_unread), never 0"),
		fig("lag.timeout_max_ms", "ms", Quantity, LowerIsBetter, quantity(func(r *Record) float64 { return r.Lag.TimeoutMaxMs })).
			doc("the longest a lag reading was allowed: 4 × the slowest of the last 8 answers, 2–30 s"),
	)
	st := func(leaf, unit string, kind Kind, doc string, get func(s *Stall) float64) Figure {
		return fig("stall."+leaf, unit, kind, LowerIsBetter, func(r *Record) (float64, bool) {
			if r.Stall == nil {
				return 0, false
			}
			return get(r.Stall), true
		}).doc(doc)
	}
	add(
		st("quiet_s", "s", Quantity, "stalled runs: no completion for this long with records available", func(s *Stall) float64 { return s.QuietSec }).
			label("stalled s").column("stall_quiet_s").console(),
		st("bound_s", "s", Quantity, "stalled runs: the stall bound, max(10 × expected gap, 20 s)", func(s *Stall) float64 { return s.BoundSec }),
		st("outstanding", "records", Count, "stalled runs: records acknowledged and unfinished at detection", func(s *Stall) float64 { return float64(s.Outstanding) }),
	)
	br := func(leaf, unit, doc string, get func(b *results.BrokerMetrics) float64) Figure {
		return fig("broker."+leaf, unit, Quantity, LowerIsBetter, quantity(func(r *Record) float64 { return get(&r.Broker) })).doc(doc)
	}
	add(
		br("acquisition_lock_timeouts_total", "count", "acquisition locks that timed out, over the run", func(b *results.BrokerMetrics) float64 { return b.AcquisitionLockTimeoutsTotal }),
		br("cpu_percent_avg", "%", "brokers' JMX process CPU ÷ span ÷ host cores", func(b *results.BrokerMetrics) float64 { return b.CPUPercentAvg }),
		br("cpu_seconds_per_million_records", "s/M records", "brokers' CPU seconds in the window ÷ records completed × 10⁶ (charges producing to the records completed: see broker_cost)", func(b *results.BrokerMetrics) float64 { return b.CPUSecondsPerMillionRecords }).
			label("broker CPU s/M records"),
		br("heap_after_gc_max_bytes", "bytes", "largest heap in use right after a young GC in the window", func(b *results.BrokerMetrics) float64 { return b.HeapAfterGCMaxBytes }).
			label("broker heap after GC bytes"),
		br("gc_time_percent", "%", "GC time in the window ÷ window, averaged over brokers", func(b *results.BrokerMetrics) float64 { return b.GCTimePercent }),
		fig("broker.jit_compile_s", "s", Quantity, LowerIsBetter, func(r *Record) (float64, bool) {
			b := &r.Broker
			return b.JITCompileSeconds, b.Samples > 0 && !slices.Contains(b.Unavailable, "jit_compile_s")
		}).doc("brokers' JIT compilation time in the window (the JVM's compile-time counter), summed over brokers").
			label("broker JIT compile s").console(),
		br("share_coordinator_write_rate_avg", "writes/s", "share-state writes/s in the window, all brokers", func(b *results.BrokerMetrics) float64 { return b.ShareCoordinatorWriteRateAvg }).
			label("share coord writes/s").console(),
		br("in_flight_messages_max", "records", "most share records in flight (acquired) at once", func(b *results.BrokerMetrics) float64 { return b.InFlightMessagesMax }),
	)
	bc := func(leaf, unit, doc string, get func(c *BrokerCost) (float64, bool)) Figure {
		return fig("broker_cost."+leaf, unit, Quantity, LowerIsBetter, func(r *Record) (float64, bool) {
			if r.BrokerCost == nil {
				return 0, false
			}
			return get(r.BrokerCost)
		}).doc(doc)
	}
	always := func(get func(c *BrokerCost) float64) func(c *BrokerCost) (float64, bool) {
		return func(c *BrokerCost) (float64, bool) { return get(c), true }
	}
	produceOnly := func(get func(p *ProduceOnly) float64) func(c *BrokerCost) (float64, bool) {
		return func(c *BrokerCost) (float64, bool) {
			if c.ProduceOnly == nil {
				return 0, false
			}
			return get(c.ProduceOnly), true
		}
	}
	add(
		bc("consume_cpu_seconds_per_million_records", "s/M records",
			"(broker CPU − produce-only CPU rate × window) ÷ records completed × 10⁶; not given when the produce-only phase was still compiling (its JIT compile time ≥ 25 % of its broker CPU)",
			func(c *BrokerCost) (float64, bool) { return c.ConsumeCPUSecondsPerMillion, c.Consumable() }).
			label("broker consume CPU s/M").console(),
		bc("moved_cpu_seconds_per_million_records", "s/M records",
			"broker CPU (less the scrapes' calibrated cost when above 2 %) ÷ (records produced + completed) × 10⁶",
			always(func(c *BrokerCost) float64 { return c.MovedCPUSecondsPerMillion })).
			label("broker CPU s/M moved").console(),
		bc("consume_cpu_seconds", "CPU s", "broker CPU in the window − produce-only CPU rate × window (not given when the produce-only phase was still compiling)",
			func(c *BrokerCost) (float64, bool) { return c.ConsumeCPUSeconds, c.Consumable() }),
		bc("produce_only.cpu_seconds_per_million_records", "s/M records",
			"produce-only phase: broker CPU ÷ records produced × 10⁶",
			produceOnly(func(p *ProduceOnly) float64 { return p.CPUSecondsPerMillion })),
		bc("produce_only.cpu_cores", "cores", "produce-only phase: broker CPU seconds ÷ its length",
			produceOnly(func(p *ProduceOnly) float64 { return p.CPUCores })),
		bc("scrape_percent", "%", "the scrapes' calibrated cost over the window ÷ broker CPU in the window × 100",
			always(func(c *BrokerCost) float64 { return c.ScrapePercent })),
	)
	maxRate := func(get func(m *MaxRateResult) (float64, bool)) func(r *Record) (float64, bool) {
		return func(r *Record) (float64, bool) {
			if r.MaxRate == nil {
				return 0, false
			}
			return get(r.MaxRate)
		}
	}
	add(
		fig("max_rate.found_rate", "records/s", Quantity, HigherIsBetter, maxRate(func(m *MaxRateResult) (float64, bool) { return m.FoundRate, true })).
			doc("load_mode max_rate: the highest rate that passed (after bisection, and confirmed by a second measurement when precision > 0)"),
		fig("max_rate.failed_rate", "records/s", Quantity, LowerIsBetter, maxRate(func(m *MaxRateResult) (float64, bool) { return m.FailedRate, m.FailedRate != 0 })).
			doc("load_mode max_rate: the lowest offered rate that failed above found_rate"),
		fig("max_rate.gap_ratio", "ratio", Quantity, LowerIsBetter, maxRate(func(m *MaxRateResult) (float64, bool) {
			return m.GapRatio, m.FailedRate != 0 && m.FoundRate != 0
		})).doc("load_mode max_rate: (failed_rate − found_rate) ÷ found_rate, at most max_rate.precision once bisected"),
		fig("max_rate.formula_ceiling_per_sec", "records/s", Quantity, HigherIsBetter, maxRate(func(m *MaxRateResult) (float64, bool) {
			return m.CeilingPerSec, m.CeilingPerSec != 0
		})).doc("load_mode max_rate: the capacity formula's ceiling of the consumers without the producer rate"),
	)
	settle := func(get func(s *Settle) float64) func(r *Record) (float64, bool) {
		return func(r *Record) (float64, bool) {
			if r.Settle == nil {
				return 0, false
			}
			return get(r.Settle), true
		}
	}
	add(
		fig("settle.duration_s", "s", Quantity, LowerIsBetter, settle(func(s *Settle) float64 { return s.Seconds })).
			doc("time waited before the run's measurement for the brokers' CPU to return within a margin of idle (campaigns)"),
		fig("settle.end_cores", "cores", Quantity, LowerIsBetter, settle(func(s *Settle) float64 { return s.EndCores })).
			doc("brokers' CPU rate over the last settle's last interval, just before the consumers start"),
	)
	add(
		fig("shards.merge_s", "s", Quantity, LowerIsBetter, func(r *Record) (float64, bool) {
			if r.Shards == nil {
				return 0, false
			}
			return r.Shards.MergeSec, true
		}).doc("sharded runs: the coordinator's time to decode every agent's results and absorb them into one recorder"),
	)
	add(eventFigures()...)
	add(autoscaleFigures()...)
	return out
}

// autoscaleFigures are the autoscale block's figures (runs with autoscale:).
func autoscaleFigures() []Figure {
	a := func(leaf, unit string, kind Kind, better Direction, doc string, get func(a *Autoscale) (float64, bool)) Figure {
		return fig("autoscale."+leaf, unit, kind, better, func(r *Record) (float64, bool) {
			if r.Autoscale == nil {
				return 0, false
			}
			return get(r.Autoscale)
		}).doc(doc)
	}
	return []Figure{
		a("scale_outs", "count", Count, LowerIsBetter, "scale-out actions", func(a *Autoscale) (float64, bool) { return present(float64(a.ScaleOuts)) }),
		a("scale_ins", "count", Count, LowerIsBetter, "scale-in actions", func(a *Autoscale) (float64, bool) { return present(float64(a.ScaleIns)) }),
		a("flaps", "count", Count, LowerIsBetter, "actions that reversed the previous one within flap_window", func(a *Autoscale) (float64, bool) { return present(float64(a.Flaps)) }).label("autoscale flaps").column("autoscale_flaps"),
		a("peak_replicas", "members", Count, LowerIsBetter, "most replicas the scaler ran", func(a *Autoscale) (float64, bool) { return present(float64(a.PeakReplicas)) }).label("autoscale peak replicas").column("autoscale_peak_replicas"),
		a("max_replicas", "members", Count, HigherIsBetter, "the scaler's bound: min(autoscale.max, rule 3's cap)", func(a *Autoscale) (float64, bool) { return present(float64(a.MaxReplicas)) }),
		a("replica_seconds", "replica-s", Quantity, LowerIsBetter, "∫ replicas dt over the window: the cost", func(a *Autoscale) (float64, bool) { return present(a.ReplicaSeconds) }).label("autoscale replica-seconds").column("autoscale_replica_seconds"),
		a("spike_recovery_s", "s", Quantity, LowerIsBetter, "spike start → the scale-out condition no longer holds", func(a *Autoscale) (float64, bool) { return ifMeasured(a.SpikeRecoverySec) }).label("autoscale spike recovery s").column("autoscale_spike_recovery_s"),
		a("drain_s", "s", Quantity, LowerIsBetter, "spike start → lag per replica ≤ in_below after the spike", func(a *Autoscale) (float64, bool) { return ifMeasured(a.DrainSec) }).label("autoscale drain s").column("autoscale_drain_s"),
		a("redelivered_scale_in", "records", Count, LowerIsBetter, "redeliveries in the effect spans of scale-in actions", func(a *Autoscale) (float64, bool) { return present(float64(a.RedeliveredScaleIn)) }),
		a("action_pause_max_s", "s", Quantity, LowerIsBetter, "longest rebalance pause of an action", func(a *Autoscale) (float64, bool) { return present(a.PauseMaxSec) }),
	}
}

// eventFigures are event_summary's figures (runs with events).
func eventFigures() []Figure {
	e := func(leaf, unit string, kind Kind, better Direction, doc string, get func(e *EventSummary) (float64, bool)) Figure {
		return fig("event_summary."+leaf, unit, kind, better, func(r *Record) (float64, bool) {
			if r.EventSummary == nil {
				return 0, false
			}
			return get(r.EventSummary)
		}).doc(doc)
	}
	return []Figure{
		e("events", "count", Count, LowerIsBetter, "events fired", func(e *EventSummary) (float64, bool) { return present(float64(e.Events)) }),
		e("first_record_max_s", "s", Quantity, LowerIsBetter, "joined members: longest join → first record", func(e *EventSummary) (float64, bool) { return ifMeasured(e.FirstRecordMaxSec) }),
		e("joined_without_records", "members", Count, LowerIsBetter, "members that joined and got no record", func(e *EventSummary) (float64, bool) { return present(float64(e.JoinedWithout)) }),
		e("rebalance_pauses", "count", Count, LowerIsBetter, "pauses of consumption by rebalances", func(e *EventSummary) (float64, bool) { return present(float64(e.RebalancePauses)) }),
		e("rebalance_pause_total_s", "s", Quantity, LowerIsBetter, "rebalance pauses, summed", func(e *EventSummary) (float64, bool) { return present(e.RebalancePauseSec) }),
		e("rebalance_pause_max_s", "s", Quantity, LowerIsBetter, "longest rebalance pause", func(e *EventSummary) (float64, bool) { return present(e.RebalancePauseMaxS) }),
		e("rebalance_partitions", "count", Count, LowerIsBetter, "partitions paused by rebalances", func(e *EventSummary) (float64, bool) { return present(float64(e.RebalancePartitions)) }),
		e("rebalance_peak_paused", "count", Count, LowerIsBetter, "most partitions paused at once", func(e *EventSummary) (float64, bool) { return present(float64(e.RebalancePeakPaused)) }),
		e("group_stop_s", "s", Quantity, LowerIsBetter, "time the whole group stopped consuming", func(e *EventSummary) (float64, bool) { return present(e.GroupStopSec) }),
		e("redeliveries", "records", Count, LowerIsBetter, "redeliveries caused by the events", func(e *EventSummary) (float64, bool) { return present(float64(e.Redeliveries)) }),
		e("dip_max_percent", "%", Quantity, LowerIsBetter, "deepest throughput dip after an event", func(e *EventSummary) (float64, bool) { return present(e.DipMaxPercent) }),
		e("recovery_max_s", "s", Quantity, LowerIsBetter, "longest recovery after an event", func(e *EventSummary) (float64, bool) { return ifMeasured(e.RecoveryMaxSec) }),
		e("idle_gap_max_s", "s", Quantity, LowerIsBetter, "longest gap without completions after an event", func(e *EventSummary) (float64, bool) { return present(e.IdleGapMaxSec) }),
		e("after_per_sec", "records/s", Quantity, HigherIsBetter, "throughput after the last event", func(e *EventSummary) (float64, bool) { return present(e.AfterPerSec) }),
		e("held_by_crashed", "records", Count, LowerIsBetter, "records the crashed members held", func(e *EventSummary) (float64, bool) { return present(float64(e.HeldByCrashed)) }),
		e("first_redelivery_max_s", "s", Quantity, LowerIsBetter, "longest crash → first redelivery", func(e *EventSummary) (float64, bool) { return ifMeasured(e.FirstRedeliveryMaxSec) }),
		e("redeliveries_beyond_held", "records", Count, LowerIsBetter,
			"redeliveries − held_by_crashed: ≥ 0 when every held record came back (computed, not in run.json)",
			func(e *EventSummary) (float64, bool) { return present(float64(e.Redeliveries - e.HeldByCrashed)) }),
		e("rolling_steps", "brokers", Count, HigherIsBetter, "brokers a rolling restart or upgrade restarted and saw back in sync",
			func(e *EventSummary) (float64, bool) { return rolling(e, float64(e.RollingSteps)) }),
		e("rolling_steps_failed", "brokers", Count, LowerIsBetter, "rolling steps that failed (not back, not in sync within their bounds)",
			func(e *EventSummary) (float64, bool) { return rolling(e, float64(e.RollingStepsFailed)) }),
		e("rolling_completion_gap_max_s", "s", Quantity, LowerIsBetter, "longest run of whole seconds without a completion in a rolling step",
			func(e *EventSummary) (float64, bool) { return rolling(e, e.RollingGapMaxSec) }),
		e("rolling_duplicate_completions", "records", Count, LowerIsBetter, "completions of records already completed during rolling steps",
			func(e *EventSummary) (float64, bool) { return rolling(e, float64(e.RollingDuplicates)) }),
	}
}

// rolling gives v when the run had a rolling restart or upgrade step.
func rolling(e *EventSummary, v float64) (float64, bool) {
	if e.RollingSteps+e.RollingStepsFailed == 0 {
		return 0, false
	}
	return v, true
}

// pctGroup declares the figures of one percentile summary; column,
// threshold and console list the leaves (p50 … mean) that have a runs.csv
// column, a compare threshold, a console row.
type pctGroup struct {
	path, stem, unit, doc      string
	get                        func(r *Record) *results.Percentiles
	column, threshold, console string
}

var percentileLeaves = []struct {
	leaf, label string
	get         func(p *results.Percentiles) float64
}{
	{"p50", "p50", func(p *results.Percentiles) float64 { return p.P50 }},
	{"p90", "p90", func(p *results.Percentiles) float64 { return p.P90 }},
	{"p99", "p99", func(p *results.Percentiles) float64 { return p.P99 }},
	{"p999", "p99.9", func(p *results.Percentiles) float64 { return p.P999 }},
	{"p9999", "p99.99", func(p *results.Percentiles) float64 { return p.P9999 }},
	{"max", "max", func(p *results.Percentiles) float64 { return p.Max }},
	{"mean", "mean", func(p *results.Percentiles) float64 { return p.Mean }},
}

// percentiles are a summary's figures: "completion p99 ms", runs.csv
// completion_p99_ms, threshold completion_p99.
func percentiles(g pctGroup) []Figure {
	out := make([]Figure, 0, len(percentileLeaves))
	suffix := ""
	if g.unit == "ms" {
		suffix = "_ms"
	}
	in := func(list, leaf string) bool { return strings.Contains(" "+list+" ", " "+leaf+" ") }
	for _, l := range percentileLeaves {
		l := l
		f := fig(g.path+"."+l.leaf, g.unit, Quantity, LowerIsBetter, quantity(func(r *Record) float64 { return l.get(g.get(r)) })).
			label(strings.ReplaceAll(g.stem, "_", " ") + " " + l.label + " " + g.unit).doc(g.doc + ": " + l.label)
		if in(g.column, l.leaf) {
			f = f.column(g.stem + "_" + l.leaf + suffix)
		}
		if in(g.threshold, l.leaf) {
			f = f.threshold(g.stem + "_" + l.leaf)
		}
		if in(g.console, l.leaf) {
			f = f.console()
		}
		out = append(out, f)
	}
	return out
}

// orderFigures are the order audit's figures at path (absent when nothing
// was checked).
func orderFigures(path, per string, get func(r *Record) *results.OrderFigures) []Figure {
	o := func(leaf, unit string, kind Kind, doc string, v func(o *results.OrderFigures) float64) Figure {
		return fig(path+"."+leaf, unit, kind, LowerIsBetter, func(r *Record) (float64, bool) {
			if f := get(r); f != nil {
				return v(f), true
			}
			return 0, false
		}).doc(doc + ", " + per)
	}
	return []Figure{
		o("checked", "records", Count, "records checked", func(o *results.OrderFigures) float64 { return float64(o.Checked) }),
		o("violations", "records", Count, "records finished after a later record of their stream", func(o *results.OrderFigures) float64 { return float64(o.Violations) }),
		o("streams", "count", Count, "streams seen", func(o *results.OrderFigures) float64 { return float64(o.Streams) }),
		o("affected", "count", Count, "streams with a violation", func(o *results.OrderFigures) float64 { return float64(o.Affected) }),
		o("affected_share", "ratio", Quantity, "affected ÷ streams", func(o *results.OrderFigures) float64 { return o.AffectedShare }),
		o("max_displacement_records", "records", Count, "largest displacement in stream positions", func(o *results.OrderFigures) float64 { return float64(o.MaxDisplacementRecords) }),
		o("max_displacement_ms", "ms", Quantity, "largest displacement in intended send time", func(o *results.OrderFigures) float64 { return o.MaxDisplacementMs }),
	}
}

// fig starts a declaration; its label defaults to the path in words.
func fig(path, unit string, kind Kind, better Direction, value func(r *Record) (float64, bool)) Figure {
	return Figure{Path: path, Unit: unit, Kind: kind, Better: better, Value: value,
		Label: strings.NewReplacer(".", " ", "_", " ").Replace(path)}
}

func (f Figure) label(s string) Figure     { f.Label = s; return f }
func (f Figure) column(s string) Figure    { f.Column = s; return f }
func (f Figure) threshold(s string) Figure { f.Threshold = s; return f }
func (f Figure) console() Figure           { f.Console = true; return f }
func (f Figure) doc(s string) Figure       { f.Doc = s; return f }
func (f Figure) unit(s string) Figure      { f.Unit = s; return f }

func quantity(get func(r *Record) float64) func(*Record) (float64, bool) {
	return func(r *Record) (float64, bool) { return get(r), true }
}

func counted(get func(r *Record) int64) func(*Record) (float64, bool) {
	return func(r *Record) (float64, bool) { return float64(get(r)), true }
}

func yesNo(get func(r *Record) bool) func(*Record) (float64, bool) {
	return func(r *Record) (float64, bool) { return b01(get(r)), true }
}

func b01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// optional reads a figure that a run may not have (nil: not measured).
func optional(get func(r *Record) *float64) func(*Record) (float64, bool) {
	return func(r *Record) (float64, bool) {
		if p := get(r); p != nil {
			return *p, true
		}
		return 0, false
	}
}

// present is a figure's value that every record of its block has.
func present(x float64) (float64, bool) { return x, true }

// ifMeasured is a figure's value that a record may lack (nil: not measured).
func ifMeasured(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// harnessGrowth is a figure of run.json's harness.growth block: absent
// where growth was not evaluated (a window under 10 minutes, no reading).
func harnessGrowth(leaf, doc string, get func(g *Growth) *float64) Figure {
	return fig("harness.growth."+leaf, "%", Quantity, LowerIsBetter, func(r *Record) (float64, bool) {
		if r.Harness == nil || r.Harness.Growth == nil || !r.Harness.Growth.Evaluated {
			return 0, false
		}
		if p := get(r.Harness.Growth); p != nil {
			return *p, true
		}
		return 0, false
	}).doc(doc)
}
