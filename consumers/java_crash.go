package consumers

import (
	"context"
	"fmt"
	"os/exec"

	"golang.org/x/sync/errgroup"

	"github.com/sharebench/sharebench/results"
)

// A crash in production kills the consumer's process: its connections
// close, nothing more reaches the broker, and the broker notices by
// timeouts (the session timeout, the share group's session timeout and
// acquisition locks). A member crashed inside the shared runner JVM only
// freezes its poll thread: the Java client's background thread keeps
// heartbeating, so the broker keeps it as a member. The members a run's
// crash events take (Config.OwnJVM) therefore each run in a JVM of their
// own, started with the fleet, which Crash SIGKILLs. The librdkafka runner
// is the same: librdkafka's threads keep a frozen member's heartbeats (and,
// for a consumer group, its max.poll.interval.ms leave) going, so its
// crashed members run in a Python process of their own, killed the same
// way.

// ownJVMs are the JVMs startOwn started, by member id, and why one failed.
type ownJVMs struct {
	jvms map[int]*javaFleet
	err  error
}

// startOwn starts one runner process (a JVM, or a Python process for
// librdkafka), with no member yet, for each of c.OwnJVM; each member joins
// its own when Join reaches its id. name is the fleet runner's ("java
// runner"). On error the processes that did start are returned too, for
// the caller to kill.
func startOwn(ctx context.Context, c Config, rec *results.Recorder, rebal *rebalanceWatch, name string, command func(cfgFile string) *exec.Cmd) ownJVMs {
	own := make([]*javaFleet, len(c.OwnJVM))
	var g errgroup.Group
	for i, id := range c.OwnJVM {
		g.Go(func() error {
			o, err := startRunnerProc(ctx, c, rec, rebal, fmt.Sprintf("%s of member %d", name, id), command, false)
			if err != nil {
				return fmt.Errorf("%s of member %d (a process of its own, for its crash): %w", name, id, err)
			}
			own[i] = o
			return nil
		})
	}
	out := ownJVMs{jvms: map[int]*javaFleet{}, err: g.Wait()}
	for i, o := range own {
		if o != nil {
			out.jvms[c.OwnJVM[i]] = o
		}
	}
	return out
}

// crashKill SIGKILLs this JVM (its process group) on purpose and waits until
// it is reaped; its end is not an error.
func (j *javaFleet) crashKill() {
	j.mu.Lock()
	j.killed, j.crashKilled = true, true
	j.mu.Unlock()
	j.kill()
}

// OwnJVMPids are the process ids of the JVMs of their own (Config.OwnJVM),
// by member id: what a crash kills (for tests).
func (f *Fleet) OwnJVMPids() map[int]int {
	if f.java == nil {
		return nil
	}
	out := map[int]int{}
	for id, o := range f.java.own {
		out[id] = o.cmd.Process.Pid
	}
	return out
}
