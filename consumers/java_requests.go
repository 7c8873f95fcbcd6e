package consumers

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/sharebench/sharebench/results"
)

// The Java runner's request counts (frameRequests): each member, as it
// stops, reads from its client's metrics how many requests it sent to each
// broker (kafka-clients' per-node request-total, RequestMetrics.java); the
// fleet adds them up into request timings of kinds that say what they are.
// The client counts every request on a connection, whatever its API, and
// times none of them (its per-node latency covers fetch responses over the
// metrics' sample window only), so the rows are untimed and have no empty
// count (results.RequestStat.Untimed).

// javaRequestsVersion is the record version a requests frame carries in its
// flags byte; a frame of another version is ignored (noted on stderr).
const javaRequestsVersion = 1

// A requests frame's connection (its producer field).
const (
	javaConnData        = 0 // the client's connection to the broker
	javaConnCoordinator = 1 // its connection to the broker as group coordinator
)

// Request kinds of the Java runner's rows.
const (
	JavaRequestsKind            = "all (java client metrics)"
	JavaCoordinatorRequestsKind = "coordinator, all (java client metrics)"
)

// javaRequestsMaxKeys bounds the brokers × connections a fleet records.
const javaRequestsMaxKeys = 1024

// addRequests adds one requests frame to the fleet's request counts.
func (j *javaFleet) addRequests(f javaFrame) {
	if f.Flags != javaRequestsVersion {
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
	if f.N < 0 || f.Run == 0 || f.Run > math.MaxInt64 {
		return // a bootstrap connection or nothing counted (the runner sends neither)
	}
	k := results.RequestKey{Broker: f.N, Kind: kind}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.requests == nil {
		j.requests = results.RequestTimings{}
	}
	if _, ok := j.requests[k]; !ok && len(j.requests) >= javaRequestsMaxKeys {
		return
	}
	j.requests.Merge(results.RequestTimings{k: {Count: int64(f.Run), Untimed: true}})
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
