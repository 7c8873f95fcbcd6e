//go:build integration

package campaign

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

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
