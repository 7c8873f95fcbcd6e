package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ReadCampaign loads campaign.json from a campaign folder.
func ReadCampaign(dir string) (Campaign, error) {
	var c Campaign
	path := filepath.Join(dir, "campaign.json")
	b, err := readRecordFile(path)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// LoadCampaign reads a campaign folder written by a campaign: campaign.json
// (optional: a folder of runs without it still loads) and runs/*/run.json,
// in the campaign's execution order. A complete campaign's expectation
// outcomes are recomputed from the run.json files
// (RecomputeExpectations), never taken from campaign.json as written.
//
// The campaign's Status is set to its EffectiveStatus: the caller marks a
// campaign that is not complete (Campaign.Incomplete). A run whose run.json
// is missing, empty, null, {} or invalid (no run_id, no spec), or whose id
// in campaign.json is not a single folder name, is skipped with a note in
// Campaign.Skipped naming the folder; no readable run at all is an error.
func LoadCampaign(dir string) (Campaign, []Record, error) {
	if st, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return Campaign{}, nil, fmt.Errorf("no such directory: %s", dir)
	} else if err != nil {
		return Campaign{}, nil, err
	} else if !st.IsDir() {
		return Campaign{}, nil, fmt.Errorf("%s: not a directory: expected a campaign folder", dir)
	}
	camp, err := ReadCampaign(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return camp, nil, err
	}
	camp.Status = camp.EffectiveStatus()
	ids := camp.Runs
	if len(ids) == 0 {
		paths, _ := filepath.Glob(filepath.Join(dir, "runs", "*", "run.json"))
		sort.Strings(paths)
		for _, p := range paths {
			ids = append(ids, filepath.Base(filepath.Dir(p)))
		}
	}
	if len(ids) == 0 {
		return camp, nil, fmt.Errorf("%s: no runs/<run-id>/run.json: expected a campaign folder written by sharebench run", dir)
	}
	recs := make([]Record, 0, len(ids))
	for _, id := range ids {
		if !isRunID(id) {
			camp.Skipped = append(camp.Skipped, fmt.Sprintf("%s: run id %q in campaign.json is not a folder name: skipped", dir, id))
			continue
		}
		path := filepath.Join(dir, "runs", id, "run.json")
		r, err := readValidRun(path)
		if err == nil && r.RunID != id {
			err = fmt.Errorf("%s: run_id %q disagrees with its folder %q: refused", path, r.RunID, id)
		}
		if err != nil {
			camp.Skipped = append(camp.Skipped, fmt.Sprintf("%s: run %s skipped: %v", dir, id, err))
			continue
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return camp, nil, fmt.Errorf("%s: no readable run: %s", dir, strings.Join(camp.Skipped, "; "))
	}
	if camp.Name == "" {
		camp.Name = filepath.Base(dir)
	}
	if camp.Status == StatusComplete {
		camp.Expectations = RecomputeExpectations(camp.Expectations, camp.Scenario, recs)
	}
	return camp, recs, nil
}

// isRunID reports whether id can be used as a run folder's name: one path
// element, not "." or "..", no separator.
func isRunID(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\`) && filepath.Base(id) == id
}

// readValidRun reads a run.json and checks it is a run record of this
// schema (readRecordFile, decodeRun): a regular file of bounded size, one
// JSON object without duplicate keys, with schema_version, run_id, spec and
// the audit counts (null, {}, truncated, binary and wrongly typed files are
// refused with the parse error).
func readValidRun(path string) (Record, error) {
	b, err := readRecordFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Record{}, fmt.Errorf("%s missing", path)
	case err != nil:
		return Record{}, fmt.Errorf("invalid run.json: %w", err)
	}
	r, err := decodeRun(path, b)
	if err != nil {
		return r, fmt.Errorf("invalid run.json: %w", err)
	}
	return r, nil
}

// LoadRuns reads the runs at path: a campaign folder, a run folder (holding
// run.json) or a run.json file.
func LoadRuns(path string) ([]Record, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: expected a campaign folder or a run.json file", err)
	}
	if !st.IsDir() {
		r, err := readValidRun(path)
		if err != nil {
			return nil, err
		}
		return []Record{r}, nil
	}
	if _, err := os.Stat(filepath.Join(path, "run.json")); err == nil {
		r, err := readValidRun(filepath.Join(path, "run.json"))
		return []Record{r}, err
	}
	_, runs, err := LoadCampaign(path)
	return runs, err
}
