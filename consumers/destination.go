package consumers

import (
	"context"
	"fmt"
	"time"

	"github.com/sharebench/sharebench/results"
)

// RecordWriter writes completed records to the run's destination (a
// destination.Writer: a member's own connection pool). Write returns once
// the record is durable in the destination, or failed, with the record's
// share of the time its statement held a connection (the statement's time
// ÷ its records); the member's workers call it at once.
type RecordWriter interface {
	Write(ctx context.Context, r results.DestinationRecord) (conn time.Duration, err error)
	Close()
}

// destinationWriteTimeout bounds one record's write. Writes run under a
// context that shutdown does not cancel: a write the member started is
// either counted as done or as failed, never left unknown, so the table's
// write counts match the members' (results.ReconcileDestination).
const destinationWriteTimeout = 30 * time.Second

// openDestination opens the member's writer (Config.Destination), if any.
func (m *member) openDestination(ctx context.Context) error {
	if m.c.Destination == nil {
		return nil
	}
	w, err := m.c.Destination(ctx)
	if err != nil {
		return fmt.Errorf("member %d: %w", m.id, err)
	}
	m.dest = w
	return nil
}

// closeDestination closes the member's writer once its workers are done.
func (m *member) closeDestination() {
	if m.dest != nil {
		m.dest.Close()
	}
}

// write writes a processed, accepted record to the destination, after
// processing and before its acknowledgement or commit: the write's time is
// part of the record's hold time. It reports false when the write failed
// (counted; the caller hands the record back: share RELEASE, consumer
// group retry in place) or the member crashed before it could start.
func (m *member) write(ctx context.Context, h *handled) bool {
	if m.dest == nil || h.outcome != accepted || h.foreign {
		return true
	}
	if m.crashed.Load() {
		return false
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), destinationWriteTimeout)
	start := m.rec.Clock.Now()
	conn, err := m.dest.Write(wctx, results.DestinationRecord{Producer: h.st.Producer, Seq: h.st.Seq, Partition: h.r.Partition, Offset: h.r.Offset})
	cancel()
	m.memberRec.RecordDestinationWrite(m.rec.Clock.Now()-start, int64(conn), err != nil)
	return err == nil
}
