package kafkatest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/testkit"
)

// StartTimeout bounds the start of a test cluster, including a first jar
// resolution by Maven.
const StartTimeout = 10 * time.Minute

// StartProcess starts a process-provider cluster for t (skipping, or
// failing under SHAREBENCH_REQUIRE_BROKERS=1, where java or mvn is missing)
// and registers its clean-up: Stop, then kill and report any broker JVM
// still alive. spec.Log defaults to the test log.
func StartProcess(t testing.TB, spec infra.ClusterSpec) infra.Cluster {
	t.Helper()
	testkit.NeedJava(t)
	if spec.Log == nil {
		spec.Log = testkit.Log(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	p, err := infra.NewProvider("process")
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Start(ctx, spec)
	if err != nil {
		t.Fatalf("start %d-node process cluster: %v", max(spec.Nodes, 1), err)
	}
	t.Cleanup(func() { stopChecked(t, c) })
	return c
}

// stopChecked stops c and fails t for every broker JVM still running.
func stopChecked(t testing.TB, c infra.Cluster) {
	t.Helper()
	pids := c.PIDs() // the running brokers: after Stop there are none to list
	if err := c.Stop(context.Background()); err != nil {
		t.Errorf("stop: %v", err)
	}
	testkit.AssertGone(t, pids, 5*time.Second)
}

// Shared is one real cluster shared by all tests of a package: TestMain
// calls Main, each test calls Need. The cluster starts on the first Need,
// so that a run selecting no real-broker test (-run, -short) starts none.
//
//	var kafka kafkatest.Shared
//	func TestMain(m *testing.M) { os.Exit(kafka.Main(m, spec, nil)) }
//	func TestX(t *testing.T) { cl := kafka.Need(t); ... }
type Shared struct {
	spec    infra.ClusterSpec
	prepare func(context.Context, infra.Cluster) error

	once    sync.Once
	cluster infra.Cluster
	pids    []int
	skip    string // why there is no cluster, to skip on
	err     error  // why the cluster did not start, to fail on
}

// Main records spec and prepare (called on the cluster once started, when
// not nil), runs the tests, then stops the cluster if one started and
// checks that none of its broker JVMs is left. It returns the exit code.
func (s *Shared) Main(m *testing.M, spec infra.ClusterSpec, prepare func(context.Context, infra.Cluster) error) int {
	s.spec, s.prepare = spec, prepare
	code := m.Run()
	if s.cluster == nil {
		return code
	}
	defer testkit.KillAll(s.pids) // whatever happens, no JVM outlives the tests
	if err := s.cluster.Stop(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "stop Kafka:", err)
		return 1
	}
	for _, pid := range s.pids {
		if testkit.Alive(pid) {
			fmt.Fprintf(os.Stderr, "broker JVM %d still running after Stop\n", pid)
			return 1
		}
	}
	return code
}

// Need returns the shared cluster, starting it on the first call. Where
// java or mvn is missing it ends t as testkit.Unavailable does (skip, or
// fail under SHAREBENCH_REQUIRE_BROKERS=1); where the cluster could not
// start it fails t.
func (s *Shared) Need(t testing.TB) infra.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: real-broker tests skipped")
	}
	s.once.Do(s.start)
	switch {
	case s.skip != "":
		testkit.Unavailable(t, s.skip)
	case s.err != nil:
		t.Fatal(s.err)
	}
	return s.cluster
}

func (s *Shared) start() {
	if reason := testkit.MissingTools("java", "mvn"); reason != "" {
		s.skip = reason
		return
	}
	spec := s.spec
	if spec.Log == nil {
		spec.Log = os.Stderr
	}
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	p, err := infra.NewProvider("process")
	if err != nil {
		s.err = err
		return
	}
	cl, err := p.Start(ctx, spec)
	if err != nil {
		s.err = fmt.Errorf("start Kafka for the integration tests: %w", err)
		return
	}
	if s.prepare != nil {
		if err := s.prepare(ctx, cl); err != nil {
			s.err = fmt.Errorf("prepare Kafka for the integration tests: %w", err)
			pids := cl.PIDs()
			_ = cl.Stop(context.Background())
			testkit.KillAll(pids)
			return
		}
	}
	s.cluster, s.pids = cl, cl.PIDs()
}
