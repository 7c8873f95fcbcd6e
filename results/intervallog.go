package results

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// IntervalLog records latencies into one-second interval histograms and
// encodes each finished interval into the HdrHistogram log format (.hlog),
// the input of HdrHistogram's HistogramLogProcessor and plotters. Every
// observation of the run lands in the interval in which it happened (not
// only the measurement window), so the log shows warm-up and drain too.
type IntervalLog struct {
	mu       sync.Mutex
	tag      string
	start    int64 // Unix ns of interval 0
	curStart int64 // Unix ns of the current interval
	cur      *hdrhistogram.Histogram
	buf      bytes.Buffer
	w        *hdrhistogram.HistogramLogWriter
	err      error
}

const intervalNs = int64(1e9)

// NewIntervalLog starts a log whose intervals begin at startNs.
func NewIntervalLog(tag string, startNs int64) *IntervalLog {
	l := &IntervalLog{tag: tag, start: startNs, curStart: startNs, cur: NewLatencyHistogram()}
	l.w = hdrhistogram.NewHistogramLogWriter(&l.buf)
	l.w.SetBaseTime(startNs / 1e6)
	l.err = firstErr(
		l.w.OutputLogFormatVersion(),
		l.w.OutputComment(fmt.Sprintf("sharebench %s latency in microseconds, 1 s intervals", tag)),
		l.w.OutputStartTime(startNs/1e6),
		l.w.OutputBaseTime(startNs/1e6),
		l.w.OutputLegend(),
	)
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

// Record adds a latency of valueNs observed at nowNs.
func (l *IntervalLog) Record(nowNs, valueNs int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if nowNs >= l.curStart+intervalNs {
		l.flushLocked()
		l.curStart += (nowNs - l.curStart) / intervalNs * intervalNs
	}
	RecordNanos(l.cur, valueNs)
}

// flushLocked writes the current interval if it holds anything.
func (l *IntervalLog) flushLocked() {
	if l.cur.TotalCount() == 0 || l.err != nil {
		return
	}
	l.cur.SetStartTimeMs(l.curStart / 1e6)
	l.cur.SetEndTimeMs((l.curStart + intervalNs) / 1e6)
	l.cur.SetTag(l.tag)
	l.err = l.w.OutputIntervalHistogram(l.cur)
	l.cur.Reset()
}

// Bytes finishes the last interval and returns the whole log.
func (l *IntervalLog) Bytes() ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushLocked()
	if l.err != nil {
		return nil, fmt.Errorf("%s interval log: %w", l.tag, l.err)
	}
	return bytes.Clone(l.buf.Bytes()), nil
}
