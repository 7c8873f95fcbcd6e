package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// FlagCodes are the validity flag codes Check can raise.
var FlagCodes = []string{
	"not_kafka", "audit_unbalanced", "lost_records", "drain_timeout", "schedule_lag", "harness_cpu",
	"host_cpu", "above_ceiling", "warmup_short", "lock_expiry_risk", "client_errors", "produce_failed", "collector_failed",
	"tls_insecure", "throttled", "error", "protocol_fallback", "dead_letter_unreconciled", "clock_skew",
}

// DefaultDenyFlags are the validity flags that fail a compared run by
// default: numbers not from Kafka, a sampler that failed, a drain that timed
// out. (audit_unbalanced and lost_records always fail, through the audit.)
var DefaultDenyFlags = []string{"not_kafka", "collector_failed", "drain_timeout"}

// CheckDenyFlags refuses a code Check never raises, naming the known ones.
func CheckDenyFlags(codes []string) error {
	for _, c := range codes {
		if !slices.Contains(FlagCodes, c) {
			return fmt.Errorf("unknown validity flag %q: expected a comma-separated list of %s", c, strings.Join(FlagCodes, ", "))
		}
	}
	return nil
}

// RunProblems are the correctness gates one run fails, one line per reason
// naming the run and the figure: records lost, records left undelivered by
// a drain that timed out (said as such: Kafka still held them), an
// unbalanced audit, a validity flag in deny.
func RunProblems(r Record, deny []string) []string {
	var out []string
	a := r.Audit
	if a.Lost > 0 {
		out = append(out, fmt.Sprintf("run %s: audit.lost = %d: produced records were lost (never delivered, and Kafka can no longer deliver them)", r.RunID, a.Lost))
	}
	if a.Undelivered > 0 {
		out = append(out, fmt.Sprintf("run %s: audit.undelivered = %d: the drain timed out after %.0f s with %d records still deliverable; Kafka did not lose them (raise drain_timeout, or see why the consumers fell behind)",
			r.RunID, a.Undelivered, r.Phases.DrainSec, a.Undelivered))
	}
	if !a.Balanced {
		out = append(out, fmt.Sprintf("run %s: audit.balanced = false: the audit does not balance (%d produced; %d completed once, %d duplicates, %d archived, %d in flight, %d lost, %d undelivered; %d unacknowledged, %d foreign)",
			r.RunID, a.Produced, a.CompletedOnce, a.Duplicates, a.Archived, a.InFlight, a.Lost, a.Undelivered, a.Unacknowledged, a.Foreign))
	}
	for _, f := range r.Validity.Flags {
		if slices.Contains(deny, f.Code) {
			out = append(out, fmt.Sprintf("run %s: validity flag %s: %s", r.RunID, f.Code, f.Message))
		}
	}
	return out
}

// ExpectationProblems names every expectation NOT MET, with the runs (or
// pairs) that missed it and their values, or the reason when none was
// measured.
func ExpectationProblems(exps []ExpectationOutcome) []string {
	var out []string
	for _, e := range exps {
		if e.Met {
			continue
		}
		var missed []string
		for _, m := range e.Measured {
			if !m.Met {
				missed = append(missed, fmt.Sprintf("%s measured %.4g", m.Run, m.Value))
			}
		}
		line := fmt.Sprintf("expectation %q NOT MET (%s)", e.Name, e.Claim)
		if len(missed) > 0 {
			line += ": " + strings.Join(missed, ", ")
		}
		if e.Detail != "" {
			line += "; " + e.Detail
		}
		out = append(out, line)
	}
	return out
}

// Side is one side of a comparison: where it was read, its runs and its
// campaign's expectation outcomes (none for a lone run.json).
type Side struct {
	Path         string
	Runs         []Record
	Expectations []ExpectationOutcome
}

// campaignState is the part of campaign.json LoadSide checks. Status is
// read raw so that a campaign.json with or without it loads.
type campaignState struct {
	Status       *string              `json:"status"`
	FinishedAt   string               `json:"finished_at"`
	Expectations []ExpectationOutcome `json:"expectations"`
}

// CampaignComplete is the campaign.json status of a finished campaign.
const CampaignComplete = "complete"

// LoadSide reads one side of a comparison: a campaign folder (its
// campaign.json must say the campaign is complete: status "complete", or,
// without a status, a finished_at), a run folder or a run.json file.
func LoadSide(path string) (Side, error) {
	s := Side{Path: path}
	st, err := os.Stat(path)
	if err != nil {
		return s, fmt.Errorf("%w: expected a campaign folder or a run.json file", err)
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, "run.json")); errors.Is(err, fs.ErrNotExist) {
			exps, err := completeCampaign(path)
			if err != nil {
				return s, err
			}
			s.Expectations = exps
		}
	}
	s.Runs, err = LoadRuns(path)
	return s, err
}

// completeCampaign refuses a campaign folder whose campaign.json does not
// say it finished, and returns its expectation outcomes.
func completeCampaign(dir string) ([]ExpectationOutcome, error) {
	path := filepath.Join(dir, "campaign.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no campaign.json: cannot tell whether the campaign finished; give a complete campaign folder written by sharebench run, or a run.json", dir)
	}
	if err != nil {
		return nil, err
	}
	var cs campaignState
	if err := json.Unmarshal(b, &cs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if cs.Status != nil {
		if *cs.Status == CampaignComplete {
			return cs.Expectations, nil
		}
		why := map[string]string{
			"running":     "the campaign has not finished (or its process died)",
			"interrupted": "the campaign was interrupted: some runs are missing or cut short",
			"failed":      "the campaign failed: some runs are missing or broken",
		}[*cs.Status]
		if why == "" {
			why = "unknown status"
		}
		return nil, fmt.Errorf("%s: campaign status %q, want %q: %s; compare complete campaigns only (rerun it)", path, *cs.Status, CampaignComplete, why)
	}
	if cs.FinishedAt == "" {
		return nil, fmt.Errorf("%s: no status and no finished_at: the campaign did not finish (interrupted or still running); compare complete campaigns only (rerun it)", path)
	}
	return cs.Expectations, nil
}
