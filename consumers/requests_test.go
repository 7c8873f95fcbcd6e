package consumers

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/results"
)

// A fetch is empty when no record of its broker's partitions was buffered
// before that broker's next fetch response.
func TestFetchWatchCountsEmptyFetchesPerBroker(t *testing.T) {
	w := newFetchWatch(results.NewClock(), nil)
	w.leader = func(_ string, p int32) int32 { return map[int32]int32{0: 1, 1: 2}[p] }
	e2e := func(node int32, key kmsg.Key, wait time.Duration) {
		w.OnBrokerE2E(kgo.BrokerMetadata{NodeID: node}, int16(key), kgo.BrokerE2E{ReadWait: wait})
	}
	e2e(1, kmsg.ShareFetch, 10*time.Millisecond)
	w.OnFetchRecordBuffered(&kgo.Record{Topic: "t", Partition: 0})
	e2e(2, kmsg.ShareFetch, 5*time.Second) // nothing buffered for broker 2
	e2e(1, kmsg.ShareFetch, 10*time.Millisecond)
	w.OnFetchRecordBuffered(&kgo.Record{Topic: "t", Partition: 0})
	e2e(2, kmsg.ShareFetch, 5*time.Second)
	w.OnFetchRecordBuffered(&kgo.Record{Topic: "t", Partition: 1})
	e2e(1, kmsg.ShareAcknowledge, 3*time.Millisecond)
	e2e(-2147483648, kmsg.Metadata, time.Millisecond) // a seed connection: not timed
	w.settle(true)
	got := w.st.stats.Requests
	b1 := got[results.RequestKey{Broker: 1, Kind: "ShareFetch"}]
	b2 := got[results.RequestKey{Broker: 2, Kind: "ShareFetch"}]
	if b1.Count != 2 || b1.Empty != 0 {
		t.Errorf("broker 1: %+v, want 2 fetches, none empty", b1)
	}
	if b2.Count != 2 || b2.Empty != 1 || b2.EmptyMicros != 5_000_000 {
		t.Errorf("broker 2: %+v, want 2 fetches, 1 empty of 5 s", b2)
	}
	if a := got[results.RequestKey{Broker: 1, Kind: "ShareAcknowledge"}]; a.Count != 1 || a.Micros != 3000 {
		t.Errorf("acks: %+v", a)
	}
	if len(got) != 3 {
		t.Errorf("keys %v, want 3 (no seed)", got)
	}
}
