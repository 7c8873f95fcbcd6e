package cachedir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Build is a directory of the cache that is built once and then reused:
// the broker jars (infra), the Java client runner and the librdkafka
// runner's virtual environment (consumers).
type Build struct {
	// Dir is where the finished build lives.
	Dir string
	// What names the build in errors: "kafka 4.2.2 jars", "java runner".
	What string
	// Complete reports whether a directory holds a finished build.
	Complete func(dir string) bool
	// Fill builds into tmp, an empty directory beside Dir, writing what
	// Complete checks last. Its errors are returned as they are.
	Fill func(tmp string) error
}

// StaleAfter is the age after which a temporary build directory counts as
// left behind by a build that was killed hard; younger ones may belong to
// a concurrent build.
const StaleAfter = time.Hour

// Ensure makes Dir a finished build unless it is one already. The build
// fills a fresh temporary directory beside Dir (Dir.tmp-*), which is renamed
// into place only once Fill succeeded and Complete holds, so an interrupted
// or failed build never leaves a directory that looks usable (the temporary
// one is removed on every path). A build another process finished first is
// kept; an incomplete directory in the way is replaced. Temporary
// directories older than StaleAfter are removed first. built reports
// whether this call built Dir.
func (b Build) Ensure() (built bool, err error) {
	if b.Complete(b.Dir) {
		return false, nil
	}
	root, name := filepath.Dir(b.Dir), filepath.Base(b.Dir)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return false, fmt.Errorf("%s: cache dir: %w", b.What, err)
	}
	removeStale(root, name+".tmp-", StaleAfter)
	tmp, err := os.MkdirTemp(root, name+".tmp-")
	if err != nil {
		return false, fmt.Errorf("%s: %w", b.What, err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed into place
	if err := b.Fill(tmp); err != nil {
		return false, err
	}
	if !b.Complete(tmp) {
		return false, fmt.Errorf("%s: the build in %s finished incomplete", b.What, tmp)
	}
	if err := os.Rename(tmp, b.Dir); err != nil {
		if b.Complete(b.Dir) {
			return false, nil // another process finished first
		}
		// An incomplete directory from elsewhere is in the way: replace it.
		if rmErr := os.RemoveAll(b.Dir); rmErr != nil {
			return false, fmt.Errorf("%s: replace incomplete %s: %w", b.What, b.Dir, rmErr)
		}
		if err := os.Rename(tmp, b.Dir); err != nil {
			return false, fmt.Errorf("%s: %w", b.What, err)
		}
	}
	return true, nil
}

// removeStale removes the directories in root whose names start with
// prefix and that are older than age.
func removeStale(root, prefix string, age time.Duration) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > age {
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}
