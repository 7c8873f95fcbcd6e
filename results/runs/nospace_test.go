package runs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
)

// fullAfter makes the file system look full to WriteFileAtomic after n
// files have been written (as a full disk answers a write: an
// *os.PathError on the temporary file wrapping errno), until the test ends.
func fullAfter(t *testing.T, n int, errno syscall.Errno) {
	t.Helper()
	orig := writeAll
	t.Cleanup(func() { writeAll = orig })
	writeAll = func(f *os.File, data []byte) error {
		if n > 0 {
			n--
			return orig(f, data)
		}
		if len(data) > 1 { // half of it made it, as on a real file system
			_, _ = f.Write(data[:len(data)/2])
		}
		return &os.PathError{Op: "write", Path: f.Name(), Err: errno}
	}
}

// A write that finds the file system full is a *NoSpaceError that names the
// file (not its temporary name), the bytes of the failed write and the
// system's reason; the old file stays as it was and no temporary file is
// left. No root, no small file system: the writer's error is injected.
func TestWriteFileAtomicNoSpace(t *testing.T) {
	for _, tc := range []struct {
		errno  syscall.Errno
		reason string
	}{
		{syscall.ENOSPC, "no space left on device"},
		{syscall.EDQUOT, "disk quota exceeded"},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "campaign.json")
			if err := WriteFileAtomic(path, []byte("old\n")); err != nil {
				t.Fatal(err)
			}
			fullAfter(t, 0, tc.errno)
			data := []byte(strings.Repeat("x", 5000))
			err := WriteFileAtomic(path, data)
			var ns *NoSpaceError
			if !errors.As(err, &ns) {
				t.Fatalf("error %v (%T), want a *NoSpaceError", err, err)
			}
			if ns.Path != path || ns.Bytes != 5000 || ns.Folder || !errors.Is(err, tc.errno) || !IsNoSpace(err) {
				t.Errorf("NoSpaceError %+v", ns)
			}
			free, ok := FreeBytes(dir)
			if ok && (ns.Free < 0 || uint64(ns.Free) > free+1<<20) {
				t.Errorf("free %d, the file system has %d", ns.Free, free)
			}
			msg := err.Error()
			for _, want := range []string{path + ": writing 5000 bytes (4.9 KiB) failed: " + tc.reason, "free on its file system"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
			if strings.Contains(msg, ".tmp-") {
				t.Errorf("message %q names the temporary file", msg)
			}
			if b, _ := os.ReadFile(path); string(b) != "old\n" {
				t.Errorf("the old file holds %q after the failed write", b)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("files left: %v", entries)
			}
		})
	}
}

// The message of a NoSpaceError: the path, the bytes exactly and in binary
// units, the reason, the free space when known; a folder that could not be
// created says so.
func TestNoSpaceErrorText(t *testing.T) {
	for _, tc := range []struct {
		e    NoSpaceError
		want string
	}{
		{NoSpaceError{Path: "/r/c/runs/r03/run.json", Bytes: 11070, Free: 0, Err: &os.PathError{Op: "write", Path: "/r/c/runs/r03/.run.json.tmp-1", Err: syscall.ENOSPC}},
			"/r/c/runs/r03/run.json: writing 11070 bytes (10.8 KiB) failed: no space left on device, 0 bytes free on its file system"},
		{NoSpaceError{Path: "/r/c/report.html", Bytes: 900, Free: -1, Err: syscall.EDQUOT},
			"/r/c/report.html: writing 900 bytes failed: disk quota exceeded"},
		{NoSpaceError{Path: "/r/c/runs/r03", Folder: true, Free: 3 << 20, Err: syscall.ENOSPC},
			"/r/c/runs/r03: creating the folder failed: no space left on device, 3145728 bytes (3.0 MiB) free on its file system"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
	for b, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1024: "1024 bytes (1.0 KiB)", 5 << 30: "5368709120 bytes (5.0 GiB)"} {
		if got := BytesText(b); got != want {
			t.Errorf("BytesText(%d) = %q, want %q", b, got, want)
		}
	}
}

// A run folder whose files do not fit is removed (it has no run.json and
// never will; its space goes back to campaign.json), and the error is the
// NoSpaceError of the file that failed. A folder that exists already is
// never removed.
func TestWriteRunDirNoSpaceRemovesTheFolder(t *testing.T) {
	runsDir := filepath.Join(t.TempDir(), "runs")
	rec := &Record{SchemaVersion: SchemaVersion, RunID: "r01", Spec: &scenarios.RunSpec{}}
	if err := WriteRunDir(filepath.Join(runsDir, "r01"), rec, fixtureMerged(10), results.NewSeries(0, 5)); err != nil {
		t.Fatal(err)
	}
	fullAfter(t, 2, syscall.ENOSPC) // two .hgrm files, then the disk is full
	dir := filepath.Join(runsDir, "r02")
	err := WriteRunDir(dir, rec, fixtureMerged(10), results.NewSeries(0, 5))
	var ns *NoSpaceError
	if !errors.As(err, &ns) || filepath.Dir(ns.Path) != dir || ns.Bytes <= 0 {
		t.Fatalf("error %v, want a NoSpaceError on a file of %s", err, dir)
	}
	if _, serr := os.Lstat(dir); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("the partial run folder is still there: %v", serr)
	}
	if _, err := ReadRun(filepath.Join(runsDir, "r01", "run.json")); err != nil {
		t.Errorf("the run written before: %v", err)
	}
	if err := WriteRunDir(filepath.Join(runsDir, "r01"), rec, fixtureMerged(10), results.NewSeries(0, 5)); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Fatalf("write over r01: %v", err)
	}
	if _, err := ReadRun(filepath.Join(runsDir, "r01", "run.json")); err != nil {
		t.Errorf("the run written before, after a write over it was refused: %v", err)
	}
}
