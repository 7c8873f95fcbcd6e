package shard

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// deathHelperEnv makes the test binary act as a coordinator that starts
// agents and waits to be killed (TestLocalAgentsDieWithTheHarness).
const deathHelperEnv = "SHAREBENCH_TEST_AGENT_DEATH_HELPER"

// TestMain lets the test binary be that coordinator.
func TestMain(m *testing.M) {
	if bin := os.Getenv(deathHelperEnv); bin != "" {
		ag, err := (&Local{Binary: bin}).Start(context.Background(), AgentArgs{Bootstrap: []string{"127.0.0.1:1"}, ControlTopic: "c", ResultsTopic: "r", Shards: 2})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		for _, pid := range ag.(*localAgents).PIDs() {
			fmt.Println("agent", pid)
		}
		fmt.Println("ready")
		time.Sleep(5 * time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A coordinator killed with SIGKILL cannot stop its agents: the kernel
// does (Pdeathsig), so none outlives it.
func TestLocalAgentsDieWithTheHarness(t *testing.T) {
	bin := script(t, `exec sleep 300`)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), deathHelperEnv+"="+bin)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) == 2 && f[0] == "agent" {
			pid, _ := strconv.Atoi(f[1])
			pids = append(pids, pid)
		}
		if lines.Text() == "ready" {
			break
		}
	}
	if len(pids) != 2 {
		_ = cmd.Process.Kill()
		t.Fatalf("agent pids %v, want 2", pids)
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("agent %d not running before the kill", pid)
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for alive(pid) && !zombie(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(pid) && !zombie(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("agent %d outlived its coordinator's SIGKILL", pid)
		}
	}
}
