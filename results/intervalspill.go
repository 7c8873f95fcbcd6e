package results

import (
	"io"
	"os"
)

// An interval log's encoded text grows a line a second for the whole run
// (docs/how-to/run-long-campaigns.md#soak: 2.7 MB an hour a log at 500 records/s), and
// in one bytes.Buffer it grew by doubling: a 30-minute soak's RSS rose 16 %
// in steps that were the logs' buffers doubling. So the text moves, once
// spillBytes of it are written, to a temporary file that is unlinked at
// once (it needs no clean-up, even after SIGKILL: the kernel frees it with
// the last descriptor, which the os.File's finalizer closes once the log is
// unreachable), and the buffer starts again at its capacity: the log holds
// at most spillBytes and a line in memory, whatever the run's length. When
// no such file can be made (no writable $TMPDIR, an OS that cannot unlink
// an open file) the text stays in memory, as before.

// spillBytes is how much encoded text a log keeps in memory before it
// moves it to its file (a variable for the tests).
var spillBytes = 64 << 10

// spillFile is the unlinked file a log's older text went to; size is the
// bytes written to it.
type spillFile struct {
	f    *os.File
	size int64
}

// newSpillFile makes an unlinked temporary file; nil when it cannot.
func newSpillFile() *spillFile {
	f, err := os.CreateTemp("", "sharebench-hlog-")
	if err != nil {
		return nil
	}
	if err := os.Remove(f.Name()); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil
	}
	return &spillFile{f: f}
}

// spillLocked moves the buffer's text to the log's file once it holds
// spillBytes; the caller holds l.mu, after writing an interval. A failed write keeps the text in
// memory (nothing is lost) and stops spilling.
//
// The file is made with the log's first interval, not when the text first
// reaches spillBytes: a slow run takes minutes to write 64 KiB, and its
// descriptor appearing then would read as growth of the harness's open
// files (run.json harness).
func (l *IntervalLog) spillLocked() {
	if l.noSpill {
		return
	}
	if l.spill == nil {
		if l.spill = newSpillFile(); l.spill == nil {
			l.noSpill = true
			return
		}
	}
	if l.buf.Len() < spillBytes {
		return
	}
	n, err := l.spill.f.WriteAt(l.buf.Bytes(), l.spill.size)
	l.spill.size += int64(n)
	if err != nil {
		// What was written stays in the file; the rest stays in memory.
		l.buf.Next(n)
		l.noSpill = true
		return
	}
	l.buf.Reset()
}

// textLocked is the whole encoded text: the file's part, then the
// buffer's. The caller holds l.mu.
func (l *IntervalLog) textLocked() ([]byte, error) {
	if l.spill == nil {
		return l.buf.Bytes(), nil
	}
	out := make([]byte, l.spill.size, l.spill.size+int64(l.buf.Len()))
	if _, err := l.spill.f.ReadAt(out, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return append(out, l.buf.Bytes()...), nil
}
