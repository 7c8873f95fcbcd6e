package runs

import "math"

// MemberBrokers is one share member's fetch layout: the brokers leading
// its assigned partitions, and how many of them lead a partition that
// receives records.
type MemberBrokers struct {
	Brokers int `json:"brokers"`
	Busy    int `json:"busy"`
	// Shares are, per broker of the member (Brokers of them), the share of
	// all records produced that lands on the member's partitions that
	// broker leads, divided among the members holding each partition (0:
	// none; absent in records written before they were known). With the
	// offered rate they give the trickle each held fetch waits for.
	Shares []float64 `json:"shares,omitempty"`
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
	// RoundTripMs is what a fetch costs when the broker answers at once
	// (FetchRoundTripMs, measured; 0 when the client's timings cannot
	// tell it): every visit of a cycle pays it.
	RoundTripMs float64
}

// FetchWaitRate is one member's records/s when it cycles its k brokers one
// fetch at a time and b of them have records: a cycle acquires b fetches of
// r records, waits w_max at each of the k − b brokers without records,
// pays a round trip t at each of the k brokers, and processes the b·r
// records on its workers (the poll loop is blocking, so processing and
// fetching do not overlap): rate = b·r ÷ ((k − b)·w_max + k·t +
// b·r·p·attempts ÷ workers). +Inf when no broker is empty and fetching and
// processing are free; 0 when no broker has records.
func FetchWaitRate(m MemberBrokers, maxWaitMs, rttMs, r, processingMs, attempts float64, workers int) float64 {
	if m.Busy <= 0 || r <= 0 {
		return 0
	}
	empty := float64(max(0, m.Brokers-m.Busy))
	cycleMs := empty*maxWaitMs + float64(m.Brokers)*rttMs + float64(m.Busy)*r*processingMs*attempts/float64(max(1, workers))
	if cycleMs <= 0 {
		return math.Inf(1)
	}
	return float64(m.Busy) * r * 1000 / cycleMs
}

// TrickleRate is one member's records/s when it cycles its brokers one
// fetch at a time and broker j receives records for it at rates[j]
// records/s (Poisson arrivals; +Inf: always r waiting). A cycle visits every
// broker once: at broker j it finds the records that arrived since its last
// visit, λ_j·C on average for a cycle of C, and takes at most r; it finds
// none with probability e^(−λ_j·C), and then the broker holds the fetch
// until the first record arrives or w_max passes, whichever is first:
// E[min(Exp(λ_j), w_max)] = (1 − e^(−λ_j·w_max)) ÷ λ_j (w_max when
// λ_j = 0). The records taken are processed before the next fetch
// (blocking poll), and every visit pays the round trip t. So
//
//	n_j = min(r, λ_j·C)
//	C   = Σ_j e^(−λ_j·C)·(1 − e^(−λ_j·w_max)) ÷ λ_j + k·t + Σ_j n_j·p·attempts ÷ workers
//	rate = min(Σ_j n_j ÷ C, Σ_j λ_j)
//
// solved for C by iteration. With every λ either 0 or +Inf it is
// FetchWaitRate. A fetch cap r below λ_j·C is what a cycle's waits cost:
// the busy broker's records queue while the member waits elsewhere.
func TrickleRate(rates []float64, maxWaitMs, rttMs, r, processingMs, attempts float64, workers int) float64 {
	if r <= 0 || len(rates) == 0 {
		return 0
	}
	w := maxWaitMs / 1000
	rtt := rttMs / 1000
	per := processingMs / 1000 * attempts / float64(max(1, workers)) // s per record
	arrive := 0.0
	for _, l := range rates {
		arrive += l
	}
	if arrive <= 0 {
		return 0
	}
	cycle := func(c float64) (float64, float64) { // the cycle C gives, and the records it takes
		next, took := 0.0, 0.0
		for _, l := range rates {
			n := r
			if !math.IsInf(l, 1) {
				n = math.Min(r, l*c)
			}
			switch {
			case l <= 0:
				next += w
			case !math.IsInf(l, 1):
				next += math.Exp(-l*c) * -math.Expm1(-l*w) / l
			}
			next += n*per + rtt
			took += n
		}
		return next, took
	}
	c := (w + rtt) * float64(len(rates))
	if c <= 0 {
		c = r * per
	}
	var took float64
	for range 200 {
		next, n := cycle(c)
		took = n
		if next <= 0 || math.Abs(next-c) <= 1e-9*c {
			c = next
			break
		}
		c = 0.5*c + 0.5*next
	}
	if c <= 0 {
		return math.Inf(1)
	}
	return math.Min(took/c, arrive)
}

// applyFetchWaits sets the fetch-wait bound: Σ over members of
// TrickleRate on the offered rate's shares (FetchWaitRate for a layout
// recorded without them, or when the producers are not the bound, as in
// max_rate's probe of the consumers), computed only when some member has
// a broker that can leave a fetch waiting.
func (c *Ceiling) applyFetchWaits(in CeilingInput) {
	fw := in.FetchWait
	if fw == nil || fw.MaxWaitMs <= 0 {
		return
	}
	trickle := in.ProducerRate > 0 && !math.IsInf(in.ProducerRate, 1)
	waits := false
	for _, m := range fw.Members {
		waits = waits || m.Busy > 0 && m.Brokers > m.Busy
		trickle = trickle && len(m.Shares) == m.Brokers
	}
	if !waits && !trickle {
		return
	}
	a := AttemptsPerCompletion(in.TransientRate, in.PoisonRate)
	sum := 0.0
	for _, m := range fw.Members {
		if trickle {
			rates := make([]float64, len(m.Shares))
			for j, sh := range m.Shares {
				rates[j] = sh * in.ProducerRate
			}
			sum += TrickleRate(rates, fw.MaxWaitMs, fw.RoundTripMs, fw.RecordsPerFetch, in.ProcessingMs, a, in.Workers)
			continue
		}
		sum += FetchWaitRate(m, fw.MaxWaitMs, fw.RoundTripMs, fw.RecordsPerFetch, in.ProcessingMs, a, in.Workers)
	}
	if math.IsInf(sum, 1) {
		return
	}
	c.FetchWaits, c.FetchMembers, c.FetchRoundTripMs = sum, fw.Members, fw.RoundTripMs
	if sum < c.RecordsPerSec {
		c.RecordsPerSec, c.Bound = sum, "fetch_waits"
	}
}

// minRoundTripFetches is how many answered fetches with records a broker's
// row needs before its mean is read as a round trip.
const minRoundTripFetches = 20

// FetchRoundTripMs is a fetch's round trip when the broker answers at once:
// of the fetch rows that count their empty responses (franz-go's; the Java
// client's do not), the smallest mean of the responses that carried
// records, (mean − empty share × empty mean) ÷ (1 − empty share), over
// brokers with at least minRoundTripFetches of them. A response with
// records on a quiet broker may have been held until its first record; on
// the busiest broker none is, so the smallest is the round trip. 0 when no
// row tells it.
func FetchRoundTripMs(reqs []RequestFigure) float64 {
	best := 0.0
	for _, q := range reqs {
		if !IsFetch(q.Kind) || q.Untimed || q.Unavailable != "" || q.EmptyShare >= 1 {
			continue
		}
		if float64(q.Count)*(1-q.EmptyShare) < minRoundTripFetches {
			continue
		}
		ms := (q.MeanMs - q.EmptyShare*q.EmptyMeanMs) / (1 - q.EmptyShare)
		if ms > 0 && (best == 0 || ms < best) {
			best = ms
		}
	}
	return best
}
