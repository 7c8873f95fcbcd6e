//go:build integration

package campaign

import (
	"context"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// slowDrainSpec is a run whose one worker (3 s a record) cannot keep up
// with 200 records/s, so its 5 s drain times out with most records never
// handed to a worker.
func slowDrainSpec(ctype vocab.GroupType) scenarios.RunSpec {
	s := baseSpec()
	s.ConsumerType = ctype
	s.Partitions, s.Members, s.Workers, s.MaxPollRecords = 1, 1, 1, 1
	s.Rate = 200
	s.Processing.Time = 3 * time.Second
	s.Warmup, s.Duration, s.DrainTimeout = time.Second, 4*time.Second, 5*time.Second
	return s
}

// deleteRecordsWhenAt waits for the run's topic (sharebench-<id>-…) to
// hold at least n records, then deletes them all with DeleteRecords (what
// retention does) and returns the log start offset it set; 0 when ctx
// ends first.
func deleteRecordsWhenAt(ctx context.Context, t *testing.T, bootstrap []string, id string, n int64) int64 {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...))
	if err != nil {
		t.Error(err)
		return 0
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
		ts, err := adm.ListTopics(ctx)
		if err != nil {
			continue
		}
		for _, topic := range ts.Names() {
			if !strings.HasPrefix(topic, "sharebench-"+id+"-") || strings.Contains(topic, ".") {
				continue
			}
			ends, err := adm.ListEndOffsets(ctx, topic)
			o, ok := ends.Lookup(topic, 0)
			if err != nil || !ok || o.Err != nil || o.Offset < n {
				continue
			}
			to := kadm.Offsets{}
			to.AddOffset(topic, 0, o.Offset, -1)
			resp, err := adm.DeleteRecords(ctx, to)
			if err == nil {
				err = resp.Error()
			}
			if err != nil {
				t.Errorf("delete records of %s up to %d: %v", topic, o.Offset, err)
				return 0
			}
			t.Logf("deleted the records of %s below offset %d", topic, o.Offset)
			return o.Offset
		}
	}
	return 0
}

// A drain that times out leaves records Kafka still holds: the audit says
// undelivered, never lost, and the gate's message says the drain timed
// out. Records deleted before any consumer was handed them are lost, and
// at most as many as were deleted.
func TestUndeliveredAndLostOnKafka(t *testing.T) {
	cl := needKafka(t)
	for _, tc := range []struct {
		ctype  vocab.GroupType
		delete bool
	}{{"share", false}, {"consumer", true}, {"share", true}} {
		id := "words-" + string(tc.ctype)
		if tc.delete {
			id += "-deleted"
		}
		t.Run(id, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			deleted := make(chan int64, 1)
			if tc.delete {
				go func() { deleted <- deleteRecordsWhenAt(ctx, t, cl.Bootstrap(), id, 300) }()
			} else {
				deleted <- 0
			}
			m, err := RunOne(ctx, cl, slowDrainSpec(tc.ctype), id, testLog(t))
			if err != nil {
				t.Fatal(err)
			}
			del := <-deleted
			a := m.Record.Audit
			t.Logf("%s: audit %+v, deleted %d, errors %v", id, a, del, m.Record.Errors)
			if !a.Balanced || a.Categorized() != a.Produced {
				t.Errorf("audit must balance: %+v", a)
			}
			if !m.Record.Phases.DrainTimedOut || a.Undelivered == 0 {
				t.Errorf("want a timed-out drain with records undelivered: timed out %v, undelivered %d", m.Record.Phases.DrainTimedOut, a.Undelivered)
			}
			// At most a handful of records reached the one worker (3 s each).
			delivered := a.CompletedOnce + a.Duplicates + a.Archived + a.InFlight
			if !tc.delete {
				if a.Lost != 0 {
					t.Errorf("lost %d, want 0: nothing was deleted, Kafka still held every record", a.Lost)
				}
				if want := a.Produced - delivered; a.Undelivered != want {
					t.Errorf("undelivered %d, want produced − delivered = %d", a.Undelivered, want)
				}
			} else if del == 0 || a.Lost > del || a.Lost < del-delivered {
				t.Errorf("lost %d, want between deleted − delivered (%d − %d) and deleted", a.Lost, del, delivered)
			}
			problems := strings.Join(runs.Problems(m.Record, runs.DefaultDenyFlags), "\n")
			t.Logf("gate: %s", problems)
			if !strings.Contains(problems, "drain timed out") {
				t.Errorf("gate message does not say the drain timed out: %s", problems)
			}
			if strings.Contains(problems, "audit.lost") != tc.delete {
				t.Errorf("gate names audit.lost = %v, want %v: %s", !tc.delete, tc.delete, problems)
			}
		})
	}
}

// rogueMember joins the run's consumer group (found by the run id) once
// the harness's member has formed it, as a second member that commits
// every record it polls without processing it, on the partitions of its
// first assignment only (partitions it gets later, when the harness's
// member leaves at the end, it neither reads nor commits). It returns how
// many of the run's records it committed past; 0 when ctx ends first.
func rogueMember(ctx context.Context, t *testing.T, bootstrap []string, id string) int64 {
	adm, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...))
	if err != nil {
		t.Error(err)
		return 0
	}
	defer adm.Close()
	ka := kadm.NewClient(adm)
	var name string
	for ctx.Err() == nil && name == "" {
		time.Sleep(100 * time.Millisecond)
		gs, err := ka.DescribeGroups(ctx)
		if err != nil {
			continue
		}
		for _, g := range gs.Sorted() {
			if strings.HasPrefix(g.Group, "sharebench-"+id+"-") && g.State == "Stable" && len(g.Members) > 0 {
				name = g.Group
			}
		}
	}
	if name == "" {
		return 0
	}
	tag := results.RunTag(strings.TrimPrefix(name, "sharebench-"))
	var mu sync.Mutex // the assignment callback runs beside the poll loop
	var mine map[int32]bool
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...), kgo.ConsumerGroup(name), kgo.ConsumeTopics(name),
		kgo.Balancers(kgo.CooperativeStickyBalancer()), kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, as map[string][]int32) {
			mu.Lock()
			defer mu.Unlock()
			if mine == nil && len(as[name]) > 0 {
				mine = map[int32]bool{}
				for _, p := range as[name] {
					mine[p] = true
				}
				t.Logf("rogue member: assigned %v", as[name])
			}
		}))
	if err != nil {
		t.Error(err)
		return 0
	}
	defer cl.Close()
	var n int64
	for ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		commit := map[string]map[int32]kgo.EpochOffset{}
		mu.Lock()
		owned := maps.Clone(mine)
		mu.Unlock()
		fs.EachRecord(func(r *kgo.Record) {
			if !owned[r.Partition] {
				return
			}
			if st, err := results.DecodeStamp(r.Value); err == nil && st.Run == tag {
				n++
			}
			if commit[name] == nil {
				commit[name] = map[int32]kgo.EpochOffset{}
			}
			commit[name][r.Partition] = kgo.EpochOffset{Epoch: r.LeaderEpoch, Offset: r.Offset + 1}
		})
		if len(commit) > 0 {
			cl.CommitOffsetsSync(ctx, commit, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, _ *kmsg.OffsetCommitResponse, err error) {
				if err != nil && ctx.Err() == nil {
					t.Logf("rogue member: commit: %v", err)
				}
			})
		}
	}
	return n
}

// A consumer group that commits past records without processing them
// has lost them: a second member joins the run's group, takes one of its
// two partitions, and commits every record it polls. The audit counts
// those records lost (Kafka will not deliver them to the group again),
// between the rogue's count minus what the harness's worker was handed
// and the rogue's count; the rest of the never-delivered records sit past
// the harness member's position and are undelivered.
func TestCommittedPastIsLostOnKafka(t *testing.T) {
	cl := needKafka(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	const id = "words-committed-past"
	s := slowDrainSpec(vocab.ConsumerGroup)
	s.Partitions = 2
	s.GroupProtocol, s.Assignor = "classic", "cooperative-sticky"
	rogueCtx, stopRogue := context.WithCancel(ctx)
	rogue := make(chan int64, 1)
	go func() { rogue <- rogueMember(rogueCtx, t, cl.Bootstrap(), id) }()
	m, err := RunOne(ctx, cl, s, id, testLog(t))
	stopRogue()
	n := <-rogue
	if err != nil {
		t.Fatal(err)
	}
	a := m.Record.Audit
	delivered := a.CompletedOnce + a.Duplicates + a.Archived + a.InFlight
	t.Logf("audit %+v; the rogue member committed past %d of the run's records; errors %v", a, n, m.Record.Errors)
	if !a.Balanced || a.Categorized() != a.Produced {
		t.Errorf("audit must balance: %+v", a)
	}
	if n < 100 {
		t.Fatalf("the rogue member committed past %d records, want ≥ 100 for a test that can tell", n)
	}
	if a.Lost > n || a.Lost < n-delivered {
		t.Errorf("lost %d, want between committed past − delivered (%d − %d) and committed past", a.Lost, n, delivered)
	}
	if a.Undelivered == 0 {
		t.Errorf("undelivered 0: the harness member's partition still held records when the drain stopped")
	}
	if problems := strings.Join(runs.Problems(m.Record, runs.DefaultDenyFlags), "\n"); !strings.Contains(problems, "audit.lost") {
		t.Errorf("the gate does not name audit.lost: %s", problems)
	}
}
