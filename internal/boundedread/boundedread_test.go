package boundedread

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file up to the bound is read whole; one byte more, a directory, or an
// endless source is refused without reading past the bound.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte(strings.Repeat("x", 2048)), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := File(p, 2048, "test file", "small"); err != nil || len(b) != 2048 {
		t.Errorf("at the bound: %d bytes, %v", len(b), err)
	}
	if _, err := File(p, 2047, "test file", "small"); err == nil || !strings.Contains(err.Error(), "larger than 1 KiB: a test file is small") {
		t.Errorf("over the bound: %v", err)
	}
	if _, err := File(dir, 2048, "test file", "small"); err == nil || !strings.Contains(err.Error(), "a directory: expected a test file") {
		t.Errorf("directory: %v", err)
	}
	if _, err := File("/dev/zero", 4096, "test file", "small"); err == nil {
		t.Error("/dev/zero: no error")
	}
}
