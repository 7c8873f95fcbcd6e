package consumers

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results"
)

// A client runner's members at a stall: what their frames told the
// harness (polls, delivered, completed, held = polled − completed −
// released − rejected), running members only, oldest first, each from the
// JVM that runs it; what stays in the runner is said.
func TestRunnerMemberStatesFromFrames(t *testing.T) {
	clock := results.NewClock()
	rec := results.NewRecorder(clock, 1, results.NewLedger(1, 10), results.NewSeries(clock.Now(), 60))
	j := &javaFleet{name: "java runner", rec: rec}
	own := &javaFleet{name: "java runner", rec: rec} // member 2 runs in a JVM of its own (a crash target)
	j.own = map[int]*javaFleet{2: own}
	for id, n := range map[int]int64{0: 5, 1: 7, 2: 11} {
		s := rec.MemberRecorder()
		s.Joined(id, clock.Now())
		s.Polls.Add(n)
		s.Polled.Add(10 * n)
		s.Delivered.Add(10 * n)
		s.Completed.Add(10*n - 3)
		s.Released.Add(1)
		s.Rejected.Add(1)
		j.owner(id).add(id, s)
	}
	j.active = []int{2, 0} // member 1 left
	f := &Fleet{java: j}
	got := f.MemberStates()
	if len(got) != 2 || got[0].ID != 2 || got[1].ID != 0 {
		t.Fatalf("states %+v, want members 2 then 0", got)
	}
	if s := got[0]; s.Polls != 11 || s.Delivered != 110 || s.Completed != 107 || s.Held != 1 {
		t.Errorf("member 2 (its own JVM): %+v, want polls 11, delivered 110, completed 107, held 110 − 107 − 1 − 1 = 1", s)
	}
	if s := got[1]; s.Polls != 5 || s.Delivered != 50 || s.Completed != 47 || s.Held != 1 {
		t.Errorf("member 0: %+v, want polls 5, delivered 50, completed 47, held 1", s)
	}
	if u := f.StatesUnavailable(); !strings.Contains(u, "java runner") || !strings.Contains(u, "busy workers and fetched records stay in the runner") {
		t.Errorf("StatesUnavailable %q", u)
	}
}

// RunnerProcesses lists the Java runner's JVMs that still run, each with
// the active members it runs: the fleet's own, then a member's JVM of its
// own; a JVM killed for a crash, one already reaped, a librdkafka runner
// and a franz-go fleet list nothing. Stand-in processes (sleep) play the
// JVMs.
func TestRunnerProcesses(t *testing.T) {
	start := func() *javaFleet {
		cmd := exec.Command("sleep", "30")
		if err := cmd.Start(); err != nil {
			t.Skip("no sleep to stand in for a JVM: ", err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return &javaFleet{name: "java runner", cmd: cmd, done: make(chan struct{})}
	}
	j, own, crashed, reaped := start(), start(), start(), start()
	crashed.crashKilled = true
	close(reaped.done)
	j.own = map[int]*javaFleet{2: own, 3: crashed, 4: reaped}
	j.active = []int{2, 0, 1, 3, 4}
	f := &Fleet{c: Config{Client: ClientJava}, java: j}
	got := f.RunnerProcesses()
	want := []RunnerProcess{{Name: "java runner", PID: j.cmd.Process.Pid, Members: []int{0, 1}},
		{Name: "java runner", PID: own.cmd.Process.Pid, Members: []int{2}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RunnerProcesses %+v, want %+v", got, want)
	}
	if u := f.StatesUnavailable(); !strings.Contains(u, "stall-threads-client-") {
		t.Errorf("StatesUnavailable %q: want it to point at the runner's thread dump", u)
	}
	f.c.Client = ClientLibrdkafka
	if got := f.RunnerProcesses(); got != nil {
		t.Errorf("librdkafka runner: %+v, want none (no JVM)", got)
	}
	if got := (&Fleet{}).RunnerProcesses(); got != nil {
		t.Errorf("franz-go: %+v, want none", got)
	}
}
