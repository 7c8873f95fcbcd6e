package runs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
)

// Every code Check can raise is a known code (so --deny-flags accepts it),
// and the default deny list uses Check's spellings.
func TestFlagCodesCoverCheck(t *testing.T) {
	v := Check(ValidityInput{
		IsKafka: false, Audit: results.Audit{Produced: 10, Lost: 1}, DrainTimedOut: true,
		ScheduleLagP99Ms: 500, HarnessCPUPercent: 99, HostCPUPercent: 99,
		Ceiling: Ceiling{RecordsPerSec: 10, Held: BoundUnexplained, Evidence: "nothing saturated"}, UsefulPerSec: 100, ProduceFailed: 1, AckErrors: 1,
		CompletedThirds: [3]int64{1, 1, 1000}, Collectors: []CollectorHealth{{Name: "broker", Attempts: 1, Failures: 1}},
		LockExpiry:  LockExpiryInput{LockDurationMs: 30000, RecordsPerAcquisition: 200, ProcessingMs: 200, Workers: 1},
		TLSInsecure: true, Throttle: ThrottleSummary{Count: 1, Total: time.Second, Longest: time.Second},
		Stall:      &Stall{BoundSec: 20, QuietSec: 21, Outstanding: 5, Lag: -1},
		ClientExit: &ClientExit{Message: "members did not close"}, Errors: []string{"boom"},
	})
	killed := Check(ValidityInput{IsKafka: true, Audit: results.Audit{Balanced: true}, ClientExit: &ClientExit{Killed: true, Message: "killed"}})
	// One client exit per run: the other kind from a second Check.
	v.Flag(&killed.Flags[0])
	v.Flag((&GroupInfo{Requested: "consumer", Protocol: "classic", Fallback: true}).FallbackFlag()) // raised beside Check
	v.Flag(DeadLetterFlag(results.Audit{Archived: 2, DeadLetterAudit: results.ReconcileDeadLetters(results.NewLedger(1, 1), 2, 0, "t", nil, false)}))
	for _, f := range DestinationFlags(&Destination{DestinationAudit: &results.DestinationAudit{Writes: 3, WriteErrors: 1, Missing: 1}}) {
		v.Flag(f) // raised beside Check (destination.go)
	}
	v.Flag((&Shards{LimitMs: ClockSkewLimitMs, MaxUncertaintyMs: 50}).SkewFlag()) // sharded runs (shards.go)
	v.Flag(growingHarness(t, 15).GrowthFlag())                                    // soaks (harness.go)
	for _, c := range v.Codes() {
		if !slices.Contains(FlagCodes, c) {
			t.Errorf("Check raised %q, missing from FlagCodes", c)
		}
	}
	if len(v.Codes()) != len(FlagCodes) {
		t.Errorf("Check raised %v; FlagCodes %v", v.Codes(), FlagCodes)
	}
	if err := CheckDenyFlags(DefaultDenyFlags); err != nil {
		t.Error(err)
	}
	if err := CheckDenyFlags([]Code{"drain_timed_out"}); err == nil || !strings.Contains(err.Error(), `"drain_timed_out"`) ||
		!strings.Contains(err.Error(), "drain_timeout") {
		t.Errorf("unknown code: %v", err)
	}
}

// Each broken candidate fails the gate with a line naming the run and the
// figure, whatever the thresholds (none here).
func TestCorrectnessGates(t *testing.T) {
	good := fixtureRun("r02-share", "share", 0, 1000, 280)
	lost := good
	lost.Audit = results.Audit{Produced: 25000, CompletedOnce: 24960, Lost: 40, Balanced: true}
	unbalanced := good
	unbalanced.Audit.Balanced = false
	kfake := good
	kfake.Validity = Validity{Flags: []Flag{{Code: "not_kafka", Message: "numbers come from kfake"}}}
	collector := good
	collector.Validity = Validity{Flags: []Flag{{Code: "collector_failed", Message: "collector broker: 4 of 4 readings failed"}}}
	drain := good
	drain.Validity = Validity{Flags: []Flag{{Code: "drain_timeout", Message: "the drain timed out"}}}
	undelivered := good // a drain that timed out with records Kafka still held
	undelivered.Audit = results.Audit{Produced: 25000, CompletedOnce: 24000, InFlight: 100, Undelivered: 900, Balanced: true}
	undelivered.Phases.DrainSec = 240
	stalled := undelivered // a run that stalled: its drain stopped at the stall, not its timeout
	stalled.Phases.DrainSec = 22
	stalled.Stall = &Stall{BoundSec: 20, QuietSec: 21, Outstanding: 1000, Lag: 900}
	stalled.Validity = Validity{Flags: []Flag{stalled.Stall.flag()}}
	hostCPU := good
	hostCPU.Validity = Validity{Flags: []Flag{{Code: "host_cpu", Message: "the host CPU was 99% busy"}}}
	notMet := []ExpectationOutcome{{Name: "no record lost", Claim: "audit.lost ≤ 0", Measured: []Measured{{Run: "r02-share", Value: 40}}}}
	tests := []struct {
		name string
		cand Side
		deny []Code
		want string // "" passes
	}{
		{"good", Side{Runs: []Record{good}}, DefaultDenyFlags, ""},
		{"lost", Side{Runs: []Record{lost}}, DefaultDenyFlags, "candidate run r02-share: audit.lost = 40: produced records were lost (never delivered, and Kafka can no longer deliver them)"},
		{"undelivered", Side{Runs: []Record{undelivered}}, nil, "candidate run r02-share: audit.undelivered = 900: the drain timed out after 240 s with 900 records still deliverable; Kafka did not lose them"},
		{"stalled, no deny list", Side{Runs: []Record{stalled}}, nil, "candidate run r02-share: audit.undelivered = 900: the run stalled (nothing completed for 21 s, bound 20 s) and its drain stopped after 22 s with 900 records still deliverable; Kafka did not lose them"},
		{"stalled", Side{Runs: []Record{stalled}}, DefaultDenyFlags, "candidate run r02-share: validity flag stalled: completions stopped for 21.0 s (bound 20.0 s)"},
		{"unbalanced", Side{Runs: []Record{unbalanced}}, DefaultDenyFlags, "candidate run r02-share: audit.balanced = false: the audit does not balance (25000 produced"},
		{"not kafka", Side{Runs: []Record{kfake}}, DefaultDenyFlags, "candidate run r02-share: validity flag not_kafka: numbers come from kfake"},
		{"collector", Side{Runs: []Record{collector}}, DefaultDenyFlags, "candidate run r02-share: validity flag collector_failed: collector broker"},
		{"drain", Side{Runs: []Record{drain}}, DefaultDenyFlags, "candidate run r02-share: validity flag drain_timeout"},
		{"flag not denied", Side{Runs: []Record{hostCPU}}, DefaultDenyFlags, ""},
		{"deny list replaced", Side{Runs: []Record{hostCPU}}, []Code{"host_cpu"}, "validity flag host_cpu"},
		{"empty deny list", Side{Runs: []Record{kfake}}, nil, ""},
		{"expectation not met", Side{Runs: []Record{good}, Expectations: notMet}, DefaultDenyFlags,
			`candidate expectation "no record lost" NOT MET (audit.lost ≤ 0): r02-share measured 40`},
	}
	for _, tc := range tests {
		c := CompareSides(Side{Runs: []Record{good}}, tc.cand, CompareOptions{DenyFlags: tc.deny})
		joined := strings.Join(c.Failures, "\n")
		if c.Failed() != (tc.want != "") || !strings.Contains(joined, tc.want) {
			t.Errorf("%s: failed %v, failures %q, want %q", tc.name, c.Failed(), joined, tc.want)
		}
	}
	// The word lost never names what a timed-out drain left in Kafka.
	for _, p := range Problems(undelivered, DefaultDenyFlags) {
		if strings.Contains(p, "lost =") || strings.Contains(p, "never delivered") {
			t.Errorf("undelivered records called lost: %q", p)
		}
	}
	// A broken baseline is named as such.
	c := CompareSides(Side{Runs: []Record{lost}}, Side{Runs: []Record{good}}, CompareOptions{})
	if !c.Failed() || !strings.Contains(strings.Join(c.Failures, "\n"), "baseline run r02-share: audit.lost = 40") {
		t.Errorf("broken baseline: %v", c.Failures)
	}
	// No matched run: nothing to compare, never a pass.
	other := withSpecMembers(good, 99)
	other.RunID = "r09-share"
	c = CompareSides(Side{Runs: []Record{good}}, Side{Runs: []Record{other}}, CompareOptions{})
	if !c.Empty() || !c.Failed() {
		t.Errorf("no match: empty %v failed %v", c.Empty(), c.Failed())
	}
}

func withSpecMembers(r Record, members int) Record {
	spec := *r.Spec
	spec.Members = members
	r.Spec = &spec
	return r
}

// LoadSide refuses a campaign that did not complete.
func TestLoadSideCampaignStatus(t *testing.T) {
	dir := writeCampaign(t, fixtureRun("r02-share", "share", 0, 1000, 280))
	camp := filepath.Join(dir, "campaign.json")
	orig, err := os.ReadFile(camp)
	if err != nil {
		t.Fatal(err)
	}
	set := func(extra string) {
		// insert fields after the opening brace
		b := "{" + extra + strings.TrimPrefix(strings.TrimSpace(string(orig)), "{")
		if err := os.WriteFile(camp, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		extra string
		want  string // "" loads
	}{
		{`"status": "complete",`, ""},
		{`"finished_at": "2026-01-01T00:10:00Z",`, ""},
		{`"status": "interrupted", "finished_at": "2026-01-01T00:10:00Z",`, `campaign status "interrupted", want "complete": the campaign was interrupted`},
		{`"status": "running",`, `campaign status "running"`},
		{`"status": "failed",`, `campaign status "failed"`},
		{``, "no status and no finished_at: the campaign did not finish"},
	}
	for _, tc := range tests {
		set(tc.extra)
		s, err := LoadSide(dir)
		if tc.want == "" {
			if err != nil || len(s.Runs) != 1 {
				t.Errorf("%s: %v", tc.extra, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "campaign.json") {
			t.Errorf("%s: error %v, want %q naming campaign.json", tc.extra, err, tc.want)
		}
	}
	// A lone run.json has no campaign status to check.
	if _, err := LoadSide(filepath.Join(dir, "runs", "r02-share", "run.json")); err != nil {
		t.Errorf("run.json: %v", err)
	}
	os.Remove(camp)
	if _, err := LoadSide(dir); err == nil || !strings.Contains(err.Error(), "no campaign.json") {
		t.Errorf("no campaign.json: %v", err)
	}
}

// LoadSide reads campaign.json as it reads run.json: bounded, a regular
// file. A link to /dev/zero or a file past the limit is refused at once
// (before, compare read it whole until memory ran out).
func TestLoadSideCampaignJSONBounded(t *testing.T) {
	dir := writeCampaign(t, fixtureRun("r02-share", "share", 0, 1000, 280))
	camp := filepath.Join(dir, "campaign.json")
	if err := os.Remove(camp); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", camp); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSide(dir); err == nil || !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), "campaign.json") {
		t.Errorf("campaign.json -> /dev/zero: %v", err)
	}
	os.Remove(camp)
	f, err := os.Create(camp)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxRecordFileBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	if _, err := LoadSide(dir); err == nil || !strings.Contains(err.Error(), "larger than the 64 MiB") {
		t.Errorf("campaign.json of 64 MiB + 1: %v", err)
	}
}
