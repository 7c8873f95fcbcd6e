//go:build integration && linux

package infra

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/internal/testkit"
)

// TestProcessFaultsOneNode drives every fault through one broker in turn:
// kill and start (a record produced before the kill is read after it, on a
// new pid, with the metrics agent back on its port), a port taken while
// the broker is down, a graceful restart (log appended), pause and resume
// (a produce times out while paused and succeeds after), and Stop on a
// paused broker (it is resumed so that its controlled shutdown runs).
func TestProcessFaultsOneNode(t *testing.T) {
	requireKafka(t)
	// The logs outlive the cluster: the end of the test reads them.
	c, _ := startForTest(t, ClusterSpec{Nodes: 1, LogDir: t.TempDir()})
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	var f Faults = c
	// Samplers read PIDs while faults change the brokers (go test -race).
	sampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-sampling:
				return
			case <-time.After(10 * time.Millisecond):
				_ = c.PIDs()
			}
		}
	}()
	defer func() { close(sampling); <-sampled }()

	topic := "faults-" + randomHex(3)
	cl := newTestClient(t, c, kgo.RecordDeliveryTimeout(5*time.Second))
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatalf("create topic: %v", err)
	}
	before := "before-kill-" + randomHex(4)
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte(before)}).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}

	// Faults that do not apply say why.
	for _, tc := range []struct {
		name string
		do   func() error
		want string
	}{
		{"disconnect", func() error { return f.DisconnectBroker(ctx, 1) }, "loopback"},
		{"reconnect", func() error { return f.ReconnectBroker(ctx, 1) }, "loopback"},
		{"resume a running broker", func() error { return f.ResumeBroker(ctx, 1) }, "broker 1: resume: the broker is running"},
		{"start a running broker", func() error { return f.StartBroker(ctx, 1) }, "broker 1: start: the broker is running"},
		{"unknown node", func() error { return f.KillBroker(ctx, 2) }, "broker 2: kill: no such node; the cluster has nodes 1..1"},
	} {
		err := tc.do()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if err := f.DisconnectBroker(ctx, 1); !errors.Is(err, ErrFaultUnsupported) {
		t.Errorf("disconnect: %v, want ErrFaultUnsupported", err)
	}

	// Kill.
	pid0 := c.PIDs()[0]
	if err := f.KillBroker(ctx, 1); err != nil {
		t.Fatalf("kill: %v", err)
	}
	if processAlive(pid0) {
		t.Fatalf("pid %d alive after KillBroker returned", pid0)
	}
	if pids := c.PIDs(); len(pids) != 0 {
		t.Errorf("PIDs after a kill: %v, want none", pids)
	}
	if err := f.KillBroker(ctx, 1); err == nil || !strings.Contains(err.Error(), "the broker is killed") {
		t.Errorf("second kill: %v, want 'the broker is killed'", err)
	}

	// Its client port taken while it is down: a clear error, nothing started.
	port := c.nodes[0].BrokerPort
	squatter, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("take the broker's port %d: %v", port, err)
	}
	err = f.StartBroker(ctx, 1)
	squatter.Close()
	if err == nil || !strings.Contains(err.Error(), "client port "+strconv.Itoa(port)+" is taken") {
		t.Fatalf("start with the port taken: %v, want an error naming client port %d", err, port)
	}
	if pids := c.PIDs(); len(pids) != 0 {
		t.Errorf("PIDs after a refused start: %v, want none", pids)
	}

	// Start again: same data, new pid, metrics agent on its old port.
	if err := f.StartBroker(ctx, 1); err != nil {
		t.Fatalf("start: %v", err)
	}
	pid1 := onePID(t, c)
	if pid1 == pid0 {
		t.Errorf("pid %d unchanged after kill and start", pid1)
	}
	if got := readFirst(ctx, t, c, topic); got != before {
		t.Errorf("after kill and start, the topic starts with %q, want %q", got, before)
	}
	if code := httpStatus(c.MetricsURLs()[0]); code != http.StatusOK {
		t.Errorf("metrics endpoint %s after start: status %d, want 200", c.MetricsURLs()[0], code)
	}

	// Graceful restart: a new pid, the log appended (one more start in it).
	if err := f.RestartBroker(ctx, 1); err != nil {
		t.Fatalf("restart: %v", err)
	}
	pid2 := onePID(t, c)
	if pid2 == pid1 || processAlive(pid1) {
		t.Errorf("restart: pid %d → %d (old alive: %v), want a new JVM and the old gone", pid1, pid2, processAlive(pid1))
	}
	log, _ := os.ReadFile(c.brokers[0].logPath)
	if n := strings.Count(string(log), "Kafka Server started"); n != 3 {
		t.Errorf("broker log records %d starts, want 3 (start, start after kill, restart): not appended?", n)
	}
	// Only a controlled shutdown leaves the clean-shutdown marker that the
	// next start finds.
	if !strings.Contains(string(log), "since clean shutdown file was found") {
		t.Errorf("broker log: the restarted broker found no clean-shutdown file: the restart did not stop it gracefully")
	}

	// Pause: a produce times out; resume: the same produce succeeds.
	if err := f.PauseBroker(ctx, 1); err != nil {
		t.Fatalf("pause: %v", err)
	}
	if pids := c.PIDs(); !slices.Equal(pids, []int{pid2}) {
		t.Errorf("PIDs while paused %v, want [%d] (a paused broker still runs)", pids, pid2)
	}
	paused := newTestClient(t, c, kgo.RecordDeliveryTimeout(3*time.Second), kgo.RecordRetries(1))
	pctx, pcancel := context.WithTimeout(ctx, 30*time.Second)
	err = paused.ProduceSync(pctx, &kgo.Record{Topic: topic, Value: []byte("while paused")}).FirstErr()
	pcancel()
	if err == nil {
		t.Errorf("a produce succeeded while the only broker was paused")
	}
	t.Logf("produce while paused: %v", err)
	if err := f.ResumeBroker(ctx, 1); err != nil {
		t.Fatalf("resume: %v", err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("after resume")}).FirstErr(); err != nil {
		t.Errorf("produce after resume: %v", err)
	}

	// Stop while paused: resumed, shut down in order, nothing left.
	if err := f.PauseBroker(ctx, 1); err != nil {
		t.Fatalf("pause: %v", err)
	}
	cl.Close()
	paused.Close()
	logPath := c.brokers[0].logPath
	logBefore, _ := os.ReadFile(logPath)
	if err := c.Stop(context.Background()); err != nil {
		t.Errorf("stop while paused: %v", err)
	}
	testkit.AssertGone(t, []int{pid2}, 0)
	logAfter, _ := os.ReadFile(logPath)
	if tail := string(logAfter[len(logBefore):]); !strings.Contains(tail, "Terminating process due to signal SIGTERM") {
		t.Errorf("stop of a paused broker: no controlled shutdown in its log (was it resumed before SIGTERM?):\n%s", tail)
	}
	if err := f.StartBroker(ctx, 1); err == nil || !strings.Contains(err.Error(), "stopping") {
		t.Errorf("start after stop: %v, want 'the cluster is stopping'", err)
	}
}

// TestProcessStopAfterKill: a broker killed on purpose is not a crash; Stop
// succeeds and leaves nothing.
func TestProcessStopAfterKill(t *testing.T) {
	requireKafka(t)
	c, _ := startForTest(t, ClusterSpec{Nodes: 1})
	pid := onePID(t, c)
	if err := c.KillBroker(context.Background(), 1); err != nil {
		t.Fatalf("kill: %v", err)
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Errorf("stop after a deliberate kill: %v, want none", err)
	}
	testkit.AssertGone(t, []int{pid}, 0)
	if _, err := os.Stat(c.root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("work dir %s not removed: %v", c.root, err)
	}
}

func newTestClient(t *testing.T, c Cluster, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.Bootstrap()...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func onePID(t *testing.T, c Cluster) int {
	t.Helper()
	pids := c.PIDs()
	if len(pids) != 1 || !processAlive(pids[0]) {
		t.Fatalf("PIDs %v: want one live broker", pids)
	}
	return pids[0]
}

// readFirst reads the first record of topic's partition 0 with a fresh
// plain consumer.
func readFirst(ctx context.Context, t *testing.T, c Cluster, topic string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	cl := newTestClient(t, c, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	return string(pollOne(ctx, t, cl).Value)
}

func httpStatus(url string) int {
	cl := http.Client{Timeout: 10 * time.Second}
	resp, err := cl.Get(url)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}
