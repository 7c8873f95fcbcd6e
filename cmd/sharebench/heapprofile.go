package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

// heapProfileEvery is --heap-profile's spacing: two profiles 5 minutes
// apart or more show what grew (go tool pprof -base).
const heapProfileEvery = 5 * time.Minute

// maxHeapProfiles bounds the files one campaign writes (83 hours at 5 min).
const maxHeapProfiles = 1000

// startHeapProfiles writes a heap profile of this process (after a
// garbage collection, so it holds what is live) into dir at once and every
// interval, named by their number and time since the start
// (heap-00-0s.pprof, heap-01-5m0s.pprof, …), and a last one
// (heap-end.pprof) when stopped. The files are pprof's: go tool pprof
// -sample_index=inuse_space -base dir/heap-01-5m0s.pprof dir/heap-end.pprof.
func startHeapProfiles(dir string, every time.Duration) (stop func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--heap-profile: %w", err)
	}
	write := func(name string) error {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		runtime.GC()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			_ = f.Close()
			return err
		}
		return f.Close()
	}
	if err := write("heap-00-0s.pprof"); err != nil {
		return nil, fmt.Errorf("--heap-profile %s: %w", dir, err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for n := 1; n < maxHeapProfiles; n++ {
			select {
			case <-done:
				return
			case <-t.C:
				_ = write(fmt.Sprintf("heap-%02d-%s.pprof", n, time.Duration(n)*every))
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			_ = write("heap-end.pprof")
		})
	}, nil
}
