package results

import (
	"sort"
	"time"
)

// RequestKey is one broker and one request kind (Kafka's API name:
// ShareFetch, ShareAcknowledge, Fetch, OffsetCommit, ShareGroupHeartbeat…).
type RequestKey struct {
	Broker int32  `json:"broker"`
	Kind   string `json:"kind"`
}

// RequestStat sums the requests of one broker and kind as the client timed
// them: the request written until its response was read
// (kgo.BrokerE2E.DurationE2E).
//
// An Untimed stat is a count only: the client reported how many requests
// it sent but not their time (the Java client's per-node metrics); Micros
// and MaxMicros are then unknown, not 0, and Empty is not counted.
type RequestStat struct {
	Count  int64 `json:"count"`
	Errors int64 `json:"errors,omitempty"` // write or read failed
	// Empty is the fetches (Fetch, ShareFetch) whose response carried no
	// record; EmptyMicros their summed time.
	Empty       int64 `json:"empty,omitempty"`
	Micros      int64 `json:"micros"` // summed time, µs
	EmptyMicros int64 `json:"empty_micros,omitempty"`
	MaxMicros   int64 `json:"max_micros"`
	Untimed     bool  `json:"untimed,omitempty"`
	// NoEmpty: a timed stat whose client does not say which fetches came
	// back empty (the Java client's fetch-response times): Empty and
	// EmptyMicros are unknown, not 0.
	NoEmpty bool `json:"no_empty,omitempty"`
}

// add folds o into s.
func (s *RequestStat) add(o RequestStat) {
	s.Count += o.Count
	s.Errors += o.Errors
	s.Empty += o.Empty
	s.Micros += o.Micros
	s.EmptyMicros += o.EmptyMicros
	s.MaxMicros = max(s.MaxMicros, o.MaxMicros)
	s.Untimed = s.Untimed || o.Untimed
	s.NoEmpty = s.NoEmpty || o.NoEmpty
}

// RequestTimings are a client's requests summed per broker and kind; they
// merge by adding, so members, processes and shards combine exactly.
type RequestTimings map[RequestKey]RequestStat

// Observe adds one request of d (err: it failed).
func (t RequestTimings) Observe(k RequestKey, d time.Duration, failed bool) {
	s := t[k]
	us := d.Microseconds()
	s.Count++
	s.Micros += us
	s.MaxMicros = max(s.MaxMicros, us)
	if failed {
		s.Errors++
	}
	t[k] = s
}

// ObserveEmpty counts one fetch of d whose response held no record (it was
// already counted by Observe).
func (t RequestTimings) ObserveEmpty(k RequestKey, d time.Duration) {
	s := t[k]
	s.Empty++
	s.EmptyMicros += d.Microseconds()
	t[k] = s
}

// Merge adds o into t.
func (t RequestTimings) Merge(o RequestTimings) {
	for k, s := range o {
		v := t[k]
		v.add(s)
		t[k] = v
	}
}

// RequestTimingRow is one broker × kind of RequestTimings in a form that
// encodes as JSON (maps keyed by structs do not).
type RequestTimingRow struct {
	RequestKey
	RequestStat
}

// Rows lists t sorted by broker, then kind.
func (t RequestTimings) Rows() []RequestTimingRow {
	out := make([]RequestTimingRow, 0, len(t))
	for k, s := range t {
		out = append(out, RequestTimingRow{k, s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Broker != out[j].Broker {
			return out[i].Broker < out[j].Broker
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

// RequestTimingsFromRows is Rows' inverse.
func RequestTimingsFromRows(rows []RequestTimingRow) RequestTimings {
	t := RequestTimings{}
	for _, r := range rows {
		v := t[r.RequestKey]
		v.add(r.RequestStat)
		t[r.RequestKey] = v
	}
	return t
}
