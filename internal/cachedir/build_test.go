package cachedir

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// marked is a build that is complete when it holds the file "done".
func marked(dir string, fill func(tmp string) error) Build {
	return Build{Dir: dir, What: "test build",
		Complete: func(d string) bool { return Exists(filepath.Join(d, "done")) },
		Fill:     fill}
}

func writeDone(tmp string) error { return os.WriteFile(filepath.Join(tmp, "done"), nil, 0o644) }

// entries lists root's names.
func entries(t *testing.T, root string) []string {
	t.Helper()
	es, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestBuildOnceThenReuse(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "thing-1.0")
	fills := 0
	b := marked(dir, func(tmp string) error {
		fills++
		if !strings.HasPrefix(filepath.Base(tmp), "thing-1.0.tmp-") || filepath.Dir(tmp) != root {
			t.Errorf("built in %s, want a thing-1.0.tmp-* beside %s", tmp, dir)
		}
		return writeDone(tmp)
	})
	for i, want := range []bool{true, false} {
		built, err := b.Ensure()
		if err != nil || built != want {
			t.Fatalf("call %d: built %v, %v; want %v", i+1, built, err, want)
		}
	}
	if fills != 1 || !Exists(filepath.Join(dir, "done")) {
		t.Fatalf("%d fills, done file there: %v; want 1 and true", fills, Exists(filepath.Join(dir, "done")))
	}
	if got := entries(t, root); !slices.Equal(got, []string{"thing-1.0"}) {
		t.Errorf("cache holds %v, want only thing-1.0", got)
	}
}

// A failed build, and one that claims success without what Complete
// checks, leave nothing behind; the cache root is created on the way.
func TestBuildFailureLeavesNothing(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	boom := errors.New("maven failed")
	_, err := marked(filepath.Join(root, "x"), func(tmp string) error {
		os.WriteFile(filepath.Join(tmp, "half.jar"), nil, 0o644)
		return boom
	}).Ensure()
	if !errors.Is(err, boom) || err.Error() != "maven failed" {
		t.Fatalf("error %v, want Fill's own", err)
	}
	_, err = marked(filepath.Join(root, "x"), func(tmp string) error { return nil }).Ensure()
	if err == nil || !strings.Contains(err.Error(), "test build: the build in ") || !strings.Contains(err.Error(), "finished incomplete") {
		t.Fatalf("an incomplete build: error %v", err)
	}
	if got := entries(t, root); len(got) != 0 {
		t.Errorf("cache holds %v after failed builds, want nothing", got)
	}
}

// A directory without the completion mark (written by something else, or
// an older layout) is replaced by the build.
func TestBuildReplacesIncomplete(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "x")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "stale.jar"), nil, 0o644)
	built, err := marked(dir, writeDone).Ensure()
	if err != nil || !built {
		t.Fatalf("built %v, %v", built, err)
	}
	if Exists(filepath.Join(dir, "stale.jar")) || !Exists(filepath.Join(dir, "done")) {
		t.Error("the incomplete directory was not replaced")
	}
}

// When another process finishes the same build first, its directory is
// kept and this build's is removed.
func TestBuildConcurrentFinishKeepsTheirs(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "x")
	built, err := marked(dir, func(tmp string) error {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "theirs"), nil, 0o644)
		writeDone(dir)
		return writeDone(tmp)
	}).Ensure()
	if err != nil || built {
		t.Fatalf("built %v, %v; want false, nil (theirs kept)", built, err)
	}
	if !Exists(filepath.Join(dir, "theirs")) {
		t.Error("the other process's build was replaced")
	}
	if got := entries(t, root); !slices.Equal(got, []string{"x"}) {
		t.Errorf("cache holds %v, want only x", got)
	}
}

// Temporary directories of a build killed hard are removed once older than
// StaleAfter; a younger one (a concurrent build) stays.
func TestBuildRemovesStaleTemps(t *testing.T) {
	root := t.TempDir()
	old, young, other := filepath.Join(root, "x.tmp-old"), filepath.Join(root, "x.tmp-young"), filepath.Join(root, "y.tmp-old")
	for _, d := range []string{old, young, other} {
		os.MkdirAll(d, 0o755)
	}
	past := time.Now().Add(-StaleAfter - time.Minute)
	os.Chtimes(old, past, past)
	os.Chtimes(other, past, past)
	if _, err := marked(filepath.Join(root, "x"), writeDone).Ensure(); err != nil {
		t.Fatal(err)
	}
	if Exists(old) || !Exists(young) || !Exists(other) {
		t.Errorf("after the build: old %v young %v other build's %v; want false true true", Exists(old), Exists(young), Exists(other))
	}
}
