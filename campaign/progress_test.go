package campaign

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

type recordedProgress struct {
	mu     sync.Mutex
	phases []string
	done   []string
	counts bool
}

func (p *recordedProgress) Phase(i PhaseInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phases = append(p.phases, i.RunID+" "+string(i.Name))
	if i.Counts != nil {
		_ = i.Counts()
		p.counts = true
	}
}

func (p *recordedProgress) RunDone(run, recs int, id string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = append(p.done, id)
}

// A campaign on kfake reports every run's phases in order, one rate run and
// one backlog run, while the plain log lines stay as they were.
func TestCampaignReportsProgress(t *testing.T) {
	sc, err := scenarios.LoadBytes("progress.yaml", []byte(`name: progress
consumer_type: consumer
partitions: 2
members: 2
rate: 100
processing: {model: none}
warmup: 1s
duration: 1s
drain_timeout: 30s
load_mode: [rate, backlog]
backlog_records: 300
`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log bytes.Buffer
	p := &recordedProgress{}
	res, err := Run(ctx, sc, Options{Provider: "kfake", ResultsDir: t.TempDir(), Log: &log, Progress: p})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	r1, r2 := sc.RunName(0), sc.RunName(1)
	want := []string{r1 + " setup", r1 + " warm-up", r1 + " measure", r1 + " drain", r2 + " setup", r2 + " fill", r2 + " drain"}
	if !slices.Equal(p.phases, want) || !slices.Equal(p.done, []string{r1, r2}) || !p.counts {
		t.Errorf("phases %q done %q counts %v, want %q", p.phases, p.done, p.counts, want)
	}
	for _, w := range []string{"run 1/2 " + r1 + "\n", "run 2/2 " + r2 + "\n", "  " + r1 + ": producing 100 records/s for 1s warm-up + 1s measurement\n",
		"  " + r2 + ": filling a backlog of 300 records (bounded by drain_timeout 30s)\n", "  " + r2 + ": draining the backlog (timeout 30s)\n"} {
		if !strings.Contains(log.String(), w) {
			t.Errorf("log lacks %q:\n%s", w, log.String())
		}
	}
	if len(res.Runs) != 2 || !res.Runs[1].Audit.Balanced || res.Runs[1].Audit.Produced != 300 {
		t.Errorf("runs %+v", res.Runs)
	}
}
