//go:build integration && linux

package infra

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/testkit"

	"github.com/sharebench/sharebench/internal/envvars"
)

// The integration tests below (build tag integration) start real Kafka
// brokers. They are skipped with -short and where java or mvn is missing
// (a failure under SHAREBENCH_REQUIRE_BROKERS=1, see testkit). The first
// run resolves the jars with Maven into the user's cache (about a minute);
// later runs reuse it.

// helperEnv makes the test binary act as a tiny harness (see TestMain).
const helperEnv = envvars.InfraTestHelper

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

// runHelper is a minimal harness: it starts a one-node cluster, prints
// "PIDS <pid>..." and "READY", and waits for SIGINT or SIGTERM, then stops
// the cluster (through a deferred Stop, as the CLI does) and exits 0.
func runHelper(mode string) int {
	if mode != "hold-cluster" {
		fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := (&ProcessProvider{}).Start(ctx, ClusterSpec{Log: os.Stderr, WorkDir: os.Getenv("HELPER_WORK_DIR")})
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	defer func() {
		if err := c.Stop(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "stop:", err)
		}
	}()
	pids := make([]string, 0, len(c.PIDs()))
	for _, pid := range c.PIDs() {
		pids = append(pids, strconv.Itoa(pid))
	}
	fmt.Println("PIDS", strings.Join(pids, " "))
	fmt.Println("READY")
	<-ctx.Done()
	return 0
}

var (
	resolveOnce sync.Once
	resolveErr  error
)

// requireKafka skips the test unless real brokers can run here, and
// resolves the jars once for all tests.
func requireKafka(t *testing.T) {
	t.Helper()
	testkit.NeedTools(t, "java")
	dir, err := JarDir(DefaultKafkaVersion)
	if err != nil {
		t.Fatal(err)
	}
	if !jarsComplete(dir, DefaultKafkaVersion) {
		if reason := testkit.MissingTools("mvn"); reason != "" {
			testkit.Unavailable(t, fmt.Sprintf("Kafka jars not cached in %s and %s", dir, reason))
		}
	}
	resolveOnce.Do(func() {
		began := time.Now()
		_, resolveErr = ResolveJars(context.Background(), DefaultKafkaVersion, testkit.Log(t))
		t.Logf("jars ready in %v", time.Since(began).Round(time.Millisecond))
	})
	if resolveErr != nil {
		t.Fatalf("resolve jars: %v", resolveErr)
	}
}

// startForTest starts a cluster and registers a clean-up that stops it and
// kills any broker left, so that a failing test leaves no JVM behind.
func startForTest(t *testing.T, spec ClusterSpec) (*processCluster, time.Duration) {
	t.Helper()
	spec.Log = testkit.Log(t)
	began := time.Now()
	c, err := (&ProcessProvider{}).Start(context.Background(), spec)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	elapsed := time.Since(began)
	pc := c.(*processCluster)
	t.Cleanup(func() {
		c.Stop(context.Background())
		testkit.KillAll(pc.PIDs())
	})
	return pc, elapsed
}

func TestProcessOneNode(t *testing.T) {
	requireKafka(t)
	logDir := t.TempDir()
	c, startTime := startForTest(t, ClusterSpec{Nodes: 1, LogDir: logDir})
	t.Logf("1 node: started in %v", startTime.Round(time.Millisecond))

	if c.Provider() != "process" || !c.IsKafka() || c.KafkaVersion() != DefaultKafkaVersion || c.Nodes() != 1 {
		t.Errorf("identity: %q, IsKafka %v, version %q, nodes %d", c.Provider(), c.IsKafka(), c.KafkaVersion(), c.Nodes())
	}
	if got := c.BrokerConfig()["share.coordinator.state.topic.replication.factor"]; got != "1" {
		t.Errorf("share coordinator state RF %q, want 1 on one node", got)
	}
	pids := c.PIDs()
	if len(pids) != 1 || !processAlive(pids[0]) {
		t.Fatalf("PIDs %v: want one live broker", pids)
	}
	if b := c.Bootstrap(); len(b) != 1 || !strings.HasPrefix(b[0], "127.0.0.1:") {
		t.Errorf("bootstrap %v: want one 127.0.0.1 address", b)
	}
	if c.LogDir() != logDir {
		t.Errorf("log dir %q, want %q", c.LogDir(), logDir)
	}
	if log, err := os.ReadFile(filepath.Join(logDir, "broker-1.log")); err != nil || !strings.Contains(string(log), "Kafka Server started") {
		t.Errorf("broker-1.log: %v; want the broker's own log lines (len %d)", err, len(log))
	}

	rt := checkCluster(t, c, 1)
	t.Logf("1 node: share group consumed its first record in %v", rt.shareConsume.Round(time.Millisecond))

	// A context that has ended means "kill now": no grace period. (The
	// controlled shutdown is covered by the 3-node and Ctrl-C tests.)
	root := c.root
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	began := time.Now()
	if err := c.Stop(ended); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("stop with an ended context took %v; want an immediate kill", d)
	}
	testkit.AssertGone(t, pids, 0)
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary work dir %s not removed: %v", root, err)
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Errorf("second stop: %v", err)
	}
}

// TestProcessThreeNodes also covers a port clash: node 1's client port is
// taken, so node 1 dies while nodes 2 and 3 run on; Start must stop the live
// brokers of that attempt and retry once with new ports.
func TestProcessThreeNodes(t *testing.T) {
	requireKafka(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	takenPort := taken.Addr().(*net.TCPAddr).Port
	real := pickPorts
	calls := 0
	pickPorts = func(n int) ([]int, error) {
		calls++
		ports, err := real(n)
		if calls == 1 && err == nil {
			ports[0] = takenPort
		}
		return ports, err
	}
	defer func() { pickPorts = real }()

	work := t.TempDir()
	c, startTime := startForTest(t, ClusterSpec{Nodes: 3, WorkDir: work})
	t.Logf("3 nodes: started in %v, including a failed attempt on a taken port", startTime.Round(time.Millisecond))
	if calls != 2 {
		t.Errorf("ports picked %d times, want 2 (one retry)", calls)
	}
	if slices.Contains(c.Bootstrap(), net.JoinHostPort("127.0.0.1", strconv.Itoa(takenPort))) {
		t.Errorf("cluster claims the port held by the test: %v", c.Bootstrap())
	}
	pids := c.PIDs()
	if len(pids) != 3 {
		t.Fatalf("PIDs %v: want 3", pids)
	}
	running := testkit.JVMsUnder(work)
	slices.Sort(running)
	if want := slices.Sorted(slices.Values(pids)); !slices.Equal(running, want) {
		t.Errorf("JVMs under the work dir %v, want only the cluster's brokers %v: the failed attempt left some", running, want)
	}
	if got := c.BrokerConfig()["share.coordinator.state.topic.min.isr"]; got != "2" {
		t.Errorf("share coordinator state min ISR %q, want 2 on three nodes", got)
	}

	rt := checkCluster(t, c, 3)
	t.Logf("3 nodes: share group consumed its first record in %v", rt.shareConsume.Round(time.Millisecond))

	began := time.Now()
	if err := c.Stop(context.Background()); err != nil {
		t.Fatalf("stop: %v", err)
	}
	t.Logf("3 nodes: stopped (controlled shutdown) in %v", time.Since(began).Round(time.Millisecond))
	testkit.AssertGone(t, pids, 0)
	if _, err := os.Stat(c.root); err != nil {
		t.Errorf("a caller's work dir must be kept: %v", err)
	}
}

func TestProcessStartFailureStopsEverything(t *testing.T) {
	requireKafka(t)
	work := t.TempDir()
	began := time.Now()
	// A class only the running broker loads: storage formatting passes, the
	// broker dies during start-up.
	c, err := (&ProcessProvider{}).Start(context.Background(), ClusterSpec{
		Nodes:        1,
		WorkDir:      work,
		StartTimeout: 3 * time.Minute,
		BrokerConfig: map[string]string{"authorizer.class.name": "no.such.Authorizer"},
		Log:          testkit.Log(t),
	})
	elapsed := time.Since(began)
	defer testkit.KillAll(testkit.JVMsUnder(work))
	if err == nil {
		c.Stop(context.Background())
		t.Fatal("start succeeded with a broker that cannot start")
	}
	t.Logf("failed in %v with: %v", elapsed.Round(time.Millisecond), err)
	if !strings.Contains(err.Error(), "exited during start-up") || !strings.Contains(err.Error(), "no.such.Authorizer") {
		t.Errorf("error does not say which broker died and why (log tail): %v", err)
	}
	if elapsed > time.Minute {
		t.Errorf("start took %v to notice a dead broker; want it at once", elapsed)
	}
	if left := testkit.JVMsUnder(work); len(left) > 0 {
		t.Errorf("JVMs left running after a failed start: %v", left)
	}
}

// cancelOn cancels a context when a progress line contains a marker.
type cancelOn struct {
	t      *testing.T
	marker string
	cancel context.CancelFunc
}

func (c cancelOn) Write(b []byte) (int, error) {
	c.t.Log(strings.TrimRight(string(b), "\n"))
	if strings.Contains(string(b), c.marker) {
		c.cancel()
	}
	return len(b), nil
}

func TestProcessStartCancelledStopsEverything(t *testing.T) {
	requireKafka(t)
	work := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer func() { testkit.KillAll(testkit.JVMsUnder(work)) }()
	// Cancelled (as by Ctrl-C) once a broker JVM runs, mid-start.
	c, err := (&ProcessProvider{}).Start(ctx, ClusterSpec{
		Nodes: 3, WorkDir: work, Log: cancelOn{t, "broker 2: started", cancel},
	})
	if err == nil {
		c.Stop(context.Background())
		t.Fatal("start succeeded although cancelled")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v; want it to wrap context.Canceled", err)
	}
	if left := testkit.JVMsUnder(work); len(left) > 0 {
		t.Errorf("JVMs left running after a cancelled start: %v", left)
	}
}

// startHelper runs the test binary as a harness holding a one-node cluster
// and returns it once the cluster is ready, with the broker pids.
func startHelper(t *testing.T) (*exec.Cmd, []int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// The work dir is the test's: a harness killed hard cannot clean up.
	cmd.Env = append(os.Environ(), helperEnv+"=hold-cluster", "HELPER_WORK_DIR="+t.TempDir())
	// Its own process group, like a shell job, so that the test can signal
	// it the way a terminal's Ctrl-C does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = testkit.Log(t)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	t.Cleanup(func() {
		cmd.Process.Kill()
		testkit.KillAll(pids)
	})
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	timeout := time.After(3 * time.Minute)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("helper exited before READY")
			}
			switch f := strings.Fields(line); {
			case len(f) > 0 && f[0] == "PIDS":
				for _, s := range f[1:] {
					pid, _ := strconv.Atoi(s)
					pids = append(pids, pid)
				}
			case line == "READY":
				if len(pids) == 0 {
					t.Fatal("helper printed no broker pids")
				}
				go func() {
					for range lines { // drain until the helper exits
					}
				}()
				return cmd, pids
			default:
				t.Logf("helper: %s", line)
			}
		case <-timeout:
			t.Fatal("helper not ready within 3m")
		}
	}
}

// waitExit waits up to d for cmd to exit and returns its state.
func waitExit(t *testing.T, cmd *exec.Cmd, d time.Duration) *os.ProcessState {
	t.Helper()
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
		return cmd.ProcessState
	case <-time.After(d):
		t.Fatalf("helper still running %v after the signal", d)
		return nil
	}
}

func TestProcessNoOrphansOnInterrupt(t *testing.T) {
	requireKafka(t)
	cmd, pids := startHelper(t)
	for _, pid := range pids {
		if !processAlive(pid) {
			t.Fatalf("broker pid %d not running while the harness holds the cluster", pid)
		}
	}
	began := time.Now()
	// A terminal's Ctrl-C signals the whole foreground process group; the
	// brokers are in groups of their own and learn of it from the harness.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	state := waitExit(t, cmd, stopGrace+killWait+10*time.Second)
	t.Logf("harness exited %v after SIGINT: %v", time.Since(began).Round(time.Millisecond), state)
	if !state.Success() {
		t.Errorf("harness exit %v after Ctrl-C, want a clean exit", state)
	}
	// Stop returned only after reaping: nothing may be left at exit.
	testkit.AssertGone(t, pids, 0)
}

func TestProcessNoOrphansOnHarnessKill(t *testing.T) {
	requireKafka(t)
	cmd, pids := startHelper(t)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd, 10*time.Second)
	began := time.Now()
	// No Stop ran: only the parent-death signal can have ended the JVMs.
	testkit.AssertGone(t, pids, 5*time.Second)
	t.Logf("brokers gone %v after the harness was killed", time.Since(began).Round(time.Millisecond))
}
