package results

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
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
// or producer recorder) records into its own IntervalWriter under its own lock,
// and hands its interval to the log once per second, when its clock crosses
// into the next one. The log writes an interval once the latest writer is
// intervalLagSeconds past it; a piece that arrives for an interval already
// written (a writer that idled with an unfinished interval) lands in the
// first interval not yet written.
type IntervalLog struct {
	mu      sync.Mutex
	tag     string
	start   int64 // Unix ns of interval 0
	written int64 // intervals starting before this are encoded in buf
	latest  int64 // the latest interval start handed in
	pending map[int64]*hdrhistogram.Histogram
	free    []*hdrhistogram.Histogram
	buf     bytes.Buffer // the encoded text not yet moved to spill
	spill   *spillFile   // the older encoded text (intervalspill.go); nil: none
	noSpill bool         // no file could be made or written: all in buf
	w       *hdrhistogram.HistogramLogWriter
	err     error
	// absorbed are intervals from other recorders' logs (a sharded run's
	// shards, absorb.go), by start; they are written with the pending ones.
	absorbed map[int64]*bucketAccum

	// own is the writer behind Record, for callers without a writer of
	// their own.
	ownMu sync.Mutex
	own   *IntervalWriter
}

const intervalNs = int64(1e9)

// intervalLagSeconds is how far the latest writer must be past an interval
// before the log writes it (writers record at slightly different times).
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
	l.own = l.Writer()
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

// IntervalWriter is one writer's part of an IntervalLog. It has no lock of
// its own: its owner serialises Record and the log's Bytes (a MemberRecorder
// or ProducerRecorder under its mutex).
type IntervalWriter struct {
	log      *IntervalLog
	curStart int64
	cur      *hdrhistogram.Histogram
}

// Writer returns a new writer of the log.
func (l *IntervalLog) Writer() *IntervalWriter {
	return &IntervalWriter{log: l, cur: NewLatencyHistogram()}
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
// writer's owner's lock (a MemberRecorder or ProducerRecorder).
func (s *IntervalWriter) Record(nowNs, valueNs int64) {
	if s.cur.TotalCount() > 0 && nowNs >= s.curStart+intervalNs {
		s.log.add(s.curStart, s.cur)
		s.cur.Reset()
	}
	if s.cur.TotalCount() == 0 {
		s.curStart = s.log.intervalOf(nowNs)
	}
	RecordNanos(s.cur, valueNs)
}

// piece is the writer's unfinished interval, copied (nil when empty or for
// no writer: an absorbed shard's intervals are in the log). The caller holds
// the writer's owner's lock.
func (s *IntervalWriter) piece() *intervalPiece {
	if s == nil || s.cur.TotalCount() == 0 {
		return nil
	}
	return &intervalPiece{start: s.curStart, h: s.cur.Clone()}
}

type intervalPiece struct {
	start int64
	h     *hdrhistogram.Histogram
}

// add merges a writer's finished interval and writes the intervals every
// writer has moved past.
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
	l.spillLocked()
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

// intervalHistogram is what writeInterval needs of a Histogram or a
// PackedHistogram.
type intervalHistogram interface {
	TotalCount() int64
	SetStartTimeMs(int64)
	SetEndTimeMs(int64)
	SetTag(string)
}

// writeInterval writes one one-second interval starting at start (Unix ns);
// an empty one is left out.
// unwrittenLocked is the intervals not yet written, by start: the pending
// ones with the writers' unfinished pieces merged in (copies; the log is
// not changed). The caller holds l.mu.
func (l *IntervalLog) unwrittenLocked(pieces []*intervalPiece) map[int64]*hdrhistogram.Histogram {
	rest := map[int64]*hdrhistogram.Histogram{}
	for start, h := range l.pending {
		l.mergeLocked(rest, start, h, false)
	}
	for _, p := range pieces {
		if p != nil {
			l.mergeLocked(rest, p.start, p.h, false)
		}
	}
	return rest
}

func writeInterval(w *hdrhistogram.HistogramLogWriter, tag string, start int64, h intervalHistogram) error {
	if h.TotalCount() == 0 {
		return nil
	}
	h.SetStartTimeMs(start / 1e6)
	h.SetEndTimeMs((start + intervalNs) / 1e6)
	h.SetTag(tag)
	switch h := h.(type) {
	case *hdrhistogram.PackedHistogram:
		return w.OutputIntervalPackedHistogram(h)
	default:
		return w.OutputIntervalHistogram(h.(*hdrhistogram.Histogram))
	}
}

// Record adds a latency of valueNs observed at nowNs, through the log's own
// writer (safe for concurrent use, but every caller shares one lock: the
// per-record path uses a Writer per producer or member).
func (l *IntervalLog) Record(nowNs, valueNs int64) {
	l.ownMu.Lock()
	defer l.ownMu.Unlock()
	l.own.Record(nowNs, valueNs)
}

// Bytes returns the whole log so far, the log's own writer included. It does
// not change the log: recording may go on.
func (l *IntervalLog) Bytes() ([]byte, error) {
	l.ownMu.Lock()
	p := l.own.piece()
	l.ownMu.Unlock()
	return l.bytesWith([]*intervalPiece{p})
}

// bytesWith returns the log written so far followed by the unwritten
// intervals with the writers' unfinished pieces merged in.
func (l *IntervalLog) bytesWith(pieces []*intervalPiece) ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return nil, fmt.Errorf("%s interval log: %w", l.tag, l.err)
	}
	rest := l.unwrittenLocked(pieces)
	text, err := l.textLocked()
	if err != nil {
		return nil, fmt.Errorf("%s interval log: %w", l.tag, err)
	}
	if l.spill == nil {
		text = bytes.Clone(text) // the buffer's own bytes: the log goes on
	}
	out := bytes.NewBuffer(text)
	w := hdrhistogram.NewHistogramLogWriter(out)
	w.SetBaseTime(l.start / 1e6)
	sparse := map[int64]*hdrhistogram.PackedHistogram{}
	for start, acc := range l.absorbed {
		p := packedOf(acc.cur)
		start = max(start, l.written)
		if d := rest[start]; d != nil {
			p.MergeInto(d)
		} else if q := sparse[start]; q != nil {
			q.Merge(p)
		} else {
			sparse[start] = p
		}
	}
	keys := mapKeys(rest)
	for k := range sparse {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		var h intervalHistogram = sparse[k]
		if d := rest[k]; d != nil {
			h = d
		}
		if err := writeInterval(w, l.tag, k, h); err != nil {
			return nil, fmt.Errorf("%s interval log: %w", l.tag, err)
		}
	}
	return out.Bytes(), nil
}

// BucketCount is one populated bucket of an interval histogram: the
// bucket's value (as PackedHistogram.ForEachBucket reports it) and count.
type BucketCount struct{ Value, Count int64 }

// bucketsOf lists h's populated buckets, by value.
func bucketsOf(h *hdrhistogram.Histogram) []BucketCount {
	p := hdrhistogram.NewPacked(histLowestUS, histHighestUS, histSigDigits)
	p.MergeFrom(h)
	return bucketsOfPacked(p)
}

func bucketsOfPacked(p *hdrhistogram.PackedHistogram) []BucketCount {
	out := make([]BucketCount, 0, p.Populated())
	for v, c := range p.ForEachBucket {
		out = append(out, BucketCount{v, c})
	}
	return out
}

// packedOf builds an interval histogram from its buckets.
func packedOf(bs []BucketCount) *hdrhistogram.PackedHistogram {
	p := hdrhistogram.NewPacked(histLowestUS, histHighestUS, histSigDigits)
	for _, b := range bs {
		_ = p.RecordValues(b.Value, b.Count) // in range: ShardExport.Check
	}
	return p
}

// bucketAccum sums bucket lists: cur is the sum so far, spare the buffer
// the next sum is written to (the two swap, so adding a list allocates
// only while the buffers grow).
type bucketAccum struct{ cur, spare []BucketCount }

func (a *bucketAccum) add(b []BucketCount) {
	a.cur, a.spare = mergeBuckets(a.spare[:0], a.cur, b), a.cur
}

// mergeBuckets appends to out the sum of two bucket lists sorted by value.
func mergeBuckets(out, a, b []BucketCount) []BucketCount {
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0].Value < b[0].Value:
			out, a = append(out, a[0]), a[1:]
		case a[0].Value > b[0].Value:
			out, b = append(out, b[0]), b[1:]
		default:
			out = append(out, BucketCount{a[0].Value, a[0].Count + b[0].Count})
			a, b = a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// absorb adds other recorders' intervals (their starts on this log's grid).
func (l *IntervalLog) absorb(ivs []IntervalExport) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.absorbed == nil {
		l.absorbed = map[int64]*bucketAccum{}
	}
	for _, iv := range ivs {
		acc := l.absorbed[iv.Start]
		if acc == nil {
			acc = &bucketAccum{}
			l.absorbed[iv.Start] = acc
		}
		acc.add(iv.Buckets)
	}
}

// export lists the log's intervals, with the writers' unfinished pieces
// merged in, each as its populated buckets: those written already read
// back from the log's text, the rest from the pending histograms. A log that absorbed intervals is not exported (Recorder.Export
// refuses such a recorder).
func (l *IntervalLog) export(pieces []*intervalPiece) ([]IntervalExport, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return nil, fmt.Errorf("%s interval log: %w", l.tag, l.err)
	}
	out, err := l.writtenIntervals()
	if err != nil {
		return nil, err
	}
	rest := l.unwrittenLocked(pieces)
	keys := mapKeys(rest)
	slices.Sort(keys)
	for _, k := range keys {
		if rest[k].TotalCount() > 0 {
			out = append(out, IntervalExport{Start: k, Buckets: bucketsOf(rest[k])})
		}
	}
	return out, nil
}

// writtenIntervals reads the intervals already written to the log's text
// back: each interval line is "Tag=<tag>,<start s>,<length s>,<max>,<V2
// payload>", its start in seconds from the log's start (whole seconds).
func (l *IntervalLog) writtenIntervals() ([]IntervalExport, error) {
	var out []IntervalExport
	prefix := []byte("Tag=" + l.tag + ",")
	text, err := l.textLocked()
	if err != nil {
		return nil, fmt.Errorf("%s interval log: %w", l.tag, err)
	}
	for line := range bytes.Lines(text) {
		if !bytes.HasPrefix(line, prefix) {
			continue
		}
		f := bytes.Split(bytes.TrimSpace(line[len(prefix):]), []byte(","))
		if len(f) != 4 {
			return nil, fmt.Errorf("%s interval log: line %q: want 4 fields after the tag", l.tag, line)
		}
		sec, err := strconv.ParseFloat(string(f[0]), 64)
		if err != nil || sec < 0 || sec != math.Round(sec) {
			return nil, fmt.Errorf("%s interval log: line %q: start %q is not a whole second", l.tag, line, f[0])
		}
		p, err := hdrhistogram.DecodePacked(f[3])
		if err != nil {
			return nil, fmt.Errorf("%s interval log: line %q: %w", l.tag, line, err)
		}
		out = append(out, IntervalExport{Start: l.start + int64(sec)*intervalNs, Buckets: bucketsOfPacked(p)})
	}
	return out, nil
}
