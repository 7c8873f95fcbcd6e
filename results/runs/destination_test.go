package runs

import (
	"math"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results"
)

func TestDestinationCapacity(t *testing.T) {
	for _, c := range []struct {
		name                               string
		active, workers, pool, connections int
		serviceMs, want                    float64
	}{
		{"pool below workers: the pool's statements at once", 4, 8, 2, 0, 4, 4 * 2 * 1000 / 4.0},
		{"pool above workers: a statement has a worker waiting", 4, 2, 8, 0, 4, 4 * 2 * 1000 / 4.0},
		{"batches: the service time is per record", 3, 16, 1, 0, 0.5, 3 * 1 * 1000 / 0.5},
		{"no write", 4, 2, 2, 0, 0, 0},
		{"a cap above the members' pools: the pools", 4, 4, 1, 8, 2, 4 * 1 * 1000 / 2.0},
		{"a shared cap: 8 members wait for 4 connections", 8, 4, 1, 4, 2, 4 * 1000 / 2.0},
	} {
		if got := DestinationCapacity(c.active, c.workers, c.pool, c.connections, c.serviceMs, 1); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// Members idle between batches: 4 members' own connections busy 80 %
	// of the time give 3.2 statements at once; 8 such members under a cap
	// of 4 fill each other's gaps (6.4 wanted, 4 at once).
	if got, want := DestinationCapacity(4, 4, 1, 4, 2, 0.8), 3.2*1000/2; math.Abs(got-want) > 1e-9 {
		t.Errorf("4 members at duty 0.8: %v, want %v", got, want)
	}
	if got, want := DestinationCapacity(8, 4, 1, 4, 2, 0.8), 4*1000/2.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("8 members at duty 0.8 on 4 connections: %v, want %v", got, want)
	}
}

// TestDestinationDuty: a batch of 98 records at 0.75 ms a statement keeps
// one connection busy 73.5 ms, then the member waits 14.5 ms for its next
// batch and processes 1 ms before it writes: 73.5 ÷ 89 = 0.826 (the Java
// share consumer's layout measured on 2026-12-07). Two connections halve
// the busy time; no gap measured is 1.
func TestDestinationDuty(t *testing.T) {
	for _, c := range []struct {
		name                      string
		perPoll, serviceMs        float64
		pool, workers             int
		gapMs, processingMs, want float64
	}{
		{"one connection", 98, 0.75, 1, 4, 14.5, 1, 73.5 / 89},
		{"two connections", 98, 0.75, 2, 4, 14.5, 1, 36.75 / 52.25},
		{"the workers cap the pool", 98, 0.75, 8, 1, 14.5, 1, 73.5 / 89},
		{"no gap measured", 98, 0.75, 1, 4, 0, 1, 1},
		{"no poll measured", 0, 0.75, 1, 4, 14.5, 1, 1},
	} {
		if got := DestinationDuty(c.perPoll, c.serviceMs, c.pool, c.workers, c.gapMs, c.processingMs); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCeilingWithDestination(t *testing.T) {
	base := CeilingInput{Share: true, Members: 8, Workers: 4, Partitions: 2, ProcessingMs: 2, ProducerRate: 100_000}
	for _, c := range []struct {
		name               string
		writeMs, serviceMs float64
		pool, batch        int
		bound              Bound
		ceiling            float64
	}{
		// 8 × 4 × 1000 / 2 = 16,000 without a destination.
		{"no destination", 0, 0, 0, 1, BoundWorkers, 16_000},
		// workers: 8 × 4 × 1000 / (2 + 0.25) = 14,222 (the statement's time, not the
		// write's 0.75 ms wait for a connection); destination 8 × 1 × 1000 / 0.25 = 32,000:
		// the workers bind, processing dominating.
		{"a quick write: the workers", 1, 0.25, 1, 1, BoundWorkers, 14_222},
		// with batches of 10 a record's write waits for its batch: the workers count the
		// whole write, 8 × 4 × 1000 / (2 + 1) = 10,667.
		{"batches: the workers count the batch's wait", 1, 0.25, 1, 10, BoundWorkers, 10_667},
		// workers: 8 × 4 × 1000 / (2 + 1.6) = 8,889; destination 8 × 1 × 1000 / 1.6 = 5,000.
		{"a small pool binds", 1.6, 1.6, 1, 1, BoundDestination, 5_000},
		// the writes wait 4 ms for 8 connections at 1 ms a statement: workers
		// 8 × 4 × 1000 / (2 + 1) = 10,667 without the wait (4,571 with it, the rate the
		// destination let through); destination 8 × 1 × 1000 / 1 = 8,000 binds.
		{"a saturated destination: its wait is not the workers'", 5, 1, 1, 1, BoundDestination, 8_000},
		// workers: 8 × 4 × 1000 / (2 + 8) = 3,200; destination 8 × 4 × 1000 / 8 = 4,000;
		// the write dominates a worker's time: named destination.
		{"a slow write: the workers wait on the destination", 8, 8, 4, 1, BoundDestination, 3_200},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := base
			in.DestinationWriteMs, in.DestinationServiceMs, in.DestinationPool, in.DestinationBatchSize = c.writeMs, c.serviceMs, c.pool, c.batch
			got := ComputeCeiling(in)
			if got.Bound != c.bound || math.Abs(got.RecordsPerSec-c.ceiling) > 1 {
				t.Errorf("bound %s at %.0f, want %s at %.0f", got.Bound, got.RecordsPerSec, c.bound, c.ceiling)
			}
			if c.bound == BoundDestination {
				j := got.Judge(0.9*c.ceiling, Saturation{HandlerIdleMin: -1})
				if j.Held != BoundDestination || !strings.Contains(j.Evidence, "statements at once") || j.Move == "" {
					t.Errorf("judged %s (%s; %s)", j.Held, j.Evidence, j.Move)
				}
			}
		})
	}
}

func TestDestinationFlags(t *testing.T) {
	ok := &results.DestinationAudit{Writes: 10, TableWrites: 10, Rows: 9, Records: 9, DuplicatesAbsorbed: 1}
	if f := DestinationFlags(&Destination{DestinationAudit: ok}); len(f) != 0 {
		t.Errorf("a reconciled table flagged: %v", f[0].Message)
	}
	if f := DestinationFlags(nil); f != nil {
		t.Error("no destination flagged")
	}
	unread := DestinationFlags(&Destination{})
	if len(unread) != 1 || unread[0].Code != CodeDestinationUnreconciled {
		t.Errorf("an unread table: %v", unread)
	}
	bad := *ok
	bad.WriteErrors, bad.Missing = 2, 1
	f := DestinationFlags(&Destination{DestinationAudit: &bad})
	if len(f) != 2 || f[0].Code != CodeDestinationWriteErrors || f[1].Code != CodeDestinationUnreconciled ||
		!strings.Contains(f[1].Message, "1 missing") || !strings.Contains(f[0].Message, "2 writes to the destination failed") {
		t.Errorf("flags %+v", f)
	}
}

// The ceiling records the duty only where it lowered the capacity: 4
// members on their 4 connections, each busy 73.5 of every 89 ms (98
// records at 0.75 ms, a 14.5 ms gap, 1 ms of processing), have 3.30
// statements at once, 4,404 records/s; 8 such members fill each other's
// gaps and keep the 4 connections' 5,333.
func TestCeilingRecordsTheDutyWhereItBinds(t *testing.T) {
	in := CeilingInput{Share: true, Members: 4, Workers: 4, Partitions: 4, ProcessingMs: 1, ProducerRate: math.Inf(1),
		DestinationWriteMs: 2, DestinationServiceMs: 0.75, DestinationPool: 1, DestinationConnections: 4, DestinationBatchSize: 1,
		RecordsPerPoll: 98, PollGapMs: 14.5}
	c := ComputeCeiling(in)
	if d := 73.5 / 89; math.Abs(c.DestinationDuty-d) > 1e-9 || math.Abs(c.Destination-4*d*1000/0.75) > 1e-6 || c.Bound != BoundDestination {
		t.Errorf("4 members: duty %v, destination %v, bound %s; want %v, %v, destination", c.DestinationDuty, c.Destination, c.Bound, d, 4*d*1000/0.75)
	}
	if j := c.Judge(0.9*c.RecordsPerSec, Saturation{HandlerIdleMin: -1}); !strings.Contains(j.Evidence, "busy 83%") {
		t.Errorf("4 members: evidence %q, want the duty named", j.Evidence)
	}
	in.Members = 8
	c = ComputeCeiling(in)
	if c.DestinationDuty != 0 || math.Abs(c.Destination-4*1000/0.75) > 1e-6 {
		t.Errorf("8 members on 4 connections: duty %v, destination %v; want none, %v", c.DestinationDuty, c.Destination, 4*1000/0.75)
	}
	if j := c.Judge(0.9*c.RecordsPerSec, Saturation{HandlerIdleMin: -1}); strings.Contains(j.Evidence, "busy") {
		t.Errorf("8 members: evidence %q names a duty that did not bind", j.Evidence)
	}
}
