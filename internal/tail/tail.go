package tail

import (
	"strings"
	"sync"
)

// Writer keeps the last Max bytes written to it; safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

// New returns a Writer that keeps the last max bytes.
func New(max int) *Writer { return &Writer{max: max} }

func (t *Writer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// String is what was kept.
func (t *Writer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// Trimmed is what was kept without surrounding white space.
func (t *Writer) Trimmed() string { return strings.TrimSpace(t.String()) }
