package infra

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/internal/envvars"
)

// The container start script formats a fresh node with the feature levels
// it is given (Kafka 4.1: share.version=1), then execs the broker; without
// them it formats as before. Run with sh and a stand-in java that records
// its arguments, the script's directory moved under a temporary one.
func TestContainerStartScriptFormatsWithFeatures(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	for _, c := range []struct {
		name, features, want string
	}{
		{"4.1", "share.version=1", " --feature share.version=1"},
		{"4.2", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			bin, calls := filepath.Join(dir, "bin"), filepath.Join(dir, "calls")
			data := filepath.Join(dir, "data")
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			java := "#!/bin/sh\necho \"$*\" >> " + calls + "\n"
			script := strings.Replace(string(containerStartScript), "dir=/opt/sharebench", "dir="+dir, 1)
			for name, body := range map[string]string{
				filepath.Join(bin, "java"):              java,
				filepath.Join(dir, "start.sh"):          script,
				filepath.Join(dir, "server.properties"): "log.dirs=" + data + "\n",
			} {
				if err := os.WriteFile(name, []byte(body), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(sh, filepath.Join(dir, "start.sh"), "kafka.Kafka", "server.properties")
			cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", envvars.ClusterID + "=abc"}
			if c.features != "" {
				cmd.Env = append(cmd.Env, envvars.FormatFeatures+"="+c.features)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("start.sh: %v: %s", err, out)
			}
			b, err := os.ReadFile(calls)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			format := "kafka.tools.StorageTool format -t abc -c " + dir + "/server.properties" + c.want
			if len(lines) != 2 || !strings.HasSuffix(lines[0], format) || lines[1] != "kafka.Kafka server.properties" {
				t.Errorf("java calls %q, want a format ending %q then the broker", lines, format)
			}
		})
	}
}
