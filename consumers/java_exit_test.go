//go:build unix

package consumers

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// exited runs sh -c script and returns its process state.
func exited(t *testing.T, script string) (*os.ProcessState, error) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	err := cmd.Run()
	return cmd.ProcessState, err
}

// Each way the runner can end is said specifically: the runner's own
// close-timeout exit, the harness's kill after the close timeout and its
// margin, a kill the harness did not send; other ends stay errors with the
// exit status, and a clean stop is no error.
func TestJavaExitReasons(t *testing.T) {
	code4, err4 := exited(t, "exit 4")
	code3, err3 := exited(t, "exit 3")
	killed, errKilled := exited(t, "kill -9 $$")
	clean, _ := exited(t, "exit 0")
	const tail = ": member(s) 3 did not close"
	for _, tc := range []struct {
		name   string
		x      javaExit
		reason ExitReason // 0: a plain error (or none)
		want   string     // "" : no error
	}{
		{"runner gave up on members", javaExit{state: code4, waitErr: err4, stopping: true, stderr: tail},
			ExitCloseTimeout, "members did not close their clients within the close timeout 10s; the runner gave up on them and exited (code 4): member(s) 3"},
		{"harness killed it after stop", javaExit{state: killed, waitErr: errKilled, stopping: true, killed: true, killedAfter: 25 * time.Second},
			ExitKilledAfterStop, "java runner had not exited 25s after it was told to stop (close timeout 10s + 15s): the harness killed it"},
		{"killed from outside mid-run", javaExit{state: killed, waitErr: errKilled},
			ExitKilled, "java runner was killed by signal killed, which the harness did not send"},
		{"killed from outside while stopping", javaExit{state: killed, waitErr: errKilled, stopping: true},
			ExitKilled, "killed by signal killed"},
		{"harness killed a corrupt stream", javaExit{state: killed, waitErr: errKilled, stopping: true, killed: true},
			0, "java runner exited with code -1 (signal: killed)"},
		{"member failed", javaExit{state: code3, waitErr: err3, stopping: true}, 0, "java runner exited with code 3"},
		{"exited unasked", javaExit{state: clean}, 0, "exited with code 0 before it was stopped"},
		{"clean stop", javaExit{state: clean, stopping: true}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.x.closeTimeout = 10 * time.Second
			err := tc.x.exitError()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to say %q", err, tc.want)
			}
			re, ok := AsRunnerExit(err)
			if tc.reason == 0 {
				if ok {
					t.Errorf("a RunnerExit (%v), want a plain error", re.Reason)
				}
				return
			}
			if !ok || re.Reason != tc.reason {
				t.Fatalf("RunnerExit %+v, want reason %v", re, tc.reason)
			}
			if got := re.CloseTimeoutExceeded(); got != (tc.reason != ExitKilled) {
				t.Errorf("CloseTimeoutExceeded %v", got)
			}
		})
	}
}

// The runner's properties carry the fetch settings franz-go's members get,
// and where the first member reports the settings it resolved.
func TestJavaRunnerConfigFetchAndSettings(t *testing.T) {
	c := Config{Members: 1, Workers: 1, MaxPollRecords: 1, Style: StyleBlocking, Type: ShareGroup, Acquire: AcquireRecordLimit, Ack: AckExplicit,
		Client: ClientJava, KafkaVersion: "4.2.2",
		Fetch: Fetch{MaxWait: 100 * time.Millisecond, MinBytes: 10, MaxBytes: 2 << 20, MaxPartitionBytes: 64 << 10}}
	if err := c.validate(); err != nil {
		t.Fatal(err)
	}
	path, err := writeRunnerConfig(c, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(path)) // the config's own directory (writeRunnerConfig)
	b, _ := os.ReadFile(path)
	for _, want := range []string{"fetch_max_wait_ns=100000000\n", "fetch_min_bytes=10\n", "fetch_max_bytes=2097152\n",
		"fetch_max_partition_bytes=65536\n", "settings_file=" + javaSettingsFile(path) + "\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("runner properties lack %q:\n%s", want, b)
		}
	}
	on := true
	c.Fetch.Prefetch = &on
	if err := c.validate(); err == nil || !strings.Contains(err.Error(), "client java has no prefetch setting") {
		t.Errorf("prefetch on with java: %v", err)
	}
}
