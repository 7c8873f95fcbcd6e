package campaign

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
)

func TestRunFootprintRecordsAndSeconds(t *testing.T) {
	sc, err := scenarios.LoadBytes("t.yaml", []byte("name: t\nconsumer_type: share\nrate: 1000\nproducers: 2\nwarmup: 5s\nduration: 20s\ndrain_timeout: 30s\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := RunFootprint(sc.Runs[0])
	if err != nil {
		t.Fatal(err)
	}
	// 500 records/s per producer over 25 s: 12,500 each, 25,000 in all.
	if f.Records != 25000 {
		t.Errorf("records = %d, want 25000 (1000/s × 25 s)", f.Records)
	}
	// group ready 60 s + warm-up 5 + window 20 + drain 30 + 60 s slack.
	if f.Seconds != 175 {
		t.Errorf("seconds = %d, want 175", f.Seconds)
	}
	if want := results.LedgerBytes(2, 12500); f.LedgerBytes != want {
		t.Errorf("ledger = %d, want %d", f.LedgerBytes, want)
	}
	if f.Total < f.LedgerBytes+f.SeriesBytes+f.HistogramBytes+f.ClientBytes-1 {
		t.Errorf("total %d is not the sum of its parts", f.Total)
	}
}

func TestBacklogFootprint(t *testing.T) {
	sc, err := scenarios.LoadBytes("t.yaml", []byte("name: t\nconsumer_type: consumer\nload_mode: backlog\nbacklog_records: 1000000\nproducers: 4\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := RunFootprint(sc.Runs[0])
	if err != nil {
		t.Fatal(err)
	}
	if f.Records != 1_000_000 {
		t.Errorf("records = %d, want 1,000,000", f.Records)
	}
}

// Values the validator accepts must be refused by the budget, not crash
// the harness with out-of-memory later.
func TestCheckBudgetRefusesHugeRuns(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, part string
		budget           uint64
		budgetText       string
	}{
		{"huge rate", "rate: 5000000\nduration: 100h\n", "ledger", 16 << 30, "16.0 GiB"},
		{"huge backlog", "load_mode: backlog\nbacklog_records: 9000000000\n", "ledger", 2 << 30, "2.0 GiB"},
		{"huge members", "consumer_type: share\nmembers: 1000\nworkers: 10000\nbroker_config: {group.share.max.size: 1000}\n", "goroutines", 16 << 30, "16.0 GiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenarios.LoadBytes("big.yaml", []byte("name: big\n"+tc.yaml), nil, nil)
			if err != nil {
				t.Skipf("refused by validation already: %v", err)
			}
			err = CheckBudget(sc, tc.budget)
			if err == nil || !strings.Contains(err.Error(), "over the budget of "+tc.budgetText) || !strings.Contains(err.Error(), tc.part) {
				t.Fatalf("CheckBudget = %v, want a refusal naming the budget and %s", err, tc.part)
			}
			if !strings.Contains(err.Error(), "big.yaml") {
				t.Errorf("error does not name the file: %v", err)
			}
			// It names where the budget comes from, never a flag no command has.
			if strings.Contains(err.Error(), "--memory-budget") || !strings.Contains(err.Error(), "half of this host's physical memory") {
				t.Errorf("error misstates the budget's source: %v", err)
			}
		})
	}
	sc, err := scenarios.Builtin("smoke")
	if err != nil {
		t.Skip(err)
	}
	if err := CheckBudget(sc, 2<<30); err != nil {
		t.Errorf("the smoke built-in must fit 2 GiB: %v", err)
	}
}

func TestFormatBytes(t *testing.T) {
	for in, want := range map[uint64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 3 << 30: "3.0 GiB", ^uint64(0): "16.0 EiB"} {
		if got := FormatBytes(in); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestDefaultMemoryBudgetIsHalfOfMemory(t *testing.T) {
	b := DefaultMemoryBudget()
	if b == fallbackBudget {
		t.Skip("machine memory unreadable: fallback budget")
	}
	// An independent reading: syscall-free, /proc/meminfo's MemTotal line.
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Skip(err)
	}
	var kb uint64
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "MemTotal:") {
			fmt.Sscanf(strings.TrimPrefix(line, "MemTotal:"), "%d", &kb)
		}
	}
	if want := kb * 1024 / 2; b != want {
		t.Errorf("DefaultMemoryBudget = %d, want half of MemTotal = %d", b, want)
	}
}

// Every scenario the loader accepts sizes without a panic, and a run that
// fits the budget does so with a finite, positive need.
func FuzzScenarioSizing(f *testing.F) {
	for _, n := range scenarios.BuiltinNames() {
		data, err := scenarios.BuiltinSource(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("name: x\nrate: 10000000\nduration: 168h\nproducers: 1000\n"))
	f.Add([]byte("name: x\nload_mode: backlog\nbacklog_records: 10000000000\n"))
	f.Add([]byte("name: x\nconsumer_type: share\nmembers: 1000\nworkers: 10000\nbroker_config: {group.share.max.size: 1000}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenarios.LoadBytes("fuzz.yaml", data, nil, nil)
		if err != nil {
			return
		}
		for _, r := range sc.Runs {
			fp, err := RunFootprint(r)
			if err != nil {
				continue
			}
			if fp.Total == 0 || fp.Total < fp.LedgerBytes {
				t.Fatalf("footprint %+v of an accepted run", fp)
			}
		}
		_ = CheckBudget(sc, 8<<30)
	})
}
