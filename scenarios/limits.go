package scenarios

import (
	"github.com/sharebench/sharebench/internal/boundedread"
)

// Size limits of a scenario's inputs, checked before anything is read whole
// (a scenario file of /dev/zero, a description of 100 MB): a real scenario
// is a few KiB.
const (
	// MaxFileBytes is the largest scenario file read.
	MaxFileBytes = 1 << 20
	// MaxDescriptionBytes is the longest description: it is written into
	// campaign.json at every status change and into every report.
	MaxDescriptionBytes = 16 << 10
	// MaxNameLen is the longest scenario name: the name, a 17-character
	// UTC stamp and the run ids make file names, which the file system
	// bounds at 255 bytes.
	MaxNameLen = 100
	// maxEvents and maxExpectations bound the events: and expect: lists,
	// an alias (*anchor) counted as the item it names: every run carries
	// and checks each event, and each expectation is matched against
	// every run.
	maxEvents       = 1000
	maxExpectations = 1000
)

// ReadFileLimited reads a scenario file of at most MaxFileBytes, reading no
// more than one byte beyond that from anything (a FIFO, /dev/zero).
func ReadFileLimited(path string) ([]byte, error) {
	return boundedread.File(path, MaxFileBytes, "scenario file", "a few KiB of YAML")
}
