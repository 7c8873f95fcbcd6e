//go:build unix

package infra

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// quitPrinter starts a process that, like a JVM, appends a "thread dump"
// to logPath on each SIGQUIT (printQuit) or ignores it; the test's cleanup
// kills it.
func quitPrinter(t *testing.T, logPath string, printQuit bool) int {
	t.Helper()
	if err := os.WriteFile(logPath, []byte("broker log before the dump\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	trap := `trap '' QUIT`
	if printQuit {
		trap = `trap 'echo "Full thread dump (pid $$)" >> "$LOG"' QUIT`
	}
	cmd := exec.Command("sh", "-c", trap+`; echo ready >&2; while :; do sleep 0.1; done`)
	cmd.Env = append(os.Environ(), "LOG="+logPath)
	ready, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if _, err := ready.Read(make([]byte, 6)); err != nil { // the trap is set
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// When jcmd fails (here: no jcmd at that path), the dump falls back to
// SIGQUIT and keeps only what the process appended to its log after the
// signal, saying why jcmd did not serve; when the process prints nothing
// either, the dump is unavailable with both reasons.
func TestThreadDumpFallsBackToSIGQUIT(t *testing.T) {
	dir := t.TempDir()
	noJcmd := filepath.Join(dir, "no-such-jcmd")
	// Both wait out dumpBySignal's 3 s, so they run side by side.
	t.Run("printed", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		log := filepath.Join(dir, "broker-1.log")
		d := dumpProcess(ctx, noJcmd, ThreadDump{Node: 1, PID: quitPrinter(t, log, true)}, log)
		if d.Method != DumpSignal || !strings.HasPrefix(d.Err, "jcmd: ") {
			t.Fatalf("dump %+v: want method %q with the jcmd error kept", d, DumpSignal)
		}
		if want := "Full thread dump (pid "; !strings.Contains(d.Text, want) || strings.Contains(d.Text, "before the dump") {
			t.Errorf("dump text %q: want only what was appended after the signal, containing %q", d.Text, want)
		}
	})
	t.Run("silent", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		log := filepath.Join(dir, "broker-2.log")
		d := dumpProcess(ctx, noJcmd, ThreadDump{Node: 2, PID: quitPrinter(t, log, false)}, log)
		if d.Method != DumpUnavailable || !strings.Contains(d.Err, "jcmd: ") ||
			!strings.Contains(d.Err, "SIGQUIT: nothing appended to broker-2.log within 3s") || d.Text != "" {
			t.Errorf("dump %+v: want unavailable, naming both failures", d)
		}
	})
}

// A client runner's JVM is dumped by jcmd alone: when jcmd fails (here: no
// jcmd at that path) the dump is unavailable, says why, and no SIGQUIT is
// sent, since the runner's JVM would print it into its frame stream (the
// stand-in appends to its log on SIGQUIT: the log must stay as it was).
func TestClientThreadDumpSendsNoSIGQUIT(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runner.log")
	pid := quitPrinter(t, log, true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := clientThreadDump(ctx, filepath.Join(dir, "no-such-jcmd"), pid)
	if d.Method != DumpUnavailable || d.PID != pid || d.Text != "" ||
		!strings.HasPrefix(d.Err, "jcmd: ") || !strings.Contains(d.Err, "no SIGQUIT") {
		t.Errorf("dump %+v: want unavailable for pid %d, with jcmd's error and why there is no SIGQUIT", d, pid)
	}
	time.Sleep(300 * time.Millisecond) // the stand-in's trap would have run by now
	if b, _ := os.ReadFile(log); string(b) != "broker log before the dump\n" {
		t.Errorf("the stand-in's log changed: %q (a SIGQUIT was sent)", b)
	}
}
