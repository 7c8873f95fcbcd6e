//go:build integration

package campaign

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// TestDestinationRunnerClientsOnKafka runs the small client workload
// (javaSpec) on the Java, the Spring and the librdkafka runner, a consumer group and a
// share group each, writing every completed record into an embedded
// PostgreSQL through 2 connections the 4 members share (1 each at most):
// the runners' write stage reports the same figures a franz-go run does,
// and the table reconciles unchanged: one row per completed record, none
// missing or foreign, the table's write count the members', every write
// timed inside the hold time.
func TestDestinationRunnerClientsOnKafka(t *testing.T) {
	needPostgres(t)
	for _, client := range []string{"java", "spring", "librdkafka"} {
		for _, ctype := range []string{"consumer", "share"} {
			t.Run(client+"-"+ctype, func(t *testing.T) {
				check := consumers.CheckJavaClient
				if client == "librdkafka" {
					check = consumers.CheckLibrdkafkaClient
				}
				if err := check(); err != nil {
					t.Skip(err)
				}
				s := javaSpec(ctype, client)
				if ctype == "share" {
					s.AckMode = vocab.AckExplicit
				}
				s.Destination = &scenarios.Destination{Kind: "postgres", Key: "offset", Idempotent: true, BatchSize: 1,
					BatchWait: 5 * time.Millisecond, Pool: 1, Connections: 2}
				if err := s.Validate(); err != nil {
					t.Fatal(err)
				}
				r := runMeasured(t, s, "dest-"+client+"-"+ctype).Record
				d := r.Destination
				if d == nil || d.DestinationAudit == nil {
					t.Fatalf("no destination read-back: %+v (errors %v)", d, r.Errors)
				}
				a := *d.DestinationAudit
				t.Logf("destination: %+v; write ms %+v; ceiling %s %.0f (destination %.0f); completed %.1f/s",
					a, d.WriteMs, r.Ceiling.Bound, r.Ceiling.RecordsPerSec, r.Ceiling.Destination, r.Throughput.CompletedPerSec)
				completed := r.Audit.CompletedOnce + r.Audit.Duplicates
				if completed == 0 || a.Missing != 0 || a.Foreign != 0 || a.WrittenNotCompleted != 0 || a.Records != completed {
					t.Errorf("table %+v: want a row for each of the %d completed records, none missing or foreign", a, completed)
				}
				if a.Writes == 0 || a.WriteErrors != 0 || a.TableWrites != a.Writes || a.DuplicatesAbsorbed != a.Writes-a.Rows {
					t.Errorf("writes %d (%d failed), table writes %d, rows %d, absorbed %d: want the table's count the members'",
						a.Writes, a.WriteErrors, a.TableWrites, a.Rows, a.DuplicatesAbsorbed)
				}
				if d.WriteMs.Count != a.Writes+a.WriteErrors || d.WriteMs.Mean <= 0 || r.Latency.HoldMs.Mean < 5+d.WriteMs.Mean*0.5 {
					t.Errorf("write ms %+v, hold mean %.1f ms: want every write timed, inside the hold time", d.WriteMs, r.Latency.HoldMs.Mean)
				}
				if r.Ceiling.Destination <= 0 {
					t.Errorf("ceiling.destination %.1f: want the destination's capacity from the runners' write figures", r.Ceiling.Destination)
				}
				for _, f := range r.Validity.Flags {
					if f.Code == runs.CodeDestinationUnreconciled || f.Code == runs.CodeDestinationWriteErrors {
						t.Errorf("flagged %s: %s", f.Code, f.Message)
					}
				}
			})
		}
	}
}
