package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// --heap-profile writes a first profile at once, one per interval, and a
// last one at the stop; each parses as a pprof heap profile.
func TestHeapProfilesWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "heap")
	stop, err := startHeapProfiles(dir, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		m, _ := filepath.Glob(filepath.Join(dir, "heap-[0-9]*.pprof"))
		if len(m) >= 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	stop() // twice is fine
	names, _ := filepath.Glob(filepath.Join(dir, "*.pprof"))
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	if !slices.Contains(names, "heap-00-0s.pprof") || !slices.Contains(names, "heap-01-50ms.pprof") || !slices.Contains(names, "heap-end.pprof") || len(names) < 3 {
		t.Fatalf("profiles %v", names)
	}
	f, err := os.Open(filepath.Join(dir, "heap-end.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(p.SampleType, func(st *profile.ValueType) bool { return st.Type == "inuse_space" }) {
		t.Errorf("sample types %v: not a heap profile", p.SampleType)
	}
}
