package consumers

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"time"
)

// How the Java runner ends when it does not end cleanly, said specifically
// (run.json's client_close_timeout and client_killed flags) rather than as
// an exit status.

// javaExitCloseTimeout is the runner's exit status when a member did not
// close its client within the close timeout (Main.EXIT_CLOSE_TIMEOUT).
const javaExitCloseTimeout = 4

// javaKillMargin is how long past the close timeout the harness waits for
// a stopped runner before it kills it; the runner gives up on its members
// 2 s past the close timeout (Main.CLOSE_MARGIN_NS), well before.
const javaKillMargin = 15 * time.Second

// ExitReason is why a client runner process ended other than by a clean
// stop.
type ExitReason int

const (
	// ExitCloseTimeout: members did not close their clients within the
	// close timeout; the runner named them and exited.
	ExitCloseTimeout ExitReason = iota + 1
	// ExitKilledAfterStop: the runner had not exited within the close
	// timeout and javaKillMargin after it was told to stop; the harness
	// killed it.
	ExitKilledAfterStop
	// ExitKilled: a signal the harness did not send ended the runner (the
	// kernel's OOM killer, another process).
	ExitKilled
)

// RunnerExit is a client runner's end that the run reports under a flag of
// its own (not a generic error).
type RunnerExit struct {
	Reason       ExitReason
	Client       Client
	Signal       string        // the signal that ended it (ExitKilled, ExitKilledAfterStop)
	CloseTimeout time.Duration // the members' close timeout
	Grace        time.Duration // how long the harness waited after stop (ExitKilledAfterStop)
	Detail       string        // ": the last lines of its stderr", or ""
}

func (e *RunnerExit) Error() string {
	switch e.Reason {
	case ExitCloseTimeout:
		return fmt.Sprintf("%s runner: members did not close their clients within the close timeout %v; the runner gave up on them "+
			"and exited (code %d)%s", e.Client, e.CloseTimeout, javaExitCloseTimeout, e.Detail)
	case ExitKilledAfterStop:
		return fmt.Sprintf("%s runner had not exited %v after it was told to stop (close timeout %v + %v): the harness killed it%s",
			e.Client, e.Grace, e.CloseTimeout, e.Grace-e.CloseTimeout, e.Detail)
	default:
		return fmt.Sprintf("%s runner was killed by signal %s, which the harness did not send (the kernel's OOM killer, or another "+
			"process)%s", e.Client, e.Signal, e.Detail)
	}
}

// CloseTimeoutExceeded reports whether the runner failed to close within the close
// timeout (the flag client_close_timeout), as opposed to killed from
// outside (client_killed).
func (e *RunnerExit) CloseTimeoutExceeded() bool { return e.Reason != ExitKilled }

// AsRunnerExit finds a RunnerExit in err's chain.
func AsRunnerExit(err error) (*RunnerExit, bool) {
	var e *RunnerExit
	ok := errors.As(err, &e)
	return e, ok
}

// javaExit is what the harness knows when the runner's process was reaped.
type javaExit struct {
	state        *os.ProcessState
	waitErr      error
	stopping     bool          // the harness had asked it to stop (or killed it)
	killed       bool          // the harness killed it (after stop, or on a broken start or event stream)
	crashed      bool          // the harness killed it for a crash event (a JVM of its own): not an error
	killedAfter  time.Duration // > 0: the harness killed it this long after stop
	closeTimeout time.Duration
	stderr       string // ": the last lines of its stderr", or ""
	client       Client // the runner's client (java when unset)
}

// exitError is why the runner ended, nil after a clean stop.
func (x javaExit) exitError() error {
	code := -1
	if x.state != nil {
		code = x.state.ExitCode()
	}
	sig := exitSignal(x.state)
	client := cmp.Or(x.client, ClientJava)
	base := RunnerExit{Client: client, Signal: sig, CloseTimeout: x.closeTimeout, Detail: x.stderr}
	switch {
	case x.crashed:
		return nil
	case x.killedAfter > 0:
		base.Reason, base.Grace = ExitKilledAfterStop, x.killedAfter
		return &base
	case code == javaExitCloseTimeout:
		base.Reason = ExitCloseTimeout
		return &base
	case sig != "" && !x.killed:
		base.Reason = ExitKilled
		return &base
	case x.waitErr != nil || code != 0:
		return fmt.Errorf("%s runner exited with code %d (%v)%s", client, code, x.waitErr, x.stderr)
	case !x.stopping:
		return fmt.Errorf("%s runner exited with code 0 before it was stopped%s", client, x.stderr)
	}
	return nil
}
