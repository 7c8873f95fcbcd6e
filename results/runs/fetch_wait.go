package runs

import "math"

// MemberBrokers is one share member's fetch layout: the brokers leading
// its assigned partitions, and how many of them lead a partition that
// receives records.
type MemberBrokers struct {
	Brokers int `json:"brokers"`
	Busy    int `json:"busy"`
}

// FetchWaitInput is what the fetch-wait bound needs: members that fetch
// from one broker at a time (share, acquire_mode record_limit without
// prefetch: franz-go allows one fetch per poll, the Java share consumer
// the same in this mode), how long a broker holds a fetch it has no
// records for (fetch.max.wait), and the records one fetch acquires.
type FetchWaitInput struct {
	MaxWaitMs       float64
	RecordsPerFetch float64 // max_poll_records
	Members         []MemberBrokers
}

// FetchWaitRate is one member's records/s when it cycles its k brokers one
// fetch at a time and b of them have records: a cycle acquires b fetches of
// r records, waits w_max at each of the k − b brokers without records and
// processes the b·r records on its workers (the poll loop is blocking, so
// processing and fetching do not overlap): rate = b·r ÷ ((k − b)·w_max +
// b·r·p·attempts ÷ workers). +Inf when no broker is empty and processing
// is free; 0 when no broker has records.
func FetchWaitRate(m MemberBrokers, maxWaitMs, r, processingMs, attempts float64, workers int) float64 {
	if m.Busy <= 0 || r <= 0 {
		return 0
	}
	empty := float64(max(0, m.Brokers-m.Busy))
	cycleMs := empty*maxWaitMs + float64(m.Busy)*r*processingMs*attempts/float64(max(1, workers))
	if cycleMs <= 0 {
		return math.Inf(1)
	}
	return float64(m.Busy) * r * 1000 / cycleMs
}

// applyFetchWaits sets the fetch-wait bound: Σ over members of
// FetchWaitRate, computed only when some member has a broker without
// records to wait on.
func (c *Ceiling) applyFetchWaits(in CeilingInput) {
	fw := in.FetchWait
	if fw == nil || fw.MaxWaitMs <= 0 {
		return
	}
	waits := false
	for _, m := range fw.Members {
		waits = waits || m.Busy > 0 && m.Brokers > m.Busy
	}
	if !waits {
		return
	}
	a := AttemptsPerCompletion(in.TransientRate, in.PoisonRate)
	sum := 0.0
	for _, m := range fw.Members {
		sum += FetchWaitRate(m, fw.MaxWaitMs, fw.RecordsPerFetch, in.ProcessingMs, a, in.Workers)
	}
	if math.IsInf(sum, 1) {
		return
	}
	c.FetchWaits, c.FetchMembers = sum, fw.Members
	if sum < c.RecordsPerSec {
		c.RecordsPerSec, c.Bound = sum, "fetch_waits"
	}
}
