package tail

import (
	"strings"
	"testing"
)

func TestWriterKeepsTheEnd(t *testing.T) {
	w := New(5)
	for _, s := range []string{"abc", "defg", "h"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := w.String(); got != "efgh"[0:0]+"defgh" {
		t.Fatalf("kept %q, want the last 5 bytes %q", got, "defgh")
	}
	w = New(100)
	w.Write([]byte("  exit 3\n"))
	if got := w.Trimmed(); got != "exit 3" {
		t.Fatalf("Trimmed = %q", got)
	}
	if strings.Contains(New(4).String(), "x") {
		t.Fatal("an empty writer kept something")
	}
}
