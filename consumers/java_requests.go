package consumers

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/sharebench/sharebench/results"
)

// The Java runner's request counts and times (frameRequests): each member,
// as it stops, reads from its client's metrics how many requests it sent
// to each broker (kafka-clients' per-node request-total) and how long the
// fetch responses from it took (the per-node request-latency sensor, one
// sample over the client's life: RequestMetrics.java); the fleet adds them
// up into request timings of kinds that say what they are:
//
//   - JavaRequestsKind, JavaCoordinatorRequestsKind: every request on the
//     connection, whatever its API, counted and not timed
//     (results.RequestStat.Untimed);
//   - JavaFetchKind (consumer groups: Fetch responses) or
//     JavaShareFetchKind (share groups: ShareFetch and ShareAcknowledge
//     responses, which the share consumer times alike): successful
//     responses, timed from the request's creation to the response's
//     receipt in whole ms, with no empty count
//     (results.RequestStat.NoEmpty).

// javaRequestsVersion is the record version a requests frame carries in its
// flags byte: version 2 adds the fetch-response times (seq: responses timed,
// intended: their summed µs or -1 when unknown, aux: the largest µs);
// version 1 (counts only) is still read; a frame of another version is
// ignored (noted on stderr).
const (
	javaRequestsVersion   = 2
	javaRequestsVersionV1 = 1
)

// A requests frame's connection (its producer field).
const (
	javaConnData        = 0 // the client's connection to the broker
	javaConnCoordinator = 1 // its connection to the broker as group coordinator
)

// Request kinds of the Java runner's rows.
const (
	JavaRequestsKind            = "all (java client metrics)"
	JavaCoordinatorRequestsKind = "coordinator, all (java client metrics)"
	JavaFetchKind               = "Fetch responses (java client metrics)"
	JavaShareFetchKind          = "ShareFetch+ShareAcknowledge responses (java client metrics)"
)

// javaRequestsMaxKeys bounds the brokers × connections a fleet records.
const javaRequestsMaxKeys = 1024

// addRequests adds one requests frame to the fleet's request counts.
func (j *javaFleet) addRequests(f javaFrame) {
	if f.Flags != javaRequestsVersion && f.Flags != javaRequestsVersionV1 {
		fmt.Fprintf(j.stderr, "\nsharebench: %s: requests frame of version %d, want %d: ignored\n", j.name, f.Flags, javaRequestsVersion)
		return
	}
	var kind string
	switch f.Producer {
	case javaConnData:
		kind = JavaRequestsKind
	case javaConnCoordinator:
		kind = JavaCoordinatorRequestsKind
	default:
		fmt.Fprintf(j.stderr, "\nsharebench: %s: requests frame for connection %d: ignored\n", j.name, f.Producer)
		return
	}
	if f.N < 0 || f.Run > math.MaxInt64 || f.Seq > math.MaxInt64 {
		return // a bootstrap connection (the runner sends none)
	}
	add := results.RequestTimings{}
	if f.Run > 0 {
		add[results.RequestKey{Broker: f.N, Kind: kind}] = results.RequestStat{Count: int64(f.Run), Untimed: true}
	}
	if f.Flags >= 2 && f.Seq > 0 && f.Intended >= 0 && f.Aux >= 0 {
		fk := JavaShareFetchKind
		if j.c.Type == ConsumerGroup {
			fk = JavaFetchKind
		}
		add[results.RequestKey{Broker: f.N, Kind: fk}] = results.RequestStat{Count: int64(f.Seq), Micros: f.Intended,
			MaxMicros: f.Aux, NoEmpty: true}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.requests == nil {
		j.requests = results.RequestTimings{}
	}
	for k, st := range add {
		if _, ok := j.requests[k]; !ok && len(j.requests) >= javaRequestsMaxKeys {
			continue
		}
		j.requests.Merge(results.RequestTimings{k: st})
	}
}

// Requests are the request counts the runner's members reported, and those
// of the JVMs of their own (none from a runner that does not send them).
func (j *javaFleet) Requests() results.RequestTimings {
	out := results.RequestTimings{}
	j.mu.RLock()
	out.Merge(j.requests)
	j.mu.RUnlock()
	for _, id := range slices.Sorted(maps.Keys(j.own)) {
		out.Merge(j.own[id].Requests())
	}
	return out
}
