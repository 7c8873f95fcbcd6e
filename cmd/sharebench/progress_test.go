package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/campaign"
	"github.com/sharebench/sharebench/results"
)

// Off a terminal (a buffer, CI, a pipe) the campaign gets no progress
// display and the log lines go straight to the output.
func TestPlainProgressOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	p, log, stop := newProgress(&buf)
	defer stop()
	if _, ok := p.(campaign.NoProgress); !ok || log != &buf {
		t.Fatalf("off a terminal: progress %T, log %T", p, log)
	}
}

// The CLI on kfake, off a terminal: the plain phase lines, no bar.
func TestRunPlainLinesOnKfake(t *testing.T) {
	dir := t.TempDir()
	out, err := execute(t, "run", "--provider", "kfake", "--scenario", "smoke", "--results", dir,
		"--set", "consumer_type=consumer", "--set", "load_mode=backlog", "--set", "backlog_records=500")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := []string{"scenario smoke: 1 run(s)", "run 1/1 ", ": filling a backlog of 500 records",
		": 500 records acknowledged in ", ": forming a group of ", ": group formed in ", ": draining the backlog (timeout ", ": drained in "}
	at := 0
	for _, w := range lines {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Fatalf("output lacks %q after offset %d:\n%s", w, at, out)
		}
		at += i
	}
	if strings.ContainsAny(out, "\r\x1b") || strings.Contains(out, "completed/s") {
		t.Errorf("plain output has progress-bar text:\n%q", out)
	}
}

func TestDescribeAndPercent(t *testing.T) {
	info := campaign.PhaseInfo{Run: 2, Runs: 6, RunID: "r02-share", Name: campaign.PhaseMeasure, Planned: 20 * time.Second}
	if got, want := describe(info, 31*time.Second, 5*time.Second, 812.4), "run 2/6 r02-share | measure | elapsed 31s | left 15s | 812 completed/s"; got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
	info.Name, info.Planned = campaign.PhaseDrain, 2*time.Minute
	if got := describe(info, time.Minute, 30*time.Second, 0); !strings.Contains(got, "| drain | elapsed 1m0s | left ≤1m30s |") {
		t.Errorf("drain: %q", got)
	}
	info.Name, info.Planned = campaign.PhaseFill, 0
	if got := describe(info, time.Second, time.Second, 0); !strings.Contains(got, "| fill | elapsed 1s | left ? |") {
		t.Errorf("fill: %q", got)
	}
	if p := phasePercent(campaign.PhaseInfo{Name: campaign.PhaseWarmup, Planned: 4 * time.Second}, time.Second, 0, 0); p != 25 {
		t.Errorf("warm-up percent %d", p)
	}
	if p := phasePercent(campaign.PhaseInfo{Name: campaign.PhaseDrain}, time.Hour, 30, 120); p != 25 {
		t.Errorf("drain percent %d", p)
	}
	var m rateMeter
	t0 := time.Now()
	m.observe(t0, 0)
	if r := m.observe(t0.Add(2*time.Second), 500); r != 250 {
		t.Errorf("rate %v", r)
	}
}

// The terminal display writes log lines above its bar and describes the
// current phase.
func TestTermProgressWritesLinesAndBar(t *testing.T) {
	var buf bytes.Buffer
	tp := newTermProgress(&buf)
	tp.Phase(campaign.PhaseInfo{Run: 1, Runs: 2, RunID: "r01", Name: campaign.PhaseWarmup, Planned: time.Second,
		Counts: func() results.Counts { var c results.Counts; c.Completed = 10; return c }})
	_, _ = tp.Write([]byte("  r01: a log line\n"))
	tp.RunDone(1, 2, "r01", nil)
	tp.close()
	out := buf.String()
	if !strings.Contains(out, "  r01: a log line\n") || !strings.Contains(out, "run 1/2 r01 | warm-up |") {
		t.Errorf("terminal output:\n%q", out)
	}
}
