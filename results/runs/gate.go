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

// DefaultDenyFlags are the validity flags that fail a compared run by
// default: numbers not from Kafka, a sampler that failed, a drain that timed
// out. (VerdictFlags fail whatever the deny list.)
var DefaultDenyFlags = []Code{CodeNotKafka, CodeCollectorFailed, CodeDrainTimeout, CodeStalled}

// VerdictFlags are the validity flags that fail a run wherever it is
// judged, whatever --deny-flags says: its verdict (sharebench run's exit
// status, summary.md, report.html) and compare. They say a record left the
// run's records unaccounted for: a destination table that does not
// reconcile with the ledger. (audit_unbalanced and lost_records fail the
// same way, through the audit's own counts: Problems.)
var VerdictFlags = []Code{CodeDestinationUnreconciled}

// CheckDenyFlags refuses a code Check never raises, naming the known ones.
func CheckDenyFlags(codes []Code) error {
	for _, c := range codes {
		if !slices.Contains(FlagCodes, c) {
			return fmt.Errorf("unknown validity flag %q: expected a comma-separated list of %s", c, JoinCodes(FlagCodes, ", "))
		}
	}
	return nil
}

// CodeStrings spells codes as strings (a command line's defaults).
func CodeStrings(codes []Code) []string {
	s := make([]string, len(codes))
	for i, c := range codes {
		s[i] = string(c)
	}
	return s
}

// JoinCodes lists codes with sep between them.
func JoinCodes(codes []Code, sep string) string { return strings.Join(CodeStrings(codes), sep) }

// Problems are the correctness gates one run fails, one line per reason
// naming the run and the figure: an inconsistent record
// (IntegrityProblems), records lost, records left undelivered by a drain
// that timed out (said as such: Kafka still held them), an unbalanced
// audit, a validity flag in VerdictFlags or in deny.
func Problems(r Record, deny []Code) []string {
	out := IntegrityProblems(r)
	a := r.Audit
	if a.Lost > 0 {
		out = append(out, fmt.Sprintf("run %s: audit.lost = %d: produced records were lost (never delivered, and Kafka can no longer deliver them)", r.RunID, a.Lost))
	}
	if a.Undelivered > 0 && r.Stall != nil {
		out = append(out, fmt.Sprintf("run %s: audit.undelivered = %d: the run stalled (nothing completed for %.0f s, bound %.0f s) and its drain stopped after %.0f s with %d records still deliverable; Kafka did not lose them (read the thread dumps and client state beside run.json)",
			r.RunID, a.Undelivered, r.Stall.QuietSec, r.Stall.BoundSec, r.Phases.DrainSec, a.Undelivered))
	} else if a.Undelivered > 0 {
		out = append(out, fmt.Sprintf("run %s: audit.undelivered = %d: the drain timed out after %.0f s with %d records still deliverable; Kafka did not lose them (raise drain_timeout, or see why the consumers fell behind)",
			r.RunID, a.Undelivered, r.Phases.DrainSec, a.Undelivered))
	}
	if !a.Balanced {
		out = append(out, fmt.Sprintf("run %s: audit.balanced = false: the audit does not balance (%d produced; %d completed once, %d duplicates, %d archived, %d in flight, %d lost, %d undelivered; %d unacknowledged, %d foreign)",
			r.RunID, a.Produced, a.CompletedOnce, a.Duplicates, a.Archived, a.InFlight, a.Lost, a.Undelivered, a.Unacknowledged, a.Foreign))
	}
	for _, f := range r.Validity.Flags {
		if slices.Contains(VerdictFlags, f.Code) || slices.Contains(deny, f.Code) {
			out = append(out, fmt.Sprintf("run %s: validity flag %s: %s", r.RunID, f.Code, f.Message))
		}
	}
	return out
}

// VerdictProblems are the reasons a finished campaign fails its run
// verdict (sharebench run exits 3): a run that lost records, whose audit
// does not balance, whose record is inconsistent or that carries one of
// VerdictFlags, and every expectation NOT MET. None: the verdict passed. The console, summary.md and
// report.html state the same list.
func VerdictProblems(recs []Record, exps []ExpectationOutcome) []string {
	var out []string
	for _, r := range recs {
		out = append(out, Problems(r, nil)...)
	}
	return append(out, ExpectationProblems(exps)...)
}

// ExpectationProblems names every expectation NOT MET, with the runs (or
// pairs) that missed it and their values, or the reason when none was
// measured.
func ExpectationProblems(exps []ExpectationOutcome) []string {
	var out []string
	for _, e := range exps {
		if e.Met || e.Skipped {
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
	Status     *string `json:"status"`
	FinishedAt string  `json:"finished_at"`
}

// CampaignComplete is the campaign.json status of a finished campaign.
const CampaignComplete = "complete"

// LoadSide reads one side of a comparison: a campaign folder (its
// campaign.json must say the campaign is complete: status "complete", or,
// without a status, a finished_at), a run folder or a run.json file. A
// campaign folder with a run it cannot read (corrupt, truncated, a run_id
// that disagrees with its folder) is an error naming the file and the
// parse error, never a run "missing" from one side. Its expectations are
// LoadCampaign's: recomputed from the run.json files.
func LoadSide(path string) (Side, error) {
	s := Side{Path: path}
	st, err := os.Stat(path)
	if err != nil {
		return s, fmt.Errorf("%w: expected a campaign folder or a run.json file", err)
	}
	if !st.IsDir() {
		s.Runs, err = LoadRuns(path)
		return s, err
	}
	if _, err := os.Lstat(filepath.Join(path, "run.json")); !errors.Is(err, fs.ErrNotExist) {
		s.Runs, err = LoadRuns(path)
		return s, err
	}
	if err := completeCampaign(path); err != nil {
		return s, err
	}
	camp, recs, err := LoadCampaign(path)
	if len(camp.Skipped) > 0 {
		return s, fmt.Errorf("unreadable run record(s): %s", strings.Join(camp.Skipped, "; "))
	}
	s.Runs, s.Expectations = recs, camp.Expectations
	return s, err
}

// completeCampaign refuses a campaign folder whose campaign.json does not
// say it finished.
func completeCampaign(dir string) error {
	path := filepath.Join(dir, "campaign.json")
	b, err := readRecordFile(path) // bounded: a link to /dev/zero is refused, not read
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no campaign.json: cannot tell whether the campaign finished; give a complete campaign folder written by sharebench run, or a run.json", dir)
	}
	if err != nil {
		return err
	}
	var cs campaignState
	if err := json.Unmarshal(b, &cs); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if cs.Status != nil {
		if *cs.Status == CampaignComplete {
			return nil
		}
		why := map[string]string{
			"running":     "the campaign has not finished (or its process died)",
			"interrupted": "the campaign was interrupted: some runs are missing or cut short",
			"failed":      "the campaign failed: some runs are missing or broken",
		}[*cs.Status]
		if why == "" {
			why = "unknown status"
		}
		return fmt.Errorf("%s: campaign status %q, want %q: %s; compare complete campaigns only (rerun it)", path, *cs.Status, CampaignComplete, why)
	}
	if cs.FinishedAt == "" {
		return fmt.Errorf("%s: no status and no finished_at: the campaign did not finish (interrupted or still running); compare complete campaigns only (rerun it)", path)
	}
	return nil
}
