//go:build integration

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/testkit"
)

// up → status → run --cluster → down on real process brokers: the CLI
// returns while the cluster keeps running, a run reuses it, and down leaves
// no JVM, no supervisor and no state.
func TestClusterUpRunDown(t *testing.T) {
	testkit.NeedJava(t)
	// A cache of our own for the state, sharing the resolved jars.
	jars, err := infra.JarDir(infra.DefaultKafkaVersion)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	t.Setenv("SHAREBENCH_CACHE", cache) // for the commands, and n.ReadState here
	if err := os.Symlink(jars, filepath.Join(cache, filepath.Base(jars))); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "sharebench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	sharebench := func(timeout time.Duration, args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(timeout):
				cmd.Process.Kill()
			}
		}()
		out, err := cmd.CombinedOutput()
		t.Logf("sharebench %s:\n%s", strings.Join(args, " "), out)
		return string(out), err
	}
	stateFile := filepath.Join(cache, "clusters", "t1.json")
	var supervisor int
	var brokers []int
	t.Cleanup(func() { // whatever happened, nothing of ours survives
		if supervisor > 0 {
			syscall.Kill(supervisor, syscall.SIGKILL) // its brokers follow (Pdeathsig)
		}
		for _, pid := range brokers {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})

	out, err := sharebench(8*time.Minute, "cluster", "up", "--provider", "process", "--nodes", "1", "--name", "t1",
		"--set", "broker_config.group.share.partition.max.record.locks=4000")
	if err != nil {
		t.Fatalf("up: %v", err)
	}
	n, err := infra.OpenNamedCluster("t1")
	if err != nil {
		t.Fatal(err)
	}
	st, err := n.ReadState()
	if err != nil {
		t.Fatalf("state after up: %v", err)
	}
	supervisor = st.SupervisorPID
	serveLog, _ := os.ReadFile(st.ServeLog)
	for _, m := range regexp.MustCompile(`broker \d+: started, pid (\d+)`).FindAllStringSubmatch(string(serveLog), -1) {
		pid, _ := strconv.Atoi(m[1])
		brokers = append(brokers, pid)
	}
	if len(brokers) != 1 {
		t.Fatalf("broker pids in %s: %v, want 1", st.ServeLog, brokers)
	}
	if !strings.Contains(out, "bootstrap: "+st.Bootstrap[0]) || !strings.Contains(out, st.MetricsURLs[0]) {
		t.Errorf("up did not print the bootstrap %v and metrics %v", st.Bootstrap, st.MetricsURLs)
	}
	if st.BrokerConfig["group.share.partition.max.record.locks"] != "4000" || st.Provider != "process" || st.Nodes != 1 {
		t.Errorf("state: provider %q nodes %d record locks %q", st.Provider, st.Nodes, st.BrokerConfig["group.share.partition.max.record.locks"])
	}
	// up has returned: the brokers live on under the supervisor.
	if !testkit.Alive(brokers[0]) {
		t.Fatalf("broker pid %d gone after up returned", brokers[0])
	}

	out, err = sharebench(time.Minute, "cluster", "status", "--name", "t1")
	if err != nil || !strings.Contains(out, "brokers answering: 1 of 1") {
		t.Errorf("status: %v", err)
	}

	results := t.TempDir()
	_, err = sharebench(5*time.Minute, "run", "--cluster", "t1", "--scenario", "smoke", "--results", results,
		"--set", "duration=2s", "--set", "warmup=1s")
	if err != nil {
		t.Errorf("run --cluster: %v", err)
	}
	if runs, _ := filepath.Glob(filepath.Join(results, "smoke-*", "runs", "*", "run.json")); len(runs) != 2 {
		t.Errorf("run --cluster wrote %d run.json files, want 2", len(runs))
	}
	if !testkit.Alive(brokers[0]) {
		t.Errorf("broker pid %d gone after a run on it: a run must not stop a cluster it did not start", brokers[0])
	}

	out, err = sharebench(3*time.Minute, "cluster", "down", "--name", "t1")
	if err != nil || !strings.Contains(out, "stopped") {
		t.Errorf("down: %v", err)
	}
	for _, pid := range append([]int{supervisor}, brokers...) {
		if testkit.Alive(pid) {
			t.Errorf("pid %d still running after down", pid)
		}
	}
	for _, p := range []string{stateFile, filepath.Join(cache, "clusters", "t1")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind after down: %v", p, err)
		}
	}
}
