package collectors

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sharebench/sharebench/results"
)

// ReadProc's open files and goroutines follow what the test opens and
// starts: 5 more files read 5 more, 7 parked goroutines read at least 7
// more (the runtime may start its own meanwhile, never fewer).
func TestReadProcFilesAndGoroutines(t *testing.T) {
	before := ReadProc(nil)
	if before.OpenFiles < 3 { // stdin, stdout, stderr at least
		t.Fatalf("open files %d", before.OpenFiles)
	}
	dir := t.TempDir()
	var files []*os.File
	for i := range 5 {
		f, err := os.Create(filepath.Join(dir, string(rune('a'+i))))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 7 {
		wg.Add(1)
		go func() { defer wg.Done(); <-release }()
	}
	after := ReadProc(nil)
	close(release)
	wg.Wait()
	for _, f := range files {
		f.Close()
	}
	if got := after.OpenFiles - before.OpenFiles; got != 5 {
		t.Errorf("open files %d → %d: %d more, want 5", before.OpenFiles, after.OpenFiles, got)
	}
	if got := after.Goroutines - before.Goroutines; got < 7 {
		t.Errorf("goroutines %d → %d, want at least 7 more", before.Goroutines, after.Goroutines)
	}
	if closed := ReadProc(nil); closed.OpenFiles != before.OpenFiles {
		t.Errorf("after closing: %d open files, want %d", closed.OpenFiles, before.OpenFiles)
	}
}

// The sampler asks its Recorder at every reading and keeps the answer.
func TestProcSamplerAsksTheRecorder(t *testing.T) {
	mt := newManualTicker()
	p := NewProcSampler(func() []int { return nil }, 0)
	p.Tick = mt.Ticker
	n := int64(0)
	p.Recorder = func() results.RecorderHeld { n++; return results.RecorderHeld{Fixed: 100, IntervalLogs: n} }
	p.Start(context.Background())
	mt.tick(t, 2)
	p.Stop()
	ss := p.Samples()
	if len(ss) != 3 {
		t.Fatalf("%d samples, want 3", len(ss))
	}
	for i, s := range ss {
		if s.Recorder.Fixed != 100 || s.Recorder.IntervalLogs != int64(i+1) {
			t.Errorf("sample %d: %+v", i, s.Recorder)
		}
	}
}
