package envvars

import (
	"strings"
	"testing"
)

// Every harness variable carries the prefix and is listed once.
func TestHarnessNames(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range Harness {
		if !strings.HasPrefix(n, Prefix) || n == Prefix || strings.ToUpper(n) != n {
			t.Errorf("%q: want %s<UPPER_CASE>", n, Prefix)
		}
		if seen[n] {
			t.Errorf("%q listed twice", n)
		}
		seen[n] = true
	}
}
