package consumers

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

// The runner's requests frames become untimed request counts per broker
// and connection, summed over members and over the JVMs of their own; a
// frame of another record version is ignored with a note, never an error.
func TestJavaRequestFramesIntoRequestTimings(t *testing.T) {
	j, _ := newTestJavaFleet(t, 2, 0)
	own, _ := newTestJavaFleet(t, 0, 0)
	j.own = map[int]*javaFleet{5: own}
	var stream bytes.Buffer
	for _, f := range []javaFrame{
		{Kind: frameHello, N: javaFrameProtocol},
		{Kind: frameRequests, Flags: javaRequestsVersionV1, Member: 0, N: 1, Producer: javaConnData, Run: 40}, // a runner of version 1
		{Kind: frameRequests, Flags: javaRequestsVersion, Member: 1, N: 1, Producer: javaConnData, Run: 2},
		{Kind: frameRequests, Flags: javaRequestsVersion, Member: 1, N: 1, Producer: javaConnCoordinator, Run: 12},
		{Kind: frameRequests, Flags: javaRequestsVersion, Member: 1, N: 2, Producer: javaConnData, Run: 7},
		{Kind: frameRequests, Flags: javaRequestsVersion + 1, Member: 1, N: 3, Producer: javaConnData, Run: 9}, // a later version
		{Kind: frameRequests, Flags: javaRequestsVersion, Member: 1, N: 4, Producer: 7, Run: 9},                // an unknown connection
		{Kind: frameExited, Member: 0},
		{Kind: frameBye},
	} {
		stream.Write(f.encode())
	}
	j.readDone = make(chan struct{})
	j.read(&stream)
	own.apply(javaFrame{Kind: frameRequests, Flags: javaRequestsVersion, Member: 5, N: 2, Producer: javaConnData, Run: 3})

	want := results.RequestTimings{
		{Broker: 1, Kind: JavaRequestsKind}:            {Count: 42, Untimed: true},
		{Broker: 1, Kind: JavaCoordinatorRequestsKind}: {Count: 12, Untimed: true},
		{Broker: 2, Kind: JavaRequestsKind}:            {Count: 10, Untimed: true},
	}
	got := (&Fleet{java: j}).ClientStats().Requests
	if len(got) != len(want) {
		t.Fatalf("requests %+v, want %+v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%+v: %+v, want %+v", k, got[k], w)
		}
	}
	if s := j.stderr.String(); !strings.Contains(s, "version 3") || !strings.Contains(s, "connection 7") {
		t.Errorf("stderr %q: want the ignored frames noted", s)
	}
	select {
	case <-j.exited[0]:
	default:
		t.Error("frames after the requests frames were not applied")
	}
	figs := runs.RequestFigures(got, 10)
	if len(figs) != 3 || !figs[0].Untimed || figs[0].Count != 42 || figs[0].PerSec != 4.2 || figs[0].EmptyShare != 0 {
		t.Errorf("figures %+v", figs)
	}
	// The stats travel between a sharded run's agents unchanged.
	b, err := (ClientStats{Buffered: results.NewLatencyHistogram(), PerAcquisition: newClientStats().PerAcquisition,
		PerResponse: newClientStats().PerResponse, Requests: got}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeClientStats(b)
	if err != nil || len(back.Requests) != 3 || back.Requests[results.RequestKey{Broker: 1, Kind: JavaRequestsKind}] != want[results.RequestKey{Broker: 1, Kind: JavaRequestsKind}] {
		t.Errorf("round trip %+v, %v", back.Requests, err)
	}
}

// Version 2 frames add the fetch responses' times: per broker, a timed row
// of the kind the group type says (share: ShareFetch and ShareAcknowledge
// responses; consumer group: Fetch responses), summed over members and
// JVMs: count, summed µs and the largest, with no empty count; a frame
// whose times are unknown (intended -1) or that timed nothing adds only its
// count. The figures: 3 + 2 responses of 9,000 + 1,000 µs on broker 2 are a
// mean of 2 ms and 0.01 s waited, the longest 6 ms; no empty share.
func TestJavaRequestFramesTimed(t *testing.T) {
	for _, tc := range []struct {
		typ  GroupType
		kind string
	}{{ShareGroup, JavaShareFetchKind}, {ConsumerGroup, JavaFetchKind}} {
		j, _ := newTestJavaFleet(t, 2, 0)
		j.c.Type = tc.typ
		own, _ := newTestJavaFleet(t, 0, 0)
		own.c.Type = tc.typ
		j.own = map[int]*javaFleet{5: own}
		for _, f := range []javaFrame{
			{Kind: frameRequests, Flags: javaRequestsVersion, Member: 0, N: 2, Producer: javaConnData, Run: 20, Seq: 3, Intended: 9000, Aux: 6000},
			{Kind: frameRequests, Flags: javaRequestsVersion, Member: 1, N: 1, Producer: javaConnData, Run: 9, Intended: -1}, // times unknown
			{Kind: frameRequests, Flags: javaRequestsVersion, Member: 1, N: 1, Producer: javaConnCoordinator, Run: 4},        // timed nothing
		} {
			j.apply(f)
		}
		own.apply(javaFrame{Kind: frameRequests, Flags: javaRequestsVersion, Member: 5, N: 2, Producer: javaConnData, Run: 5, Seq: 2, Intended: 1000, Aux: 800})
		got := (&Fleet{java: j}).ClientStats().Requests
		want := results.RequestTimings{
			{Broker: 1, Kind: JavaRequestsKind}:            {Count: 9, Untimed: true},
			{Broker: 1, Kind: JavaCoordinatorRequestsKind}: {Count: 4, Untimed: true},
			{Broker: 2, Kind: JavaRequestsKind}:            {Count: 25, Untimed: true},
			{Broker: 2, Kind: tc.kind}:                     {Count: 5, Micros: 10000, MaxMicros: 6000, NoEmpty: true},
		}
		if len(got) != len(want) {
			t.Fatalf("%s: requests %+v, want %+v", tc.typ, got, want)
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: %+v: %+v, want %+v", tc.typ, k, got[k], w)
			}
		}
		var timed *runs.RequestFigure
		figs := runs.RequestFigures(got, 10)
		for i := range figs {
			if figs[i].Kind == tc.kind {
				timed = &figs[i]
			}
		}
		if timed == nil || timed.Broker != 2 || timed.Count != 5 || timed.PerSec != 0.5 || timed.MeanMs != 2 || timed.MaxMs != 6 ||
			timed.WaitSec != 0.01 || timed.EmptyShare != 0 || timed.Untimed || !strings.Contains(timed.Unavailable, "empty_share") {
			t.Errorf("%s: timed figure %+v", tc.typ, timed)
		}
	}
}

// A runner that sends no requests frames (an older one, or the librdkafka
// runner) gives no rows and no error.
func TestJavaRunnerWithoutRequestFrames(t *testing.T) {
	j, _ := newTestJavaFleet(t, 1, 0)
	var stream bytes.Buffer
	for _, f := range []javaFrame{{Kind: frameHello, N: javaFrameProtocol}, {Kind: framePoll, Member: 0, N: 1}, {Kind: frameBye}} {
		stream.Write(f.encode())
	}
	j.readDone = make(chan struct{})
	j.read(&stream)
	got := (&Fleet{java: j}).ClientStats().Requests
	if len(got) != 0 {
		t.Errorf("requests %+v, want none", got)
	}
	if runs.RequestFigures(got, 10) != nil {
		t.Error("figures from no requests")
	}
	if s := j.stderr.String(); s != "" {
		t.Errorf("stderr %q", s)
	}
}
