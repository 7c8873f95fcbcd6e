package runs

import (
	"encoding/json"

	"github.com/sharebench/sharebench/results"
)

// RequestFigure is one broker × request kind of the consumers' requests
// (run.json requests), timed by the client from the request written to its
// response read, over the consuming phases (warm-up, window, drain).
type RequestFigure struct {
	Broker int32  `json:"broker"`
	Kind   string `json:"kind"` // Kafka's API name: ShareFetch, ShareAcknowledge, Fetch, OffsetCommit, …Heartbeat
	Count  int64  `json:"count"`
	// PerSec is Count ÷ the consuming phases' length.
	PerSec float64 `json:"per_sec"`
	Errors int64   `json:"errors,omitempty"`
	// EmptyShare is, for fetches, the share of responses that carried no
	// record; EmptyMeanMs their mean time (≈ fetch.max.wait when the broker
	// held them for records that never came).
	EmptyShare  float64 `json:"empty_share,omitempty"`
	EmptyMeanMs float64 `json:"empty_mean_ms,omitempty"`
	MeanMs      float64 `json:"mean_ms"`
	MaxMs       float64 `json:"max_ms"`
	// WaitSec is the summed time of the kind's requests, s: for fetches,
	// the time the members spent waiting on this broker.
	WaitSec float64 `json:"wait_s"`
	// Untimed rows count requests without timing them (the Java client's
	// per-node metrics, results.RequestStat.Untimed): MeanMs, MaxMs and
	// WaitSec are unknown, and run.json leaves them out.
	Untimed bool `json:"untimed,omitempty"`
	// Unavailable names the figures the row's client cannot give, and why
	// (untimed rows; timed rows without an empty count).
	Unavailable string `json:"unavailable,omitempty"`
}

// What an untimed or an empty-less row lacks, as run.json says it.
const (
	unavailableUntimed = "mean_ms, max_ms, wait_s, empty_share: the Java client counts every request on the connection, of any API, " +
		"without timing it or telling its API"
	unavailableNoEmpty = "empty_share, empty_mean_ms: the Java client does not count fetch responses that carried no record " +
		"(records-per-request-avg is an average over responses, not a count of empty ones)"
)

// untimedFigure is an untimed RequestFigure as run.json writes it: without
// the times it does not know.
type untimedFigure struct {
	Broker      int32   `json:"broker"`
	Kind        string  `json:"kind"`
	Count       int64   `json:"count"`
	PerSec      float64 `json:"per_sec"`
	Errors      int64   `json:"errors,omitempty"`
	Untimed     bool    `json:"untimed"`
	Unavailable string  `json:"unavailable,omitempty"`
}

// MarshalJSON writes an untimed row without mean_ms, max_ms and wait_s
// (unknown, not 0); a timed row as its fields say.
func (f RequestFigure) MarshalJSON() ([]byte, error) {
	if !f.Untimed {
		type plain RequestFigure
		return json.Marshal(plain(f))
	}
	return json.Marshal(untimedFigure{Broker: f.Broker, Kind: f.Kind, Count: f.Count, PerSec: f.PerSec, Errors: f.Errors, Untimed: true,
		Unavailable: f.Unavailable})
}

// RequestFigures summarizes request timings over secs of consuming, sorted
// by broker and kind; nil when nothing was timed.
func RequestFigures(t results.RequestTimings, secs float64) []RequestFigure {
	rows := t.Rows()
	if len(rows) == 0 {
		return nil
	}
	out := make([]RequestFigure, 0, len(rows))
	for _, r := range rows {
		f := RequestFigure{Broker: r.Broker, Kind: r.Kind, Count: r.Count, Errors: r.Errors,
			MaxMs: float64(r.MaxMicros) / 1e3, WaitSec: float64(r.Micros) / 1e6}
		if secs > 0 {
			f.PerSec = float64(r.Count) / secs
		}
		if r.Untimed {
			f.MaxMs, f.WaitSec, f.Untimed, f.Unavailable = 0, 0, true, unavailableUntimed
			out = append(out, f)
			continue
		}
		if r.Count > 0 {
			f.MeanMs = float64(r.Micros) / 1e3 / float64(r.Count)
			f.EmptyShare = float64(r.Empty) / float64(r.Count)
		}
		if r.NoEmpty {
			f.EmptyShare, f.Unavailable = 0, unavailableNoEmpty
			out = append(out, f)
			continue
		}
		if r.Empty > 0 {
			f.EmptyMeanMs = float64(r.EmptyMicros) / 1e3 / float64(r.Empty)
		}
		out = append(out, f)
	}
	return out
}

// IsFetch reports whether a request kind is a fetch (Fetch, ShareFetch).
func IsFetch(kind string) bool { return kind == "Fetch" || kind == "ShareFetch" }

// FetchTotals are a run's fetch requests summed over brokers.
type FetchTotals struct {
	Count int64
	// PerSec is Σ per_sec; EmptyShare Σ empty ÷ Σ count; WaitSec Σ wait_s.
	PerSec, EmptyShare, WaitSec float64
}

// SumFetches adds up the fetch rows (Fetch, ShareFetch) of reqs; ok is
// false when there is none.
func SumFetches(reqs []RequestFigure) (t FetchTotals, ok bool) {
	var empty float64
	for _, r := range reqs {
		if !IsFetch(r.Kind) || r.Untimed || r.Unavailable != "" {
			continue
		}
		ok = true
		t.Count += r.Count
		t.PerSec += r.PerSec
		t.WaitSec += r.WaitSec
		empty += r.EmptyShare * float64(r.Count)
	}
	if t.Count > 0 {
		t.EmptyShare = empty / float64(t.Count)
	}
	return t, ok
}
