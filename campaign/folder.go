package campaign

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// maxFolderSuffix bounds the -2, -3 … suffixes tried for one name.
const maxFolderSuffix = 1000

// now is the campaign's start clock (a variable so a test can start two
// campaigns "in the same second").
var now = time.Now

// folder is a campaign's folder on disk and the campaign.json it keeps
// current: written with status running when the folder is made, again
// after every run and cluster, and finally with the campaign's status.
type folder struct {
	dir  string
	camp runs.Campaign
	// madeParent is the results folder when createFolder made it: a
	// campaign removed before its first run takes it too if it is empty.
	madeParent string
}

// createFolder makes <parent>/<name>-<UTC second> exclusively (os.Mkdir,
// never over an existing folder): when another campaign made that name in
// the same second, it tries <…>-2, <…>-3 and so on. It writes
// campaign.json with status running at once.
func createFolder(parent string, sc *scenarios.Scenario) (*folder, error) {
	started := now().UTC()
	madeParent := ""
	if _, err := os.Stat(parent); errors.Is(err, fs.ErrNotExist) {
		madeParent = parent
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("results folder: %w", err)
	}
	base := filepath.Join(parent, fmt.Sprintf("%s-%s", sc.Name, started.Format("20060102T150405Z")))
	for n := 1; n <= maxFolderSuffix; n++ {
		dir := base
		if n > 1 {
			dir = fmt.Sprintf("%s-%d", base, n)
		}
		err := os.Mkdir(dir, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("results folder: %w", err)
		}
		f := &folder{dir: dir, madeParent: madeParent, camp: runs.Campaign{SchemaVersion: runs.SchemaVersion, Name: sc.Name,
			Status: runs.StatusRunning, StartedAt: started.Format(time.RFC3339), Scenario: sc, Runs: []string{}}}
		if err := os.Mkdir(filepath.Join(dir, "runs"), 0o755); err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("results folder: %w", err)
		}
		if err := f.save(); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		return f, nil
	}
	return nil, fmt.Errorf("results folder: %s-2 … -%d exist already", base, maxFolderSuffix)
}

// save writes campaign.json (atomically and redacted, runs.WriteJSON).
func (f *folder) save() error {
	return runs.WriteJSON(filepath.Join(f.dir, "campaign.json"), f.camp)
}

// addEnvironment records a cluster the campaign started.
func (f *folder) addEnvironment(env runs.Environment) error {
	f.camp.Environment = append(f.camp.Environment, env)
	return f.save()
}

// setPriming records how the cluster added last was primed.
func (f *folder) setPriming(p *runs.Priming) error {
	f.camp.Environment[len(f.camp.Environment)-1].Priming = p
	return f.save()
}

// setRunning records the run that starts (a campaign that stops during
// it leaves its id for a resume).
func (f *folder) setRunning(id string) error {
	f.camp.Running = id
	return f.save()
}

// addRun writes a finished run's folder, then lists the runs done (ids,
// in execution order) in campaign.json.
func (f *folder) addRun(m *Measured, ids []string) error {
	m.Record.Campaign = filepath.Base(f.dir)
	if err := runs.WriteRunDir(filepath.Join(f.dir, "runs", m.Record.RunID), &m.Record, m.Merged, m.Series, m.Files...); err != nil {
		return err
	}
	f.camp.Runs = ids
	f.camp.Running = ""
	return f.save()
}

// finish writes campaign.json with the final status (and the error of a
// campaign that did not complete), then the reports of the runs it holds.
func (f *folder) finish(status string, runErr error, recs []runs.Record) error {
	f.camp.Status = status
	if runErr != nil {
		f.camp.Error = redact.Text(runErr.Error())
	}
	f.camp.FinishedAt = time.Now().UTC().Format(time.RFC3339)
	if err := f.save(); err != nil {
		return err
	}
	_, err := report.WriteFiles(f.dir, f.camp, recs)
	return err
}

// remove deletes the folder of a campaign that ended before its first run:
// it holds no result, only campaign.json (and a failed cluster's logs,
// whose tail the provider's error quotes).
func (f *folder) remove() error {
	if err := os.RemoveAll(f.dir); err != nil {
		return err
	}
	if f.madeParent != "" {
		_ = os.Remove(f.madeParent) // only when empty: another campaign may have written there since
	}
	return nil
}
