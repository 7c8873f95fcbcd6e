package main

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// wrapWriter writes each line of at most width characters as it is and
// wraps a longer one at its last blank within the width, continuing it
// indented by four blanks more than the line itself (a word longer than
// the width is cut). Complete lines are written at once; a line without
// its newline waits for it, or for Flush.
type wrapWriter struct {
	mu      sync.Mutex // the campaign's log is written from several goroutines
	out     io.Writer
	width   int
	pending []byte
}

func newWrapWriter(out io.Writer, width int) *wrapWriter { return &wrapWriter{out: out, width: width} }

func (w *wrapWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, p...)
	for {
		i := bytes.IndexByte(w.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(w.pending[:i])
		w.pending = w.pending[i+1:]
		if _, err := io.WriteString(w.out, wrapLine(line, w.width)); err != nil {
			return len(p), err
		}
	}
}

// Flush writes a last line that had no newline.
func (w *wrapWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) > 0 {
		_, _ = io.WriteString(w.out, wrapLine(string(w.pending), w.width))
		w.pending = nil
	}
}

// wrapLine is line wrapped to width, every piece ending in a newline.
func wrapLine(line string, width int) string {
	if utf8.RuneCountInString(line) <= width {
		return line + "\n"
	}
	indent := line[:len(line)-len(strings.TrimLeft(line, " "))] + "    "
	if len(indent) >= width/2 {
		indent = "    "
	}
	var b strings.Builder
	rest, prefix := line, ""
	for utf8.RuneCountInString(prefix+rest) > width {
		r := []rune(rest)
		room := width - utf8.RuneCountInString(prefix)
		cut := room
		for j := room; j > 0; j-- {
			if r[j] == ' ' {
				cut = j
				break
			}
		}
		b.WriteString(prefix + strings.TrimRight(string(r[:cut]), " ") + "\n")
		rest, prefix = strings.TrimLeft(string(r[cut:]), " "), indent
	}
	b.WriteString(prefix + rest + "\n")
	return b.String()
}
