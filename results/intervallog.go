package results

import (
	"bytes"
	"fmt"
	"slices"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// IntervalLog records latencies into one-second interval histograms and
// encodes each finished interval into the HdrHistogram log format (.hlog),
// the input of HdrHistogram's HistogramLogProcessor and plotters. Every
// observation of the run lands in the interval in which it happened (not
// only the measurement window), so the log shows warm-up and drain too.
//
// The per-record path does not take the log's lock: each writer (a member
// or producer shard) records into its own IntervalShard under its own lock,
// and hands its interval to the log once per second, when its clock crosses
// into the next one. The log writes an interval once the latest shard is
// intervalLagSeconds past it; a piece that arrives for an interval already
// written (a shard that idled with an unfinished interval) lands in the
// first interval not yet written.
type IntervalLog struct {
	mu      sync.Mutex
	tag     string
	start   int64 // Unix ns of interval 0
	written int64 // intervals starting before this are encoded in buf
	latest  int64 // the latest interval start handed in
	pending map[int64]*hdrhistogram.Histogram
	free    []*hdrhistogram.Histogram
	buf     bytes.Buffer
	w       *hdrhistogram.HistogramLogWriter
	err     error

	// own is the shard behind Record, for writers without a shard of
	// their own.
	ownMu sync.Mutex
	own   *IntervalShard
}

const intervalNs = int64(1e9)

// intervalLagSeconds is how far the latest shard must be past an interval
// before the log writes it (shards record at slightly different times).
const intervalLagSeconds = 2

// NewIntervalLog starts a log whose intervals begin at startNs.
func NewIntervalLog(tag string, startNs int64) *IntervalLog {
	l := &IntervalLog{tag: tag, start: startNs, written: startNs, latest: startNs, pending: map[int64]*hdrhistogram.Histogram{}}
	l.w = hdrhistogram.NewHistogramLogWriter(&l.buf)
	l.w.SetBaseTime(startNs / 1e6)
	l.err = firstErr(
		l.w.OutputLogFormatVersion(),
		l.w.OutputComment(fmt.Sprintf("sharebench %s latency in microseconds, 1 s intervals", tag)),
		l.w.OutputStartTime(startNs/1e6),
		l.w.OutputBaseTime(startNs/1e6),
		l.w.OutputLegend(),
	)
	l.own = l.Shard()
	return l
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// IntervalShard is one writer's part of an IntervalLog. It has no lock of
// its own: its owner serialises Record and the log's Bytes (a MemberShard
// or ProducerShard under its mutex).
type IntervalShard struct {
	log      *IntervalLog
	curStart int64
	cur      *hdrhistogram.Histogram
}

// Shard returns a new writer of the log.
func (l *IntervalLog) Shard() *IntervalShard {
	return &IntervalShard{log: l, cur: NewLatencyHistogram()}
}

// intervalOf is the start of the interval holding ns (interval 0 for
// anything before the log's start).
func (l *IntervalLog) intervalOf(ns int64) int64 {
	if ns < l.start {
		return l.start
	}
	return l.start + (ns-l.start)/intervalNs*intervalNs
}

// Record adds a latency of valueNs observed at nowNs. The caller holds the
// shard owner's lock.
func (s *IntervalShard) Record(nowNs, valueNs int64) {
	if s.cur.TotalCount() > 0 && nowNs >= s.curStart+intervalNs {
		s.log.add(s.curStart, s.cur)
		s.cur.Reset()
	}
	if s.cur.TotalCount() == 0 {
		s.curStart = s.log.intervalOf(nowNs)
	}
	RecordNanos(s.cur, valueNs)
}

// piece is the shard's unfinished interval, copied (nil when empty). The
// caller holds the shard owner's lock.
func (s *IntervalShard) piece() *intervalPiece {
	if s.cur.TotalCount() == 0 {
		return nil
	}
	return &intervalPiece{start: s.curStart, h: s.cur.Clone()}
}

type intervalPiece struct {
	start int64
	h     *hdrhistogram.Histogram
}

// add merges a shard's finished interval and writes the intervals every
// shard has moved past.
func (l *IntervalLog) add(start int64, h *hdrhistogram.Histogram) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mergeLocked(l.pending, start, h, true)
	l.latest = max(l.latest, start)
	for len(l.pending) > 0 {
		first := slices.Min(mapKeys(l.pending))
		if first > l.latest-intervalLagSeconds*intervalNs {
			break
		}
		p := l.pending[first]
		delete(l.pending, first)
		l.err = firstErr(l.err, writeInterval(l.w, l.tag, first, p))
		l.written = first + intervalNs
		p.Reset()
		l.free = append(l.free, p)
	}
}

// mergeLocked adds h to the interval starting at start in m, or to the first
// interval not yet written when that one is.
// Only the pending map reuses the free histograms.
func (l *IntervalLog) mergeLocked(m map[int64]*hdrhistogram.Histogram, start int64, h *hdrhistogram.Histogram, reuse bool) {
	start = max(start, l.written)
	p := m[start]
	if p == nil {
		if n := len(l.free); n > 0 && reuse {
			p, l.free = l.free[n-1], l.free[:n-1]
		} else {
			p = NewLatencyHistogram()
		}
		m[start] = p
	}
	p.Merge(h)
}

func mapKeys(m map[int64]*hdrhistogram.Histogram) []int64 {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

func writeInterval(w *hdrhistogram.HistogramLogWriter, tag string, start int64, h *hdrhistogram.Histogram) error {
	if h.TotalCount() == 0 {
		return nil
	}
	h.SetStartTimeMs(start / 1e6)
	h.SetEndTimeMs((start + intervalNs) / 1e6)
	h.SetTag(tag)
	return w.OutputIntervalHistogram(h)
}

// Record adds a latency of valueNs observed at nowNs, through the log's own
// shard (safe for concurrent use, but every caller shares one lock: the
// per-record path uses a Shard per writer).
func (l *IntervalLog) Record(nowNs, valueNs int64) {
	l.ownMu.Lock()
	defer l.ownMu.Unlock()
	l.own.Record(nowNs, valueNs)
}

// Bytes returns the whole log so far, the log's own shard included. It does
// not change the log: recording may go on.
func (l *IntervalLog) Bytes() ([]byte, error) {
	l.ownMu.Lock()
	p := l.own.piece()
	l.ownMu.Unlock()
	return l.bytesWith([]*intervalPiece{p})
}

// bytesWith returns the log written so far followed by the unwritten
// intervals with the shards' unfinished pieces merged in.
func (l *IntervalLog) bytesWith(pieces []*intervalPiece) ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return nil, fmt.Errorf("%s interval log: %w", l.tag, l.err)
	}
	rest := map[int64]*hdrhistogram.Histogram{}
	for start, h := range l.pending {
		l.mergeLocked(rest, start, h, false)
	}
	for _, p := range pieces {
		if p != nil {
			l.mergeLocked(rest, p.start, p.h, false)
		}
	}
	out := bytes.NewBuffer(bytes.Clone(l.buf.Bytes()))
	w := hdrhistogram.NewHistogramLogWriter(out)
	w.SetBaseTime(l.start / 1e6)
	keys := mapKeys(rest)
	slices.Sort(keys)
	for _, k := range keys {
		if err := writeInterval(w, l.tag, k, rest[k]); err != nil {
			return nil, fmt.Errorf("%s interval log: %w", l.tag, err)
		}
	}
	return out.Bytes(), nil
}
