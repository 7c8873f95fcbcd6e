package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/results/runs/runstest"
)

func TestReportNoSuchDirectory(t *testing.T) {
	_, err := execute(t, "report", "nosuchdir")
	if err == nil || !strings.Contains(err.Error(), "no such directory: nosuchdir") {
		t.Fatalf("err %v", err)
	}
}

// An interrupted campaign with a broken run folder: report names the
// skipped folder, prints the banner and writes it into summary.md.
func TestReportMarksIncompleteCampaign(t *testing.T) {
	dir := runstest.WriteCampaign(t, runstest.Run("r1", "share", 0, 900, 50))
	camp, err := runs.ReadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	camp.Status = runs.StatusInterrupted
	camp.Runs = append(camp.Runs, "r2")
	if err := runs.WriteJSON(filepath.Join(dir, "campaign.json"), camp); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "runs", "r2"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "runs", "r2", "run.json"), []byte("null"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := execute(t, "report", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"INCOMPLETE CAMPAIGN: status interrupted", "skipped: " + dir + ": run r2 skipped", "wrote " + filepath.Join(dir, "summary.md")} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "INCOMPLETE CAMPAIGN: status interrupted") {
		t.Errorf("summary.md has no banner:\n%s", md)
	}
}
