package cachedir

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/sharebench/sharebench/internal/envvars"
)

// Root returns the directory where sharebench caches downloads:
// $SHAREBENCH_CACHE if set, else $XDG_CACHE_HOME/sharebench, else
// ~/.cache/sharebench. It does not create it.
func Root() (string, error) { return root(os.Getenv, os.UserHomeDir) }

func root(getenv func(string) string, home func() (string, error)) (string, error) {
	if d := getenv(envvars.Cache); d != "" {
		return filepath.Abs(d)
	}
	if d := getenv("XDG_CACHE_HOME"); d != "" && filepath.IsAbs(d) {
		// The XDG spec says a relative value is invalid and must be ignored.
		return filepath.Join(d, "sharebench"), nil
	}
	h, err := home()
	if err != nil {
		return "", fmt.Errorf("cache dir: no $SHAREBENCH_CACHE, $XDG_CACHE_HOME or home directory: %w", err)
	}
	return filepath.Join(h, ".cache", "sharebench"), nil
}

// ReleaseVersion accepts Kafka release versions ("4.2.2", "4.3.0-rc1"); it
// also keeps a version safe to use in a directory name.
var ReleaseVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$`)

// Exists reports whether path exists.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
