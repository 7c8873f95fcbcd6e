package infra

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A harness killed hard (SIGKILL, a crash, the machine stopped) cannot
// remove the temporary folders it made under $TMPDIR: a process cluster's
// root (broker data, logs) and an embedded PostgreSQL's cluster. Each such
// folder carries an owner file naming the harness (its pid and host), and
// a later harness removes the folders whose owner no longer runs
// (SweepOrphanedTemp): at every process-provider start and every
// embedded-PostgreSQL start, and at run --resume.

// ownerFile is the owner file's name inside a temporary folder.
const ownerFile = "sharebench-owner"

// tempPrefixes are the temporary folders SweepOrphanedTemp looks at.
var tempPrefixes = []string{"sharebench-kafka-", "sharebench-postgres-"}

// maxSweep bounds the entries of one parent folder SweepOrphanedTemp reads.
const maxSweep = 10_000

// markOwner writes the owner file of dir: this process's pid and host.
func markOwner(dir string) error {
	host, _ := os.Hostname()
	return os.WriteFile(filepath.Join(dir, ownerFile), []byte(fmt.Sprintf("%d %s\n", os.Getpid(), host)), 0o644)
}

// orphanedTemp reports whether dir's owner file names a harness on this host
// that no longer runs. A folder without an owner file (made by an older
// sharebench, or one being made now), of another host, of a live harness,
// or whose owner cannot be told is not.
func orphanedTemp(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		return false
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	if host, _ := os.Hostname(); host != fields[1] {
		return false
	}
	alive, _ := ProcessAlive(pid) // doubt counts as alive (alive.go)
	return !alive
}

// SweepOrphanedTemp removes the temporary folders (broker data, embedded
// PostgreSQL clusters) of harnesses that no longer run, from the parents a
// harness makes them in ($TMPDIR, and /tmp, where an embedded PostgreSQL
// goes when $TMPDIR is not searchable), and names each on log (nil:
// discarded). It returns the folders removed; a folder it cannot remove is
// named on log and left.
func SweepOrphanedTemp(log io.Writer) []string {
	if log == nil {
		log = io.Discard
	}
	var removed []string
	seen := map[string]bool{}
	for _, parent := range []string{os.TempDir(), "/tmp"} {
		if abs, err := filepath.Abs(parent); err == nil {
			parent = abs
		}
		if seen[parent] {
			continue
		}
		seen[parent] = true
		removed = append(removed, sweepParent(parent, log)...)
	}
	return removed
}

// sweepParent is SweepOrphanedTemp in one parent folder.
func sweepParent(parent string, log io.Writer) []string {
	d, err := os.Open(parent)
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(maxSweep)
	d.Close()
	var removed []string
	for _, name := range names {
		if !hasTempPrefix(name) {
			continue
		}
		dir := filepath.Join(parent, name)
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || !orphanedTemp(dir) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintf(log, "infra: the temporary folder %s of a harness that no longer runs could not be removed: %v\n", dir, err)
			continue
		}
		fmt.Fprintf(log, "infra: removed %s, left by a harness that no longer runs\n", dir)
		removed = append(removed, dir)
	}
	return removed
}

func hasTempPrefix(name string) bool {
	for _, p := range tempPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
