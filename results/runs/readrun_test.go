//go:build unix

package runs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ReadRun (autoscale render --run) reads what a user names through the
// loaders' bounded reader: /dev/zero, a FIFO nobody writes, a directory, a
// link or a file past the bound is refused at once, never read.
func TestReadRunBounded(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "run.json")
	if err := WriteJSON(good, fixtureRun("r01-share", "share", 0, 1000, 20)); err != nil {
		t.Fatal(err)
	}
	if r, err := ReadRun(good); err != nil || r.RunID != "r01-share" {
		t.Fatalf("a good run.json: %v %v", r.RunID, err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxRecordFileBytes + 1); err != nil { // sparse
		t.Fatal(err)
	}
	f.Close()
	link := filepath.Join(dir, "loop")
	if err := os.Symlink(link, link); err != nil {
		t.Fatal(err)
	}
	noRun := filepath.Join(dir, "norun.json")
	os.WriteFile(noRun, []byte(`{"schema_version": 1}`), 0o644)
	for path, want := range map[string]string{
		"/dev/zero": "not a regular file", fifo: "not a regular file", dir: "a directory",
		big: "larger than the 64 MiB", link: "a symbolic link", noRun: "not a run record (no run_id)",
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadRun(path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
				t.Errorf("ReadRun(%s) = %v, want an error naming it with %q", path, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadRun(%s) still blocked after 5 s", path)
		}
	}
}
