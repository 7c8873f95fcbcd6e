package infra

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestProcSurvivesStarterThreadExit checks the reason proc pins its
// goroutine: with Pdeathsig set, a child dies when the OS thread that forked
// it exits, and the Go runtime ends the thread of a goroutine that returns
// while locked to it. Here the caller of startProc is such a goroutine, and
// many more come and go afterwards; the child must live on.
func TestProcSurvivesStarterThreadExit(t *testing.T) {
	var p *proc
	for attempt := 0; p == nil; attempt++ {
		if attempt == 20 {
			t.Fatal("could not get a goroutine off the main thread")
		}
		started := make(chan *proc)
		go func() {
			runtime.LockOSThread() // never unlocked: the runtime ends this thread
			if syscall.Gettid() == syscall.Getpid() {
				started <- nil // the main thread never exits; try again
				return
			}
			p, err := startProc(exec.Command("sleep", "60"))
			if err != nil {
				t.Error(err)
			}
			started <- p
		}()
		p = <-started
		if t.Failed() {
			t.FailNow()
		}
	}
	defer func() {
		p.signal(syscall.SIGKILL)
		<-p.done
	}()
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			runtime.LockOSThread()
			time.Sleep(time.Millisecond)
		})
	}
	wg.Wait()
	time.Sleep(300 * time.Millisecond)
	if p.exited() {
		t.Fatalf("child died while the harness lived: %v", p.err)
	}
	if err := p.signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		t.Fatal("child ignored SIGTERM to its process group")
	}
	if !processGroupGone(p.pid()) {
		t.Errorf("process group %d still has members", p.pid())
	}
}

func processGroupGone(pgid int) bool {
	return syscall.Kill(-pgid, 0) == syscall.ESRCH
}

func TestTailBufferKeepsWholeLines(t *testing.T) {
	tb := &tailBuffer{max: 20}
	tb.Write([]byte("first line\nsecond line\nthird\n"))
	if got := tb.String(); got != "second line\nthird" {
		t.Errorf("tail %q, want %q", got, "second line\nthird")
	}
	tb = &tailBuffer{max: 100}
	tb.Write([]byte("a\nb\n"))
	if got := tb.String(); got != "a\nb" {
		t.Errorf("untruncated tail %q, want %q", got, "a\nb")
	}
}
