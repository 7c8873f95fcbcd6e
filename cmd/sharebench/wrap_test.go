package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrapWriter(t *testing.T) {
	var b strings.Builder
	w := newWrapWriter(&b, 20)
	long := "  one two three four five six seven eight nine"
	_, _ = w.Write([]byte("short line\n" + long + "\n" + strings.Repeat("x", 45) + "\nno newline"))
	w.Flush()
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		"short line",
		"  one two three four",
		"      five six seven",
		"      eight nine",
		strings.Repeat("x", 20),
		"    " + strings.Repeat("x", 16),
		"    " + strings.Repeat("x", 9),
		"no newline",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrapped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range got {
		if n := utf8.RuneCountInString(l); n > 20 {
			t.Errorf("line %q has %d characters, want ≤ 20", l, n)
		}
	}
	// Nothing is lost or reordered: only blanks and newlines change.
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	if squeeze(b.String()) != squeeze("short line"+long+strings.Repeat("x", 45)+"no newline") {
		t.Error("characters lost or reordered")
	}
}
