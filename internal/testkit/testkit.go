package testkit

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/envvars"
)

// RequireEnv names the environment variable that turns a missing Java or
// Maven from a skip into a failure. .ci/run sets it: on this project's
// machines the process-provider tests must run, never skip.
const RequireEnv = envvars.RequireBrokers

// Required reports whether RequireEnv is set to 1 (or true).
func Required() bool {
	v := strings.ToLower(os.Getenv(RequireEnv))
	return v == "1" || v == "true"
}

// MissingTools returns why the named tools cannot be used here (each not on
// PATH), or "" when all are present.
func MissingTools(tools ...string) string {
	var missing []string
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("%s not on PATH (.ci/run installs openjdk-17-jre-headless and maven)", strings.Join(missing, " and "))
}

// Unavailable ends a test that cannot run here: it fails when brokers are
// required (RequireEnv) and skips otherwise, printing reason either way.
// Under -short it always skips.
func Unavailable(t testing.TB, reason string) {
	t.Helper()
	switch {
	case testing.Short():
		t.Skipf("-short: skipped (%s)", reason)
	case Required():
		t.Fatalf("%s=1 but real brokers cannot run: %s", RequireEnv, reason)
	default:
		t.Skipf("skipping: %s (set %s=1 to make this a failure)", reason, RequireEnv)
	}
}

// NeedTools skips (or fails, see Unavailable) unless every tool is on
// PATH. With -short it skips: these tests start real brokers.
func NeedTools(t testing.TB, tools ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts real Kafka brokers")
	}
	if reason := MissingTools(tools...); reason != "" {
		Unavailable(t, reason)
	}
}

// NeedJava needs java and mvn: the process provider resolves the Kafka jars
// with Maven and runs them on Java.
func NeedJava(t testing.TB) { t.Helper(); NeedTools(t, "java", "mvn") }

// CIEnv is the variable CI systems set (CI=true); where it is set, as
// where RequireEnv is, the container tests must run.
const CIEnv = "CI"

// DockerRequired reports whether the container provider's tests must run
// here: RequireEnv is set (.ci/run sets it; .ci/run starts dockerd and
// builds the broker image) or CI is true or 1.
func DockerRequired() bool {
	v := strings.ToLower(os.Getenv(CIEnv))
	return Required() || v == "1" || v == "true"
}

// NeedDocker ends the test when err says the container provider cannot run
// here (no engine answers, no usable image): a failure naming err where
// DockerRequired (on this project's machines a Docker engine does start:
// a container test that skipped there would hide a broken provider), a
// skip otherwise. Under -short it always skips.
func NeedDocker(t testing.TB, err error) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts broker containers")
	}
	if err == nil {
		return
	}
	if DockerRequired() {
		t.Fatalf("%s=1 or %s=true, but the container provider cannot run: %v (.ci/run starts dockerd and runs make image)", RequireEnv, CIEnv, err)
	}
	t.Skipf("skipping container test: %v (.ci/run starts dockerd and runs make image; set %s=1 to make this a failure)", err, RequireEnv)
}

// Log returns a writer that sends each write, a progress line, to t.Log.
func Log(t testing.TB) io.Writer { return logWriter{t} }

type logWriter struct{ t testing.TB }

func (l logWriter) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// Alive reports whether pid is a live process: it exists and is not a
// zombie (a harness killed hard leaves its dead children as zombies until
// init reaps them).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil // no /proc here: the signal's answer
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	return s[i+2] != 'Z' && s[i+2] != 'X'
}

// KillAll sends SIGKILL to every pid still alive.
func KillAll(pids []int) {
	for _, pid := range pids {
		if Alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// AssertGone fails for every pid still alive after waiting up to wait, and
// kills it, so that a failing test leaves no JVM behind.
func AssertGone(t testing.TB, pids []int, wait time.Duration) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for _, pid := range pids {
		for Alive(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if Alive(pid) {
			t.Errorf("broker pid %d still running", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// JVMsUnder returns the pids of live java processes whose command line
// mentions dir: the brokers and tools of a cluster whose work dir is there.
func JVMsUnder(dir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(cmdline), dir) && strings.Contains(string(cmdline), "java") && Alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
