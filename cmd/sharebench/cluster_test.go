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
)

func TestClusterUnknownNameIsAClearError(t *testing.T) {
	t.Setenv("SHAREBENCH_CACHE", t.TempDir())
	for _, sub := range []string{"down", "status"} {
		_, err := execute(t, "cluster", sub, "--name", "nope")
		if err == nil || !strings.Contains(err.Error(), `no cluster named "nope"`) || !strings.Contains(err.Error(), "cluster up --name nope") {
			t.Errorf("cluster %s of an unknown name: %v, want it to say there is none and how to start one", sub, err)
		}
	}
	_, err := execute(t, "run", "--cluster", "nope", "--scenario", "smoke")
	if err == nil || !strings.Contains(err.Error(), `no cluster named "nope"`) {
		t.Errorf("run --cluster of an unknown name: %v", err)
	}
	_, err = execute(t, "run", "--cluster", "nope", "--provider", "process", "--scenario", "smoke")
	if err == nil || !strings.Contains(err.Error(), "drop --provider") {
		t.Errorf("run --cluster with --provider: %v, want it to refuse the conflict", err)
	}
	_, err = execute(t, "cluster", "up", "--provider", "kfake")
	if err == nil || !strings.Contains(err.Error(), "auto, process or container") {
		t.Errorf("cluster up --provider kfake: %v, want a refusal naming the providers", err)
	}
	_, err = execute(t, "cluster", "up", "--set", "max_poll_records=5")
	if err == nil || !strings.Contains(err.Error(), "broker_config.KEY=VALUE") {
		t.Errorf("cluster up with a scenario key: %v, want it to ask for broker_config.KEY=VALUE", err)
	}
}

// A stale state file (its supervisor gone): status says so, down removes it.
func TestClusterDownStaleState(t *testing.T) {
	t.Setenv("SHAREBENCH_CACHE", t.TempDir())
	stateFile, dir, err := clusterPaths("old")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A pid that is certainly not a supervisor of ours: this test process.
	st := clusterState{Name: "old", Bootstrap: []string{"127.0.0.1:1"}, SupervisorPID: os.Getpid(), Nodes: 1}
	if err := writeClusterState(stateFile, st); err != nil {
		t.Fatal(err)
	}
	if _, err := execute(t, "cluster", "status", "--name", "old"); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("status of a stale cluster: %v, want 'not running'", err)
	}
	out, err := execute(t, "cluster", "down", "--name", "old")
	if err != nil || !strings.Contains(out, "removed its stale state") {
		t.Errorf("down of a stale cluster: %v\n%s", err, out)
	}
	for _, p := range []string{stateFile, dir} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}
}

// up → status → run --cluster → down on real process brokers: the CLI
// returns while the cluster keeps running, a run reuses it, and down leaves
// no JVM, no supervisor and no state.
func TestClusterUpRunDown(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a real broker")
	}
	for _, tool := range []string{"java", "mvn"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH (.ci/run installs it)", tool)
		}
	}
	// A cache of our own for the state, sharing the resolved jars.
	jars, err := infra.JarDir(infra.DefaultKafkaVersion)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	t.Setenv("SHAREBENCH_CACHE", cache) // for the commands, and readClusterState here
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
	st, err := readClusterState("t1")
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
	if !processAlive(brokers[0]) {
		t.Fatalf("broker pid %d gone after up returned", brokers[0])
	}

	out, err = sharebench(time.Minute, "cluster", "status", "--name", "t1")
	if err != nil || !strings.Contains(out, "brokers answering: 1 of 1") {
		t.Errorf("status: %v", err)
	}

	results := t.TempDir()
	out, err = sharebench(5*time.Minute, "run", "--cluster", "t1", "--scenario", "smoke", "--results", results,
		"--set", "duration=2s", "--set", "warmup=1s")
	if err != nil {
		t.Errorf("run --cluster: %v", err)
	}
	if recs, _ := filepath.Glob(filepath.Join(results, "smoke-*", "runs", "*", "run.json")); len(recs) != 2 {
		t.Errorf("run --cluster wrote %d run.json files, want 2", len(recs))
	}
	if !processAlive(brokers[0]) {
		t.Errorf("broker pid %d gone after a run on it: a run must not stop a cluster it did not start", brokers[0])
	}

	out, err = sharebench(3*time.Minute, "cluster", "down", "--name", "t1")
	if err != nil || !strings.Contains(out, "stopped") {
		t.Errorf("down: %v", err)
	}
	for _, pid := range append([]int{supervisor}, brokers...) {
		if processAlive(pid) {
			t.Errorf("pid %d still running after down", pid)
		}
	}
	for _, p := range []string{stateFile, filepath.Join(cache, "clusters", "t1")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind after down: %v", p, err)
		}
	}
}
