package version

import (
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
)

// Build describes the running binary.
type Build struct {
	Version  string `json:"version"`            // module version ("(devel)" for a source build)
	Revision string `json:"revision,omitempty"` // VCS commit
	Dirty    bool   `json:"dirty,omitempty"`    // the work tree had uncommitted changes
	Go       string `json:"go"`
	FranzGo  string `json:"franz_go,omitempty"` // github.com/twmb/franz-go
}

// String is the one line `sharebench version` prints.
func (b Build) String() string {
	s := "sharebench " + b.Version
	if b.Revision != "" {
		s += " (" + b.Revision
		if b.Dirty {
			s += ", dirty"
		}
		s += ")"
	}
	s += ", " + b.Go
	if b.FranzGo != "" {
		s += ", franz-go " + b.FranzGo
	}
	return s
}

var (
	once  sync.Once
	build Build
)

// Get reads the build information once.
func Get() Build {
	once.Do(func() { build = read(debug.ReadBuildInfo()) })
	return build
}

func read(bi *debug.BuildInfo, ok bool) Build {
	b := Build{Version: "(unknown)"}
	if !ok || bi == nil {
		return b
	}
	b.Go = bi.GoVersion
	if bi.Main.Version != "" {
		b.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.modified":
			b.Dirty = s.Value == "true"
		}
	}
	for _, d := range bi.Deps {
		if d.Path == "github.com/twmb/franz-go" {
			b.FranzGo = d.Version
		}
	}
	if b.Revision == "" {
		// `go run` and `go test` do not stamp VCS information: ask git,
		// when the working directory is a checkout.
		b.Revision, b.Dirty = gitRevision()
	}
	return b
}

func gitRevision() (string, bool) {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	rev := strings.TrimSpace(string(out))
	st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
	return rev, err == nil && len(strings.TrimSpace(string(st))) > 0
}

// Java returns the first line of `java -version` for the java on PATH, or ""
// when there is none.
func Java() string {
	out, err := exec.Command("java", "-version").CombinedOutput()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(line)
}
