package consumers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/results"
)

// franzGoClient builds the client a member of c builds (options only: the
// client never reaches the unused address before it is closed).
func franzGoClient(t *testing.T, c Config) (*member, *kgo.Client) {
	t.Helper()
	m := &member{id: 3, c: c, dialer: &crashDialer{}}
	m.group = &shareGroupMember{member: m}
	if c.Type == ConsumerGroup {
		m.group = newConsumerGroupMember(m, nil)
	}
	m.c.Brokers, m.c.Topic, m.c.Group = []string{"127.0.0.1:1"}, "t", "g"
	cl, err := kgo.NewClient(append(m.clientOpts(), m.group.options()...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return m, cl
}

// The settings franz-go reports are the ones the Config asked for, and
// franz-go's documented defaults where it asked for none.
func TestFranzGoSettingsAreTheClientsOwn(t *testing.T) {
	off := false
	set := Fetch{MaxWait: 100 * time.Millisecond, MinBytes: 10, MaxBytes: 1 << 20, MaxPartitionBytes: 64 << 10, Prefetch: &off}
	m, cl := franzGoClient(t, Config{Type: ShareGroup, MaxPollRecords: 25, Acquire: AcquireRecordLimit, Fetch: set})
	got := m.franzGoSettings(cl)
	zero := int64(0)
	want := results.ClientSettings{Source: franzGoSettingsSource, FetchMaxWaitMs: 100, FetchMinBytes: 10, FetchMaxBytes: 1 << 20,
		FetchMaxPartitionBytes: 64 << 10, MaxPollRecords: 25, MaxConcurrentFetches: &zero, ShareAcquireMode: "record_limit"}
	if !settingsEqual(got, want) {
		t.Errorf("share, fetch settings set:\n got %s\nwant %s", show(got), show(want))
	}

	// Nothing set: franz-go v1.22's defaults (share: fetch.max.wait 500 ms;
	// consumer group: 5 s, 50 MiB, 1 MiB, 1 byte, unbounded concurrency,
	// session 45 s, heartbeat 3 s, rebalance 60 s).
	m, cl = franzGoClient(t, Config{Type: ShareGroup, MaxPollRecords: 10, Acquire: AcquireBatchOptimized})
	if got := m.franzGoSettings(cl); got.FetchMaxWaitMs != 500 || got.ShareAcquireMode != "batch_optimized" || got.SessionTimeoutMs != nil {
		t.Errorf("share defaults: %s", show(got))
	}
	m, cl = franzGoClient(t, Config{Type: ConsumerGroup, MaxPollRecords: 10})
	unbounded, session, heartbeat, rebalance := int64(-1), int64(45000), int64(3000), int64(60000)
	want = results.ClientSettings{Source: franzGoSettingsSource, FetchMaxWaitMs: 5000, FetchMinBytes: 1, FetchMaxBytes: 50 << 20,
		FetchMaxPartitionBytes: 1 << 20, MaxPollRecords: 10, MaxConcurrentFetches: &unbounded,
		SessionTimeoutMs: &session, HeartbeatIntervalMs: &heartbeat, RebalanceTimeoutMs: &rebalance}
	if got := m.franzGoSettings(cl); !settingsEqual(got, want) {
		t.Errorf("consumer group defaults:\n got %s\nwant %s", show(got), show(want))
	}

	// A session timeout: the heartbeat is a third of it, both sent.
	m, cl = franzGoClient(t, Config{Type: ConsumerGroup, MaxPollRecords: 10, SessionTimeout: 9 * time.Second})
	if got := m.franzGoSettings(cl); got.SessionTimeoutMs == nil || *got.SessionTimeoutMs != 9000 || *got.HeartbeatIntervalMs != 3000 {
		t.Errorf("session timeout 9s: %s", show(got))
	}
	// KIP-848: the broker owns session and heartbeat; none are reported.
	m, cl = franzGoClient(t, Config{Type: ConsumerGroup, MaxPollRecords: 10, Groups: GroupKnobs{Protocol: ProtocolConsumer}})
	if got := m.franzGoSettings(cl); got.SessionTimeoutMs != nil || got.RebalanceTimeoutMs != nil {
		t.Errorf("group_protocol consumer: %s", show(got))
	}
}

func TestReadJavaSettings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	if _, ok, err := readJavaSettings(path); ok || err != nil {
		t.Errorf("no file: ok %v err %v", ok, err)
	}
	if err := os.WriteFile(path, []byte(`{"source":"kafka-clients ConsumerConfig","fetch_max_wait_ms":100,"fetch_min_bytes":1,`+
		`"fetch_max_bytes":52428800,"fetch_max_partition_bytes":1048576,"max_poll_records":100,"share_acquire_mode":"record_limit"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, ok, err := readJavaSettings(path)
	if !ok || err != nil || s.FetchMaxWaitMs != 100 || s.MaxPollRecords != 100 || s.ShareAcquireMode != "record_limit" || s.MaxConcurrentFetches != nil {
		t.Errorf("read %s ok %v err %v", show(s), ok, err)
	}
	if err := os.WriteFile(path, []byte(`{"fetch_max_wait_ms":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := readJavaSettings(path); ok || err == nil {
		t.Errorf("truncated file: ok %v err %v", ok, err)
	}
}

func settingsEqual(a, b results.ClientSettings) bool { return show(a) == show(b) }

// show is run.json's spelling of s.
func show(s results.ClientSettings) string {
	b, _ := json.Marshal(s)
	return string(b)
}
