package infra

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// proc is a child process started and waited for from one goroutine locked
// to its OS thread.
//
// Why the lock: on Linux the JVMs are started with Pdeathsig=SIGKILL so that
// they die when the harness dies, even by SIGKILL. The kernel ties that
// signal to the *thread* that forked the child, not to the process: if that
// thread exits, the child is killed although the harness lives on. The Go
// runtime ends a thread when a goroutine locked to it returns without
// unlocking, so an unlucky scheduling could otherwise kill a healthy broker.
// Locking the starting goroutine to its thread for the child's whole life
// keeps that thread alive (the goroutine sits in Wait) and keeps every other
// goroutine off it. The cost is one parked OS thread per child.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the child has been reaped
	err  error         // Wait's result; read only after done is closed
}

// startProc starts cmd in its own process group, with the platform's
// parent-death signal where there is one (procAttr), and reaps it in the
// background. cmd.SysProcAttr is replaced; its Credential (the user a
// child runs as) is kept.
func startProc(cmd *exec.Cmd) (*proc, error) {
	var cred *syscall.Credential
	if cmd.SysProcAttr != nil {
		cred = cmd.SysProcAttr.Credential
	}
	cmd.SysProcAttr = procAttr()
	if cred != nil && cmd.SysProcAttr != nil {
		cmd.SysProcAttr.Credential = cred
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// Unlocking only after Wait returns: the child is gone by then, so
		// the thread may serve other goroutines again.
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// pid is the child's process id (also its process group id).
func (p *proc) pid() int { return p.cmd.Process.Pid }

// exited reports whether the child has been reaped.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the child's process group unless the child has been
// reaped already (its pid could then belong to someone else).
func (p *proc) signal(sig syscall.Signal) error {
	if p.exited() {
		return nil
	}
	if err := signalGroup(p.pid(), sig); err != nil && err != syscall.ESRCH {
		return fmt.Errorf("pid %d: signal %v: %w", p.pid(), sig, err)
	}
	return nil
}

// runTool runs a short-lived command to completion with the same process
// hygiene as a broker, killing it if ctx ends first. Combined output goes
// to out (which may be nil).
func runTool(ctx context.Context, cmd *exec.Cmd, out io.Writer) error {
	if out == nil {
		out = io.Discard
	}
	cmd.Stdout, cmd.Stderr = out, out
	p, err := startProc(cmd)
	if err != nil {
		return err
	}
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		_ = p.signal(syscall.SIGKILL)
		<-p.done
		return context.Cause(ctx)
	}
}

// tailBuffer is an io.Writer that keeps the last max bytes written, for
// error messages quoting a tool's output.
// It is not safe for concurrent use; exec.Cmd writes to it from one
// goroutine when Stdout and Stderr are the same writer.
type tailBuffer struct {
	max       int
	buf       []byte
	truncated bool
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.truncated = true
	}
	return len(b), nil
}

// String returns the kept output from its first complete line on.
func (t *tailBuffer) String() string {
	return string(bytes.TrimSpace(fromLineStart(t.buf, t.truncated)))
}

// fromLineStart drops a partial first line when the text was truncated.
func fromLineStart(b []byte, truncated bool) []byte {
	if !truncated {
		return b
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 && i+1 < len(b) {
		return b[i+1:]
	}
	return b
}

// fileTail returns about the last n bytes of the file at path, from a line
// start, or a note saying why it cannot.
func fileTail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Sprintf("(log unreadable: %v)", err)
	}
	off := max(st.Size()-n, 0)
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
		return fmt.Sprintf("(log unreadable: %v)", err)
	}
	return string(bytes.TrimSpace(fromLineStart(b, off > 0)))
}
