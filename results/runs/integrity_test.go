package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
)

// writeFolder writes campaign.json and one run.json per id (content "" for
// a run folder without run.json).
func writeFolder(t *testing.T, camp string, runJSON map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := WriteFileAtomic(filepath.Join(dir, "campaign.json"), []byte(camp)); err != nil {
		t.Fatal(err)
	}
	for id, body := range runJSON {
		if err := os.MkdirAll(filepath.Join(dir, "runs", id), 0o755); err != nil {
			t.Fatal(err)
		}
		if body != "" {
			if err := os.WriteFile(filepath.Join(dir, "runs", id, "run.json"), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

const goodRun = `{"schema_version": 1, "run_id": "good", "consumer_type": "share", "spec": {"consumer_type": "share"}}`

// Run folders whose run.json is missing, null, {} or truncated, and run
// ids that are not a folder name, are skipped with a note naming the
// folder; the good run loads.
func TestLoadSkipsInvalidRuns(t *testing.T) {
	dir := writeFolder(t, `{"schema_version": 1, "name": "c", "status": "complete", "finished_at": "x",
  "runs": ["good", "missing", "null", "empty", "truncated", "nospec", "../good", "a/b", ".."]}`, map[string]string{
		"good": goodRun, "missing": "", "null": "null", "empty": "{}", "truncated": `{"run_id": "tr`,
		"nospec": `{"run_id": "nospec"}`,
	})
	camp, recs, err := LoadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].RunID != "good" {
		t.Fatalf("runs %+v", recs)
	}
	if len(camp.Skipped) != 8 {
		t.Errorf("skipped %d, want 8: %q", len(camp.Skipped), camp.Skipped)
	}
	for _, s := range camp.Skipped {
		if !strings.Contains(s, dir) {
			t.Errorf("note does not name the folder: %s", s)
		}
	}
	for _, id := range []string{`"../good"`, `"a/b"`, `".."`, "run missing", "run null", "run empty", "run truncated", "run nospec"} {
		if !strings.Contains(strings.Join(camp.Skipped, "\n"), id) {
			t.Errorf("no note for %s: %q", id, camp.Skipped)
		}
	}
}

func TestLoadNoSuchDirectory(t *testing.T) {
	_, _, err := LoadCampaign("nosuchdir")
	if err == nil || err.Error() != "no such directory: nosuchdir" {
		t.Fatalf("err %v", err)
	}
}

// Status: as written; a file from before the field is complete when it has
// finished_at, else interrupted; only complete has no banner.
func TestCampaignStatus(t *testing.T) {
	for _, c := range []struct {
		camp   Campaign
		status string
	}{
		{Campaign{Status: StatusRunning}, StatusRunning},
		{Campaign{Status: StatusFailed, Error: "boom"}, StatusFailed},
		{Campaign{FinishedAt: "2026-01-01T00:00:00Z"}, StatusComplete},
		{Campaign{}, StatusInterrupted},
	} {
		if got := c.camp.EffectiveStatus(); got != c.status {
			t.Errorf("%+v: status %q, want %q", c.camp, got, c.status)
		}
		banner := c.camp.Incomplete()
		if (banner == "") != (c.status == StatusComplete) || (banner != "" && !strings.HasPrefix(banner, "INCOMPLETE CAMPAIGN: status "+c.status)) {
			t.Errorf("%+v: banner %q", c.camp, banner)
		}
	}
	dir := writeFolder(t, `{"schema_version": 1, "name": "old", "runs": ["good"]}`, map[string]string{"good": goodRun})
	camp, _, err := LoadCampaign(dir)
	if err != nil || camp.Status != StatusInterrupted {
		t.Errorf("old file without finished_at: status %q err %v", camp.Status, err)
	}
}

// WriteFileAtomic masks secrets, leaves no temporary file and replaces
// the file whole.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.json")
	for _, body := range []string{"first", `{"url": "http://u:s3cr3t@h/m", "password=hunter2"}`} {
		if err := WriteFileAtomic(path, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "s3cr3t") || strings.Contains(string(b), "hunter2") || !strings.Contains(string(b), "REDACTED") {
		t.Errorf("written %s", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files %v", entries)
	}
}

// A run folder is never written over: a second run of one id fails.
func TestWriteRunDirIsExclusive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs", "r")
	rec := &Record{RunID: "r", Spec: &scenarios.RunSpec{}}
	if err := WriteRunDir(dir, rec, fixtureMerged(10), results.NewSeries(0, 5)); err != nil {
		t.Fatal(err)
	}
	if err := WriteRunDir(dir, rec, fixtureMerged(10), results.NewSeries(0, 5)); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Fatalf("second write: %v", err)
	}
}
