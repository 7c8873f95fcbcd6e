package campaign

import (
	"fmt"
	"time"

	"github.com/prometheus/procfs"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
)

// Footprint is what one run holds in memory while it runs, computed before
// anything starts: the audit ledger (4 bits per record the run may produce),
// the one-second time series and interval logs over the run's longest
// length, the HDR histograms of every producer and member recorder, and the
// clients and goroutines of the fleets. The figures come from the same
// sizing the recorder uses (runSizes) and the measurement model's own byte
// counts (results.LedgerBytes and friends); client memory is an estimate
// (clientBytes, memberBufferBytes).
type Footprint struct {
	Records        uint64 // ledger capacity: records the run may produce
	Seconds        int    // time-series length
	Goroutines     uint64 // producer clients + members × (workers + client internals)
	LedgerBytes    uint64
	SeriesBytes    uint64 // time series + interval logs
	HistogramBytes uint64
	ClientBytes    uint64 // producer and consumer clients, buffers and goroutine stacks
	Total          uint64
}

// Estimates of client memory the harness does not allocate itself.
const (
	clientBytes = 1 << 20 // a producer's franz-go client: connections, metadata, buffers
	// memberClientBytes is a consumer member's franz-go client (connection,
	// metadata, fetch and share-session state), without the records it holds
	// (the max_poll_records term). Calibrated (issue 27) on
	// consumers.BenchmarkShareMembersFootprint: 142 KiB of live heap a member
	// at 200 share members on kfake (kfake's own state for the member
	// included), doubled for the garbage the Go collector lets grow beside
	// the live heap (GOGC 100) and rounded up; TestMemberModelCalibrated
	// keeps it within 5× of what a fleet measures.
	memberClientBytes = 320 << 10
	goroutineBytes    = 8 << 10 // a goroutine's stack, as it starts
	clientGoroutines  = 8       // goroutines a franz-go client runs
	// producerBufferedRecords is franz-go's MaxBufferedRecords default.
	producerBufferedRecords = 10000
)

// modeSizing is what the run's load mode sizes its recorder for
// (scenarios.Mode.Sizing).
func modeSizing(s scenarios.RunSpec) (scenarios.Sizing, error) {
	m, ok := s.Mode()
	if !ok {
		return scenarios.Sizing{}, s.ValidateMode() // names the modes there are
	}
	return m.Sizing(s)
}

// runSizes is how many records each producer may send and how many seconds
// the time series covers: the sizing of the run's recorder, for the load
// its mode sizes (the schedule's rate or the backlog, and the span of the
// load) after the group has formed, and a minute to spare.
func runSizes(s scenarios.RunSpec) (perProducer uint64, seconds int, err error) {
	sz, err := modeSizing(s)
	if err != nil {
		return 0, 0, err
	}
	pcfg := producerConfig(s, nil, "")
	pcfg.Start = 0
	pcfg.Rate, pcfg.Backlog = sz.Rate, sz.Backlog
	secs := groupReadyTimeout + sz.Span + time.Minute
	perProducer, err = pcfg.PerProducerMax()
	return perProducer, int(secs / time.Second), err
}

// RunFootprint sizes one run. A max_rate run is sized at its highest step.
func RunFootprint(s scenarios.RunSpec) (Footprint, error) {
	perProducer, seconds, err := runSizes(s)
	if err != nil {
		return Footprint{}, err
	}
	f := Footprint{Seconds: seconds}
	f.Records = results.SatMul(perProducer, uint64(s.Producers))
	f.LedgerBytes = results.LedgerBytes(s.Producers, perProducer)
	f.SeriesBytes = results.SatAdd(results.SeriesBytes(seconds), results.IntervalLogBytes(seconds))
	members := uint64(s.Members) + uint64(joinedMembers(s))
	f.HistogramBytes = results.SatAdd(results.SatMul(uint64(s.Producers), results.ProducerRecorderBytes()),
		results.MembersRecorderBytes(members))
	f.Goroutines = results.SatAdd(results.SatMul(uint64(s.Producers), clientGoroutines),
		results.SatMul(members, uint64(s.Workers)+clientGoroutines))
	producers := results.SatMul(uint64(s.Producers),
		results.SatAdd(clientBytes, results.SatMul(producerBufferedRecords, uint64(s.MessageSize))))
	// A member holds at most a poll's records (twice, with prefetch).
	perMember := results.SatAdd(memberClientBytes, results.SatMul(2*uint64(s.MaxPollRecords), uint64(s.MessageSize)))
	f.ClientBytes = results.SatAdd(results.SatAdd(producers, results.SatMul(members, perMember)),
		results.SatMul(f.Goroutines, goroutineBytes))
	for _, b := range []uint64{f.LedgerBytes, f.SeriesBytes, f.HistogramBytes, f.ClientBytes} {
		f.Total = results.SatAdd(f.Total, b)
	}
	return f, nil
}

// joinedMembers counts the members join events add during the run.
func joinedMembers(s scenarios.RunSpec) int {
	n := 0
	for _, e := range s.Events {
		if e.Action == "join" {
			n += e.Members
		}
	}
	return n
}

// CheckBudget refuses a scenario whose largest run would hold more than
// budget bytes, naming the run, the computed need and the limit. Runs are
// sequential, so the largest one decides.
func CheckBudget(sc *scenarios.Scenario, budget uint64) error {
	var worst Footprint
	worstID := ""
	for i, r := range sc.Runs {
		f, err := RunFootprint(r)
		if err != nil {
			return fmt.Errorf("%s: run %s: %w", sc.Source, sc.RunName(i), err)
		}
		if f.Total > worst.Total {
			worst, worstID = f, sc.RunName(i)
		}
	}
	if worst.Total <= budget {
		return nil
	}
	return fmt.Errorf("%s: run %s needs about %s of memory, over the budget of %s: "+
		"ledger %s (%d records), time series %s (%d s), histograms %s, clients %s (%d goroutines); "+
		"lower rate, duration, backlog_records, members or workers (the budget is half of this host's physical memory, "+
		"MemTotal in /proc/meminfo, %s where it cannot be read: a larger host raises it; no flag does)",
		sc.Source, worstID, FormatBytes(worst.Total), FormatBytes(budget),
		FormatBytes(worst.LedgerBytes), worst.Records, FormatBytes(worst.SeriesBytes), worst.Seconds,
		FormatBytes(worst.HistogramBytes), FormatBytes(worst.ClientBytes), worst.Goroutines, FormatBytes(fallbackBudget))
}

// FormatBytes writes a byte count in binary units (KiB, MiB, GiB, TiB).
func FormatBytes(b uint64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := uint64(unit), 0
	for n := b / unit; n >= unit && exp < 5; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}

// fallbackBudget is the budget where the machine's memory cannot be read.
const fallbackBudget = 4 << 30

// DefaultMemoryBudget is half of the machine's physical memory: the rest is
// left to the brokers the harness may start on the same machine.
func DefaultMemoryBudget() uint64 {
	mi, err := procfs.NewDefaultFS()
	if err != nil {
		return fallbackBudget
	}
	m, err := mi.Meminfo()
	if err != nil || m.MemTotalBytes == nil || *m.MemTotalBytes == 0 {
		return fallbackBudget
	}
	return *m.MemTotalBytes / 2
}
