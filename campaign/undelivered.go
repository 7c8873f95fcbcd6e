package campaign

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/results"
)

// Lost or undelivered: after the drain, a record no consumer was handed is
// either still deliverable (the drain stopped first: undelivered) or gone
// for good (lost). The broker decides which: per partition, the first
// offset the group would still deliver is the larger of the log start
// offset (records below it are deleted) and the group's position (a
// consumer group's committed offset, a share group's share-partition start
// offset; with no position the group starts at the log start, as the
// harness sets both groups to start at the earliest offset). The harness
// reads the run's records from there to the end offset; a never-delivered
// record it finds is marked undelivered (results.Ledger.StillDeliverable),
// every other never-delivered record stays lost.

// deliveryCheckTimeout bounds the read-back.
const deliveryCheckTimeout = 60 * time.Second

// partitionSpan is one partition's deliverable span at the end of the
// drain: [From, End).
type partitionSpan struct {
	Partition          int32
	LogStart, GroupPos int64 // GroupPos -1: the group holds no position
	From, End          int64
}

// deliverableFrom is the first offset a group would still deliver: the
// log start, or the group's position when it holds one past the start.
func deliverableFrom(logStart, groupPos int64) int64 {
	return max(logStart, groupPos)
}

// checkUndelivered splits the run's never-delivered records into lost and
// undelivered by reading back what Kafka can still deliver. A check that
// fails leaves them all lost (the gate stays strict) and is one of the
// run's errors.
func (r *run) checkUndelivered(ctx context.Context) {
	s, ledger := r.setup, r.rc.rec.Ledger
	never := ledger.Audit().NeverDelivered()
	if never == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, deliveryCheckTimeout)
	defer cancel()
	spans, err := s.deliverableSpans(ctx)
	var found int64
	if err == nil {
		found, err = s.readDeliverable(ctx, spans, ledger)
	}
	if err != nil {
		msg := fmt.Sprintf("audit: %d records never delivered; could not ask the broker which are still deliverable (%v): all are counted lost", never, err)
		r.fleet.errs = append(r.fleet.errs, msg)
		fmt.Fprintf(s.log, "  %s: %s\n", s.id, msg)
		return
	}
	a := ledger.Audit()
	fmt.Fprintf(s.log, "  %s: audit: %d records never delivered: %d still deliverable when the drain stopped (undelivered), %d no longer deliverable (lost); read back %d records from %s\n",
		s.id, never, a.Undelivered, a.Lost, found, describeSpans(spans))
}

// deliverableSpans asks the broker for each partition's log start, end
// and the group's position.
func (s *runSetup) deliverableSpans(ctx context.Context) ([]partitionSpan, error) {
	starts, err := s.adm.adm.ListStartOffsets(ctx, s.topic)
	if err != nil {
		return nil, fmt.Errorf("topic %q: log start offsets: %w", s.topic, err)
	}
	ends, err := s.adm.adm.ListEndOffsets(ctx, s.topic)
	if err != nil {
		return nil, fmt.Errorf("topic %q: end offsets: %w", s.topic, err)
	}
	pos, err := s.groupPositions(ctx)
	if err != nil {
		return nil, err
	}
	var out []partitionSpan
	for p, so := range starts[s.topic] {
		eo, ok := ends.Lookup(s.topic, p)
		if so.Err != nil || !ok || eo.Err != nil {
			return nil, fmt.Errorf("topic %q partition %d: offsets: start %v, end %v", s.topic, p, so.Err, eo.Err)
		}
		gp, ok := pos[p]
		if !ok {
			gp = -1
		}
		out = append(out, partitionSpan{Partition: p, LogStart: so.Offset, GroupPos: gp,
			From: deliverableFrom(so.Offset, gp), End: eo.Offset})
	}
	if len(out) != s.spec.Partitions {
		return nil, fmt.Errorf("topic %q: offsets of %d partitions, want %d", s.topic, len(out), s.spec.Partitions)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Partition < out[j].Partition })
	return out, nil
}

// groupPositions are the group's positions on the run's topic: committed
// offsets (consumer group) or share-partition start offsets (share group).
// A partition without one is absent.
func (s *runSetup) groupPositions(ctx context.Context) (map[int32]int64, error) {
	out := map[int32]int64{}
	if s.share {
		d, err := s.adm.adm.DescribeShareGroupOffsets(ctx, s.group)
		if err != nil {
			return nil, fmt.Errorf("share group %q: start offsets: %w", s.group, err)
		}
		g, ok := d[s.group]
		if !ok || g.Err != nil {
			return nil, fmt.Errorf("share group %q: start offsets: %v", s.group, g.Err)
		}
		for p, o := range g.Offsets[s.topic] {
			if o.Err == nil && o.StartOffset >= 0 {
				out[p] = o.StartOffset
			}
		}
		return out, nil
	}
	offs, err := s.adm.adm.FetchOffsets(ctx, s.group)
	if err != nil {
		return nil, fmt.Errorf("consumer group %q: committed offsets: %w", s.group, err)
	}
	for p, o := range offs[s.topic] {
		if o.Err == nil && o.At >= 0 {
			out[p] = o.At
		}
	}
	return out, nil
}

// readDeliverable reads every partition's span and marks the run's records
// in it still deliverable; it returns how many of the run's records it read.
func (s *runSetup) readDeliverable(ctx context.Context, spans []partitionSpan, ledger *results.Ledger) (int64, error) {
	want := map[int32]kgo.Offset{}
	left := map[int32]int64{} // partition → end offset still to reach
	for _, sp := range spans {
		if sp.From < sp.End {
			want[sp.Partition] = kgo.NewOffset().At(sp.From)
			left[sp.Partition] = sp.End
		}
	}
	if len(want) == 0 {
		return 0, nil
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(s.cl.Bootstrap()...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{s.topic: want})}, s.conn.opts...)...)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	tag := results.RunTag(s.id + "-" + s.suffix)
	var n int64
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return n, fmt.Errorf("read back: %d partitions unfinished: %w", len(left), err)
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) {
			if !errors.Is(err, context.Canceled) {
				ferr = err
			}
		})
		if ferr != nil {
			return n, fmt.Errorf("read back: %w", ferr)
		}
		fs.EachRecord(func(rec *kgo.Record) {
			end, ok := left[rec.Partition]
			if !ok || rec.Offset >= end {
				return
			}
			if st, err := results.DecodeStamp(rec.Value); err == nil && st.Run == tag {
				ledger.StillDeliverable(st.Producer, st.Seq)
				n++
			}
			if rec.Offset >= end-1 {
				delete(left, rec.Partition)
			}
		})
	}
	return n, nil
}

// describeSpans is the console's evidence: per partition, the offsets the
// read-back started from and stopped at, and why it started there.
func describeSpans(spans []partitionSpan) string {
	var b strings.Builder
	for i, sp := range spans {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "p%d [%d, %d) (log start %d, group position %d)", sp.Partition, sp.From, sp.End, sp.LogStart, sp.GroupPos)
	}
	return b.String()
}
