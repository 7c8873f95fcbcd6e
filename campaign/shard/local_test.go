//go:build unix

package shard

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// An agent that fails reports its shard, its exit code and its output's
// tail; one that succeeds reports no error; the channel closes after both.
func TestLocalExitedReportsCodeAndTail(t *testing.T) {
	bin := script(t, `for a in "$@"; do if [ "$prev" = --shard ]; then s=$a; fi; prev=$a; done
echo "agent $s starting: $*" >&2
if [ "$s" = 1 ]; then echo "shard one broke" >&2; exit 3; fi
exit 0`)
	l := &Local{Binary: bin}
	ag, err := l.Start(context.Background(), AgentArgs{Bootstrap: []string{"127.0.0.1:1"}, ControlTopic: "c", ResultsTopic: "r", Shards: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]Exit{}
	for e := range ag.Exited() {
		got[e.Shard] = e
	}
	if len(got) != 2 {
		t.Fatalf("exits %v, want 2", got)
	}
	if got[0].Err != nil {
		t.Errorf("shard 0 exited 0, reported %v", got[0].Err)
	}
	e := got[1]
	if e.Err == nil || !strings.Contains(e.Err.Error(), "shard 1") || !strings.Contains(e.Err.Error(), "exit status 3") {
		t.Errorf("shard 1: error %v, want shard 1 and exit status 3", e.Err)
	}
	if !strings.Contains(e.Output, "shard one broke") || !strings.Contains(e.Output, "--control-topic c") {
		t.Errorf("shard 1 output %q, want its stderr with its arguments", e.Output)
	}
	if err := ag.Stop(context.Background()); err != nil {
		t.Errorf("Stop after every exit: %v", err)
	}
}

// Stop ends agents that ignore SIGTERM (SIGKILL after the grace period)
// and the children they started, leaving no process.
func TestLocalStopKillsEverything(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child")
	bin := script(t, `trap '' TERM
sleep 300 &
echo $! >> `+pidFile+`
wait`)
	l := &Local{Binary: bin, Grace: 200 * time.Millisecond}
	ag, err := l.Start(context.Background(), AgentArgs{Bootstrap: []string{"x"}, ControlTopic: "c", ResultsTopic: "r", Shards: 2})
	if err != nil {
		t.Fatal(err)
	}
	pids := ag.(*localAgents).PIDs()
	var children []string
	for deadline := time.Now().Add(10 * time.Second); len(children) < 2 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		children = strings.Fields(string(b))
	}
	if len(children) < 2 {
		t.Fatalf("the agents did not start their children: %q", children)
	}
	if err := ag.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, p := range pids {
		if alive(p) {
			t.Errorf("agent pid %d still running after Stop", p)
		}
	}
	for _, c := range children {
		pid, _ := strconv.Atoi(c)
		// A killed child not yet reaped by init may linger as a zombie
		// for a moment; it must be gone or dead.
		for deadline := time.Now().Add(5 * time.Second); alive(pid) && !zombie(pid) && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) && !zombie(pid) {
			t.Errorf("child pid %d of an agent still running after Stop", pid)
		}
	}
	n := 0
	for e := range ag.Exited() {
		n++
		if e.Err == nil {
			t.Errorf("shard %d killed, reported a clean exit", e.Shard)
		}
	}
	if n != 2 {
		t.Errorf("%d exits, want 2", n)
	}
}

func zombie(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] == "Z"
}
