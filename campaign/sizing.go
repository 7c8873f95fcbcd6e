package campaign

import (
	"fmt"
	"time"

	"github.com/prometheus/procfs"

	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// Footprint is what one run holds in memory while it runs, computed before
// anything starts: the process itself (runtime, code, collectors), the audit
// ledger (4 bits per record the run may produce), the one-second time series
// and interval logs over the run's longest length, the HDR histograms of
// every producer and member recorder, and the clients and goroutines of the
// fleets. The figures come from the same sizing the recorder uses (runSizes)
// and the measurement model's own byte counts (results.LedgerBytes and
// friends); client memory is an estimate (clientBytes, memberClientBytes,
// heldRecordBytes), calibrated against real-broker runs' peak RSS
// (TestModelAboveRealRuns).
type Footprint struct {
	Records        uint64 // ledger capacity: records the run may produce
	Seconds        int    // time-series length
	Goroutines     uint64 // producer clients + members × (workers + client internals)
	BaseBytes      uint64 // the harness process before any run
	LedgerBytes    uint64
	SeriesBytes    uint64 // time series + interval logs
	HistogramBytes uint64
	ClientBytes    uint64 // producer and consumer clients, buffers and goroutine stacks
	Total          uint64
}

// Estimates of client memory the harness does not allocate itself.
const (
	// processBaseBytes is the harness process with no client running: the
	// Go runtime, the binary's code and data as mapped, the collectors. A
	// sharded run's coordinator, which runs no client of the workload,
	// peaked at 35 MiB (issue 27, Kafka 4.2.2, process provider).
	processBaseBytes = 32 << 20
	clientBytes      = 1 << 20 // a producer's franz-go client: connections, metadata, buffers
	// memberClientBytes is a consumer member's franz-go client (connection,
	// metadata, fetch and share-session state), without the records it holds
	// (heldRecordBytes). Calibrated (issue 27) on a real broker: 1,000 share
	// members peaked at 244 MiB of RSS in one process, about 190 KiB a member
	// with its goroutines and records; on kfake
	// (consumers.BenchmarkShareMembersFootprint, TestMemberModelCalibrated) a
	// member's client and goroutines hold 97–177 KiB, kfake's own state for
	// the member included.
	memberClientBytes = 128 << 10
	// memberPartitionBytes is what a member's client holds for every
	// partition of the topic, assigned to it or not (metadata, a cursor,
	// fetch-session state). Calibrated (issue 27) on a real broker: agents
	// of 375 consumer-group members on a 1,500-partition topic held
	// 825–926 MiB each, about 1.6 KiB a member and partition.
	memberPartitionBytes = 2 << 10
	goroutineBytes       = 8 << 10 // a goroutine's stack, as it starts
	clientGoroutines     = 8       // goroutines a franz-go client runs
	// producedRecordBytes is what a record buffered in a producer's client
	// costs beyond its value: the kgo.Record (160 bytes), its promise, the
	// harness's acknowledgement closure and its share of the batch being
	// built. Calibrated (issue 27) on real backlog drains, whose fill keeps
	// both producers' clients full: 161–169 MiB of peak RSS.
	producedRecordBytes = 320
	// producerLagSeconds is how far behind its schedule a producer's client
	// is taken to fall (records produced, not yet acknowledged) in a rate
	// run, within producer.MaxBufferedRecords; a backlog fill keeps the
	// client full.
	producerLagSeconds = 10
	// fetchedRecordBytes is what a fetched record costs a franz-go client
	// beyond its value: the kgo.Record (160 bytes) and a share
	// acknowledgement slot, rounded up.
	fetchedRecordBytes = 200
	// gcGrowth is how far the heap a client churns through grows past what
	// it holds before the collector runs (GOGC 100: twice).
	gcGrowth = 2
)

// wireRecordBytes is a conservative (low) estimate of one harness record's
// size in a fetch response: the producers' batches are snappy-compressed
// (franz-go's default), and a value is a 40-byte stamp followed by zeros,
// which compress to almost nothing; record framing adds a few bytes. The
// lower it is, the more records a fetch of a given size is taken to carry.
// On a real broker a consumer-group drain read 2 MiB fetches of about
// 37,000 records of 256 bytes: 56 bytes a record.
func wireRecordBytes(messageSize int) uint64 {
	return uint64(results.StampSize) + uint64(max(messageSize-results.StampSize, 0))/16
}

// readingMembers is how many members hold records: every share member, and
// in a consumer group only those with a partition (Kafka gives a partition
// to one member of a consumer group; the rest wait idle).
func readingMembers(s scenarios.RunSpec, members uint64) uint64 {
	if s.ConsumerType == vocab.ShareGroup {
		return members
	}
	return min(members, uint64(max(s.Partitions, 0)))
}

// heldRecordBytes bounds what one reading member's client holds of fetched
// records. Every member holds a poll's records while its workers process
// them, and a share member (or one with prefetch) its next poll's as well:
// 2 × max_poll_records. A consumer-group member's client also buffers
// whole fetch responses whatever max.poll.records is: up to
// fetch_max_partition_bytes per partition it reads (fetch_max_bytes in
// all), as many records as that carries on the wire, as far as the member
// can fall behind (lagging records: its share of a backlog, or of
// producerLagSeconds of the rate); that part churns, and counts gcGrowth
// times.
func heldRecordBytes(s scenarios.RunSpec, sz scenarios.Sizing, reading uint64) uint64 {
	perRecord := uint64(s.MessageSize) + fetchedRecordBytes
	held := results.SatMul(2*uint64(max(s.MaxPollRecords, 0)), perRecord)
	if s.ConsumerType == vocab.ShareGroup || reading == 0 {
		return held
	}
	perMember := (uint64(s.Partitions) + reading - 1) / reading // partitions a member reads
	fetchBytes := results.SatMul(perMember, uint64(fetchMaxPartitionBytes(s)))
	fetchBytes = min(fetchBytes, uint64(fetchMaxBytes(s)))
	fetchRecords := fetchBytes / wireRecordBytes(s.MessageSize)
	lagging := sz.Backlog
	if lagging == 0 {
		lagging = uint64(sz.Rate*producerLagSeconds) + 1
	}
	fetchRecords = min(fetchRecords, (lagging+reading-1)/reading)
	// The records, and the response they came in (compressed).
	fetched := results.SatMul(fetchRecords, perRecord+wireRecordBytes(s.MessageSize))
	return results.SatAdd(held, results.SatMul(gcGrowth, fetched))
}

// fetchMaxBytes and fetchMaxPartitionBytes are the run's fetch sizes,
// franz-go's defaults (50 MiB, 1 MiB) where unset.
func fetchMaxBytes(s scenarios.RunSpec) int {
	if s.FetchMaxBytes > 0 {
		return s.FetchMaxBytes
	}
	return 50 << 20
}

func fetchMaxPartitionBytes(s scenarios.RunSpec) int {
	if s.FetchMaxPartitionBytes > 0 {
		return s.FetchMaxPartitionBytes
	}
	return 1 << 20
}

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
	buffered, err := producerBuffered(s, perProducer)
	if err != nil {
		return Footprint{}, err
	}
	// A producer's client churns through the records it buffers (gcGrowth).
	producers := results.SatMul(uint64(s.Producers), results.SatAdd(clientBytes,
		results.SatMul(gcGrowth*buffered, uint64(s.MessageSize)+producedRecordBytes)))
	sz, err := modeSizing(s)
	if err != nil {
		return Footprint{}, err
	}
	perMember := results.SatAdd(memberClientBytes, results.SatMul(uint64(max(s.Partitions, 0)), memberPartitionBytes))
	reading := readingMembers(s, members)
	held := results.SatMul(reading, heldRecordBytes(s, sz, reading))
	f.ClientBytes = results.SatAdd(results.SatAdd(producers, results.SatMul(members, perMember)),
		results.SatAdd(held, results.SatMul(f.Goroutines, goroutineBytes)))
	f.BaseBytes = processBaseBytes
	for _, b := range []uint64{f.BaseBytes, f.LedgerBytes, f.SeriesBytes, f.HistogramBytes, f.ClientBytes} {
		f.Total = results.SatAdd(f.Total, b)
	}
	return f, nil
}

// producerBuffered is how many records one producer's client holds at
// most: producer.MaxBufferedRecords in a backlog fill (or its share of the
// backlog), producerLagSeconds of its schedule in a rate run.
func producerBuffered(s scenarios.RunSpec, perProducer uint64) (uint64, error) {
	sz, err := modeSizing(s)
	if err != nil {
		return 0, err
	}
	n := uint64(producer.MaxBufferedRecords)
	if sz.Backlog == 0 && s.Producers > 0 {
		n = min(n, uint64(sz.Rate/float64(s.Producers)*producerLagSeconds)+1)
	}
	return min(n, perProducer), nil
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
		"process %s, ledger %s (%d records), time series %s (%d s), histograms %s, clients %s (%d goroutines); "+
		"lower rate, duration, backlog_records, members or workers (the budget is half of this host's physical memory, "+
		"MemTotal in /proc/meminfo, %s where it cannot be read: a larger host raises it; no flag does)",
		sc.Source, worstID, FormatBytes(worst.Total), FormatBytes(budget), FormatBytes(worst.BaseBytes),
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
