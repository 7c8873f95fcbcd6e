//go:build unix

package boundedread

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO nobody writes is refused at once (open(2) without O_NONBLOCK
// waits for a writer forever).
func TestFileFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := File(fifo, 4096, "test file", "small")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), fifo+": a named pipe (FIFO) nobody writes: expected a test file") {
			t.Errorf("a FIFO nobody writes: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("File on a FIFO nobody writes still blocked after 5 s")
	}
}
