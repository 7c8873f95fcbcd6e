// Package kafkatest starts real Kafka brokers (the process provider) for
// tests, with clean-up registered and the no-orphan check done: after Stop
// no broker JVM of the cluster may be left. Only files with the build tag
// integration should use it. (The infra package's own tests cannot import
// it, an import cycle; they use testkit and infra's internals.)
package kafkatest

import (
	"context"
	"flag"
	"fmt"
	"os"
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
// calls Main, each test calls Need.
//
//	var kafka kafkatest.Shared
//	func TestMain(m *testing.M) { os.Exit(kafka.Main(m, spec, nil)) }
//	func TestX(t *testing.T) { cl := kafka.Need(t); ... }
type Shared struct {
	cluster infra.Cluster
	skip    string // why there is no cluster
}

// Main starts the shared cluster (unless -short, or java or mvn is
// missing: then Need skips, or fails under SHAREBENCH_REQUIRE_BROKERS=1),
// calls prepare on it when not nil, runs the tests, stops the cluster and
// checks that none of its broker JVMs is left. It returns the exit code.
func (s *Shared) Main(m *testing.M, spec infra.ClusterSpec, prepare func(context.Context, infra.Cluster) error) int {
	if !flag.Parsed() {
		flag.Parse() // for testing.Short
	}
	if testing.Short() {
		s.skip = "-short: real-broker tests skipped"
		return m.Run()
	}
	if reason := testkit.MissingTools("java", "mvn"); reason != "" {
		s.skip = reason
		fmt.Fprintln(os.Stderr, "real-broker tests cannot run:", reason)
		return m.Run()
	}
	if spec.Log == nil {
		spec.Log = os.Stderr
	}
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	p, err := infra.NewProvider("process")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cl, err := p.Start(ctx, spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "start Kafka for the integration tests:", err)
		return 1
	}
	pids := cl.PIDs()
	defer testkit.KillAll(pids) // whatever happens, no JVM outlives the tests
	if prepare != nil {
		if err := prepare(ctx, cl); err != nil {
			fmt.Fprintln(os.Stderr, "prepare Kafka:", err)
			_ = cl.Stop(context.Background())
			return 1
		}
	}
	s.cluster = cl
	code := m.Run()
	if err := cl.Stop(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "stop Kafka:", err)
		return 1
	}
	for _, pid := range pids {
		if testkit.Alive(pid) {
			fmt.Fprintf(os.Stderr, "broker JVM %d still running after Stop\n", pid)
			return 1
		}
	}
	return code
}

// Need returns the shared cluster, or ends t (see testkit.Unavailable)
// where none could start.
func (s *Shared) Need(t testing.TB) infra.Cluster {
	t.Helper()
	if s.cluster == nil {
		testkit.Unavailable(t, s.skip)
	}
	return s.cluster
}
