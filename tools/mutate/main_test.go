package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Constants returned beside a non-nil error are not mutated; the same
// constants beside nil, or outside a return, are.
func TestMutantsSkipErrorReturnConstants(t *testing.T) {
	src := `package p

import (
	"errors"
	"fmt"
)

func f(x int) (int, int, error) {
	if x == 0 {
		return 0, -1, errors.New("zero")
	}
	v, err := g(x)
	if err != nil {
		return 0, 0, err
	}
	if v > 7 {
		return 5, 0, fmt.Errorf("big %d", v)
	}
	return 3, 4, nil
}

func g(x int) (int, error) { return x + 2, nil }
`
	file := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var consts []string
	for _, m := range mutants(file, nil) {
		if strings.HasPrefix(m.desc, "constant ") {
			consts = append(consts, m.desc)
		}
	}
	// x == 0, v > 7, return 3, 4, nil and x + 2: mutated; the returns beside
	// errors.New, err and fmt.Errorf: not.
	want := []string{"constant 0 → 1", "constant 7 → 8", "constant 3 → 4", "constant 4 → 5", "constant 2 → 3"}
	if strings.Join(consts, "; ") != strings.Join(want, "; ") {
		t.Errorf("constant mutants %v, want %v", consts, want)
	}
}
