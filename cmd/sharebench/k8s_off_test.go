//go:build !k8s

package main

import (
	"strings"
	"testing"
)

// k8sDryRun is what a dry run with --distribute k8s and an image gives in
// this build: refused, naming the build tag.
var k8sDryRun = struct {
	want int
	says string
}{ExitUsage, "go build -tags k8s"}

// TestK8sNotBuilt: without the build tag, --distribute k8s and the k8s
// subcommands fail as bad usage and say which build has them.
func TestK8sNotBuilt(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--scenario", "smoke", "--provider", "kfake", "--shards", "2", "--distribute", "k8s", "--image", "i:v", "--dry-run"},
		{"k8s", "render", "--scenario", "smoke", "--shards", "2", "--image", "i:v"},
		{"k8s", "rootfs", "--out", "x.tar"},
	} {
		_, err := execute(t, args...)
		if err == nil || !strings.Contains(err.Error(), "go build -tags k8s") || !strings.Contains(err.Error(), "make build-k8s") {
			t.Errorf("%s: %v; want the build command named", strings.Join(args, " "), err)
		}
		if code := exitCode(err); code != ExitUsage {
			t.Errorf("%s: exit code %d; want %d", strings.Join(args, " "), code, ExitUsage)
		}
	}
	mk := launchers["k8s"]
	if mk == nil {
		t.Fatal(`launchers["k8s"] not registered: --distribute k8s would be "unknown" instead of "not built"`)
	}
	if _, err := mk(distributeFlags{Distribute: "k8s", Image: "i:v"}); err == nil || !strings.Contains(err.Error(), "-tags k8s") {
		t.Errorf("launcher: %v; want the build tag named", err)
	}
}
