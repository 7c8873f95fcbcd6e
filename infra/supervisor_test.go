//go:build linux

package infra

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A named cluster's supervisor is recognised by its command line, refuses
// a second start, and stops on SIGTERM; a pid that runs something else is
// no supervisor. A shell stands in for the harness.
func TestSupervisorAliveClearStaleStop(t *testing.T) {
	t.Setenv("SHAREBENCH_CACHE", t.TempDir())
	n, err := OpenNamedCluster("t")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenNamedCluster("../x"); err == nil {
		t.Error("a name with a slash was accepted")
	}
	cmd := exec.Command("/bin/sh", append([]string{"-c", "sleep 30; true"}, n.ServeArgs()...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := make(chan struct{})
	go func() { cmd.Wait(); close(reaped) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-reaped })

	if err := os.MkdirAll(n.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	st := ClusterState{Name: "t", Bootstrap: []string{"127.0.0.1:1"}, SupervisorPID: cmd.Process.Pid}
	if err := n.writeState(st); err != nil {
		t.Fatal(err)
	}
	if alive, doubt := n.SupervisorAlive(st); !alive || doubt != nil {
		t.Fatalf("supervisor: alive %v (%v), want alive for sure", alive, doubt)
	}
	if _, err := n.ClearStale(); err == nil || !strings.Contains(err.Error(), "already up") {
		t.Errorf("ClearStale with a live supervisor: %v, want a refusal", err)
	}
	other := st
	other.SupervisorPID = os.Getpid()
	if alive, _ := n.SupervisorAlive(other); alive {
		t.Error("this test process taken for the supervisor")
	}

	killed, err := n.StopSupervisor(context.Background(), st)
	if err != nil || killed {
		t.Fatalf("StopSupervisor: killed %v, %v; want a stop on SIGTERM", killed, err)
	}
	if alive, _ := ProcessAlive(st.SupervisorPID); alive {
		t.Error("supervisor alive after StopSupervisor")
	}
	if _, err := os.Stat(n.StateFile); !os.IsNotExist(err) {
		t.Errorf("state file left: %v", err)
	}
	// Gone: a stale state is removed and returned.
	b, _ := json.Marshal(st)
	if err := os.WriteFile(n.StateFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if stale, err := n.ClearStale(); err != nil || stale == nil || stale.SupervisorPID != st.SupervisorPID {
		t.Errorf("ClearStale after the supervisor died: %+v, %v", stale, err)
	}
	for _, pid := range []int{0, -1, 1 << 30} {
		if alive, err := ProcessAlive(pid); alive || err != nil {
			t.Errorf("ProcessAlive(%d) = %v, %v; want gone for sure", pid, alive, err)
		}
	}
}
