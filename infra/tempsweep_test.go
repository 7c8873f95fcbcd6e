package infra

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The sweep removes the temporary folders whose owner file names a
// harness that no longer runs, and only those: not a live harness's, not
// one without an owner file, not another host's, not a folder of another
// name.
func TestSweepRemovesOnlyDeadHarnessesFolders(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	deadPID := dead.Process.Pid // run and reaped: no such process now
	if alive, _ := ProcessAlive(deadPID); alive {
		t.Skipf("pid %d was reused at once", deadPID)
	}
	host, _ := os.Hostname()
	parent := t.TempDir()
	mk := func(name, owner string) string {
		dir := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(dir, "node-1", "data"), 0o755); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	deadOwner := strconv.Itoa(deadPID) + " " + host + "\n"
	kafka := mk("sharebench-kafka-1", deadOwner)
	pg := mk("sharebench-postgres-2", deadOwner)
	live := mk("sharebench-kafka-3", strconv.Itoa(os.Getppid())+" "+host+"\n")
	older := mk("sharebench-kafka-4", "")
	elsewhere := mk("sharebench-kafka-5", strconv.Itoa(deadPID)+" another-host\n")
	other := mk("sb-resume-test-6", deadOwner)
	garbled := mk("sharebench-kafka-7", "not a pid\n")

	var log strings.Builder
	removed := sweepParent(parent, &log)
	slices.Sort(removed)
	if want := []string{kafka, pg}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, dir := range []string{kafka, pg} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s still there: %v", dir, err)
		}
		if !strings.Contains(log.String(), "removed "+dir) {
			t.Errorf("log does not name %s:\n%s", dir, log.String())
		}
	}
	for _, dir := range []string{live, older, elsewhere, other, garbled} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was removed: %v", dir, err)
		}
	}
}

// markOwner names this process, so its own folders are never swept.
func TestMarkOwnerNamesThisHarness(t *testing.T) {
	dir := t.TempDir()
	if err := markOwner(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil || !strings.HasPrefix(string(b), strconv.Itoa(os.Getpid())+" ") {
		t.Fatalf("owner file %q, %v", b, err)
	}
	if orphanedTemp(dir) {
		t.Error("this harness's own folder counted as orphaned")
	}
}
