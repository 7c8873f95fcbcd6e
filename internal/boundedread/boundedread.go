// Package boundedread reads the small files a user names (a scenario file,
// a connection file) under a size bound, reading at most one byte beyond
// it from anything, so a wrong path (/dev/zero, a FIFO someone keeps
// writing, a large file) fails at once instead of exhausting memory, and
// opening without blocking, so a FIFO nobody writes reads as empty instead
// of hanging the command.
//
// boundedread imports the standard library only.
package boundedread

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// File reads path, which must not be a directory, if it holds at most max
// bytes. kind names the file in messages ("scenario file"), typical says
// what one usually holds ("a few KiB of YAML").
func File(path string, max int, kind, typical string) ([]byte, error) {
	// O_NONBLOCK: open(2) of a FIFO waits for a writer, in the kernel,
	// deaf to the signals that would interrupt the command.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: a directory: expected a %s", path, kind)
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) == 0 && st.Mode()&os.ModeNamedPipe != 0 {
		return nil, fmt.Errorf("%s: a named pipe (FIFO) nobody writes: expected a %s", path, kind)
	}
	if len(b) > max {
		return nil, fmt.Errorf("%s: larger than %d KiB: a %s is %s; is this the right file?", path, max>>10, kind, typical)
	}
	return b, nil
}
