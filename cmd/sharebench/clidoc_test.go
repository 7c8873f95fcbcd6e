package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite the generated docs/reference/cli.md")

// TestCLIReferenceUpToDate renders the command-line reference from the
// commands themselves and compares it with docs/reference/cli.md; with
// -update (make docs) it rewrites the page.
func TestCLIReferenceUpToDate(t *testing.T) {
	got := cliReference(newRoot())
	path := filepath.Join("..", "..", CLIReferencePath)
	if *updateDocs {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run make docs)", err)
	}
	if string(want) != got {
		t.Errorf("%s is stale: run make docs", CLIReferencePath)
	}
	for _, name := range []string{"## sharebench run", "`--dry-run`", "`--resume`", "## sharebench poc", "| 4 | no space |", "| 130 | interrupted |"} {
		if !strings.Contains(got, name) {
			t.Errorf("the CLI reference lacks %q", name)
		}
	}
	if strings.Contains(got, "## sharebench help") || strings.Contains(got, "## sharebench completion") {
		t.Error("the CLI reference lists cobra's own help or completion command")
	}
}

// Every exit constant is in exitStatuses once, so the reference and
// sharebench --help name every status exitCode can return.
func TestExitStatusesListEveryCode(t *testing.T) {
	seen := map[int]int{}
	for _, s := range exitStatuses {
		seen[s.code]++
		if s.name == "" || s.meaning == "" {
			t.Errorf("exit status %d has no name or meaning", s.code)
		}
	}
	for _, c := range []int{ExitOK, ExitError, ExitUsage, ExitVerdict, ExitNoSpace, ExitInterrupted} {
		if seen[c] != 1 {
			t.Errorf("exit status %d listed %d times", c, seen[c])
		}
	}
}
