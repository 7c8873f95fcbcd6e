package campaign

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
)

// Dead-letter queues (KIP-1191, Kafka 4.4+): a share run with a
// dead_letter: block gets a DLQ topic of its own, created before the group
// settings name it; after the drain the harness reads it back from the
// start and reconciles it with the ledger (results.ReconcileDeadLetters).

// dlqTopicConfig is the topic setting without which the broker refuses to
// write a share group's DLQ ("DLQ is not enabled on configured DLQ topic";
// the records are archived regardless), seen on 4.4.0.
const dlqTopicConfig = "errors.deadletterqueue.group.enable"

// dlqSettle bounds the wait for the DLQ to hold the archived records after
// the drain, and dlqQuiet is how long its end offset must stay put before
// it is read when it holds fewer.
const (
	dlqSettle = 15 * time.Second
	dlqQuiet  = 2 * time.Second
)

// dlqTopic is the run's DLQ topic, or "" for a run without one.
func (s *runSetup) dlqTopic() string {
	if !s.share || s.spec.DeadLetter == nil {
		return ""
	}
	return s.spec.DeadLetter.RunTopic(s.topic)
}

// createDeadLetterTopic creates the run's DLQ topic (one partition) with
// errors.deadletterqueue.group.enable=true and waits for its leader.
func (s *runSetup) createDeadLetterTopic(ctx context.Context) error {
	t := s.dlqTopic()
	if t == "" {
		return nil
	}
	cfg := map[string]*string{dlqTopicConfig: kmsg.StringPtr("true")}
	for k, v := range topicConfigs {
		cfg[k] = kmsg.StringPtr(v)
	}
	resp, err := s.adm.adm.CreateTopic(ctx, 1, int16(min(s.cl.Nodes(), 3)), cfg, t)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		return fmt.Errorf("dead_letter: topic %q: create: %w", t, explainDenied(err, "CREATE", "topic", t))
	}
	return poll(ctx, 30*time.Second, func() (bool, error) {
		md, err := s.adm.adm.Metadata(ctx, t)
		if err != nil {
			return false, nil
		}
		tp, ok := md.Topics[t]
		return ok && tp.Err == nil && len(tp.Partitions) == 1 && tp.Partitions[0].Leader >= 0, nil
	}, fmt.Sprintf("dead_letter: topic %q: no leader", t))
}

// deleteDeadLetterTopic deletes the run's DLQ topic, if any.
func (s *runSetup) deleteDeadLetterTopic(ctx context.Context) {
	if t := s.dlqTopic(); t != "" {
		s.dropTopic(ctx, t)
	}
}

// dlqGroupTopic puts the run's DLQ topic in the group settings in place of
// the block's base name.
func (s *runSetup) dlqGroupTopic(want map[string]string) {
	if t := s.dlqTopic(); t != "" {
		want[scenarios.GroupKeyDLQTopic] = t
	}
}

// reconcileDeadLetters reads the run's DLQ back once the consumers have
// stopped and reconciles it with the ledger; the result goes into the
// run's audit (measured). A read that fails is one of the run's errors.
func (r *run) reconcileDeadLetters(ctx context.Context) {
	s := r.setup
	t := s.dlqTopic()
	if t == "" {
		return
	}
	ledger := r.rc.rec.Ledger
	archived := ledger.Audit().Archived
	recs, err := s.readDeadLetters(ctx, t, archived)
	if err != nil {
		r.fleet.errs = append(r.fleet.errs, fmt.Sprintf("dead_letter: read back %s: %v", t, err))
		fmt.Fprintf(s.log, "  %s: dead_letter: read back %s: %v\n", s.id, t, err)
		return
	}
	d := results.ReconcileDeadLetters(ledger, archived, results.RunTag(s.id+"-"+s.suffix), s.topic, recs, s.spec.DeadLetter.CopyRecord)
	s.dlq = &d
	fmt.Fprintf(s.log, "  %s: dead_letter: %d DLQ records (matched by %s): %d of %d archived dead-lettered, %d missing, %d duplicates, %d unmatched\n",
		s.id, *d.DeadLetterRecords, d.DeadLetterMatchedBy, *d.DeadLettered, archived, *d.DeadLetterMissing, *d.DeadLetterDuplicates, *d.DeadLetterUnmatched)
}

// readDeadLetters waits (at most dlqSettle) until the DLQ's end offset
// reaches want records or stays put for dlqQuiet, then reads the topic from
// the start up to that offset.
func (s *runSetup) readDeadLetters(ctx context.Context, topic string, want int64) ([]results.DeadLetterRecord, error) {
	deadline := time.Now().Add(dlqSettle)
	var end int64 = -1
	stableSince := time.Now()
	for {
		offs, err := s.adm.adm.ListEndOffsets(ctx, topic)
		if err != nil {
			return nil, fmt.Errorf("end offset: %w", err)
		}
		o, ok := offs.Lookup(topic, 0)
		if !ok || o.Err != nil {
			return nil, fmt.Errorf("end offset: %v", o.Err)
		}
		if o.Offset != end {
			end, stableSince = o.Offset, time.Now()
		}
		if end >= want || time.Since(stableSince) >= dlqQuiet || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	if end == 0 {
		return nil, nil
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(s.cl.Bootstrap()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, s.conn.opts...)...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	rctx, cancel := context.WithTimeout(ctx, dlqSettle)
	defer cancel()
	var out []results.DeadLetterRecord
	for {
		fs := cl.PollFetches(rctx)
		if err := rctx.Err(); err != nil {
			return out, fmt.Errorf("read %d of %d records: %w", len(out), end, err)
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) {
			if !errors.Is(err, context.Canceled) {
				ferr = err
			}
		})
		if ferr != nil {
			return out, ferr
		}
		done := false
		fs.EachRecord(func(rec *kgo.Record) {
			if rec.Offset >= end {
				done = true
				return
			}
			h := make(map[string]string, len(rec.Headers))
			for _, x := range rec.Headers {
				h[x.Key] = string(x.Value)
			}
			out = append(out, results.DeadLetterRecord{Value: rec.Value, Headers: h})
			done = done || rec.Offset == end-1
		})
		if done {
			return out, nil
		}
	}
}
