package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestReadStampedBuild(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"},
		Deps:     []*debug.Module{{Path: "github.com/twmb/franz-go", Version: "v1.22.3"}},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}}
	b := read(bi, true)
	want := Build{Version: "v1.2.3", Revision: "abc123", Dirty: true, Go: "go1.26.0", FranzGo: "v1.22.3"}
	if b != want {
		t.Fatalf("read = %+v, want %+v", b, want)
	}
	if s := b.String(); s != "sharebench v1.2.3 (abc123, dirty), go1.26.0, franz-go v1.22.3" {
		t.Errorf("String = %q", s)
	}
}

func TestGetInTestBinary(t *testing.T) {
	b := Get()
	if b.Go != runtime.Version() {
		t.Errorf("Go = %q, want %q", b.Go, runtime.Version())
	}
	if b.Version == "dev" || b.Version == "" {
		t.Errorf("Version = %q: must come from the build info", b.Version)
	}
	if !strings.HasPrefix(b.String(), "sharebench ") {
		t.Errorf("String = %q", b.String())
	}
}
