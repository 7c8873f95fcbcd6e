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
		if got := DestinationCapacity(c.active, c.workers, c.pool, c.connections, c.serviceMs); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCeilingWithDestination(t *testing.T) {
	base := CeilingInput{Share: true, Members: 8, Workers: 4, Partitions: 2, ProcessingMs: 2, ProducerRate: 100_000}
	for _, c := range []struct {
		name               string
		writeMs, serviceMs float64
		pool               int
		bound              Bound
		ceiling            float64
	}{
		// 8 × 4 × 1000 / 2 = 16,000 without a destination.
		{"no destination", 0, 0, 0, BoundWorkers, 16_000},
		// workers: 8 × 4 × 1000 / (2 + 1) = 10,667; destination 8 × 1 × 1000 / 0.25 = 32,000:
		// the workers bind, processing dominating.
		{"a quick write: the workers", 1, 0.25, 1, BoundWorkers, 10_667},
		// workers: 8 × 4 × 1000 / (2 + 1.6) = 8,889; destination 8 × 1 × 1000 / 1.6 = 5,000.
		{"a small pool binds", 1.6, 1.6, 1, BoundDestination, 5_000},
		// workers: 8 × 4 × 1000 / (2 + 8) = 3,200; destination 8 × 4 × 1000 / 8 = 4,000;
		// the write dominates a worker's time: named destination.
		{"a slow write: the workers wait on the destination", 8, 8, 4, BoundDestination, 3_200},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := base
			in.DestinationWriteMs, in.DestinationServiceMs, in.DestinationPool = c.writeMs, c.serviceMs, c.pool
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
