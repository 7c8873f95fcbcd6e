package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// ReadCampaign loads campaign.json from a campaign folder.
func ReadCampaign(dir string) (Campaign, error) {
	var c Campaign
	path := filepath.Join(dir, "campaign.json")
	b, err := os.ReadFile(path)
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
// in the campaign's execution order.
func LoadCampaign(dir string) (Campaign, []Record, error) {
	camp, err := ReadCampaign(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return camp, nil, err
	}
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
	runs := make([]Record, 0, len(ids))
	for _, id := range ids {
		r, err := ReadRun(filepath.Join(dir, "runs", id, "run.json"))
		if err != nil {
			return camp, nil, fmt.Errorf("campaign %s: run %s: %w", dir, id, err)
		}
		runs = append(runs, r)
	}
	if camp.Name == "" {
		camp.Name = filepath.Base(dir)
	}
	return camp, runs, nil
}

// LoadRuns reads the runs at path: a campaign folder, a run folder (holding
// run.json) or a run.json file.
func LoadRuns(path string) ([]Record, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: expected a campaign folder or a run.json file", err)
	}
	if !st.IsDir() {
		r, err := ReadRun(path)
		if err != nil {
			return nil, err
		}
		return []Record{r}, nil
	}
	if _, err := os.Stat(filepath.Join(path, "run.json")); err == nil {
		r, err := ReadRun(filepath.Join(path, "run.json"))
		return []Record{r}, err
	}
	_, runs, err := LoadCampaign(path)
	return runs, err
}
