package infra

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/cachedir"
)

func TestParseJavaVersion(t *testing.T) {
	for _, tc := range []struct {
		out     string
		version string
		major   int
	}{
		{"openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)", "17.0.15", 17},
		{`java version "1.8.0_292"`, "1.8.0_292", 8},
		{`openjdk version "21" 2023-09-19`, "21", 21},
		{`openjdk version "25-ea" 2025-09-16`, "25-ea", 25},
		{"Picked up JAVA_TOOL_OPTIONS: -Dx=1\nopenjdk version \"11.0.2\" 2019-01-15", "11.0.2", 11},
		{`java version "9"`, "9", 9},
	} {
		v, major, err := parseJavaVersion(tc.out)
		if err != nil || v != tc.version || major != tc.major {
			t.Errorf("parseJavaVersion(%q) = %q, %d, %v; want %q, %d", tc.out, v, major, err, tc.version, tc.major)
		}
	}
	for _, bad := range []string{"", "bash: java: command not found", `openjdk version "" x`, `version "x.y"`} {
		if _, _, err := parseJavaVersion(bad); err == nil {
			t.Errorf("parseJavaVersion(%q) accepted", bad)
		}
	}
}

func TestJarDirRejectsOddVersions(t *testing.T) {
	t.Setenv("SHAREBENCH_CACHE", t.TempDir())
	for _, v := range []string{"", "4.2", "../4.2.2", "4.2.2/x", "latest"} {
		if _, err := JarDir(v); err == nil {
			t.Errorf("JarDir(%q) accepted", v)
		}
	}
	if d, err := JarDir("4.3.0-rc1"); err != nil || filepath.Base(d) != "kafka-4.3.0-rc1" {
		t.Errorf("JarDir(4.3.0-rc1) = %q, %v", d, err)
	}
}

func TestEmbeddedPomResolvesKafkaAndLog4j(t *testing.T) {
	for _, want := range []string{"<artifactId>kafka_2.13</artifactId>", "${kafka.version}", "log4j-slf4j2-impl", "slf4j-api",
		"<artifactId>jmx_prometheus_javaagent</artifactId>", "<jmx.exporter.version>" + JMXExporterVersion + "</jmx.exporter.version>"} {
		if !strings.Contains(string(kafkaPom), want) {
			t.Errorf("embedded pom lacks %q", want)
		}
	}
}

// fakeTool writes an executable shell script called name into dir.
func fakeTool(t *testing.T, dir, name, script string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nPATH=/usr/bin:/bin\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// fakeMaven is an mvn that "downloads" two empty jars into -DoutputDirectory
// after checking it got a pom, and counts its runs in $dir/runs.
const fakeMaven = `
dir=$(dirname "$0")
echo run >> "$dir/runs"
prev=
for a in "$@"; do
  case "$a" in
    -DoutputDirectory=*) out="${a#-DoutputDirectory=}" ;;
    -Dkafka.version=*) v="${a#-Dkafka.version=}" ;;
  esac
  [ "$prev" = "-f" ] && pom="$a"
  prev="$a"
done
grep -q kafka_2.13 "$pom" || { echo "[ERROR] no pom"; exit 1; }
: > "$out/kafka_2.13-$v.jar"
: > "$out/slf4j-api-2.0.17.jar"
: > "$out/jmx_prometheus_javaagent-1.0.1.jar"
`

func runs(t *testing.T, bin string) int {
	b, _ := os.ReadFile(filepath.Join(bin, "runs"))
	return strings.Count(string(b), "run")
}

func TestResolveJarsResolvesOnceThenUsesCache(t *testing.T) {
	cache, bin := t.TempDir(), t.TempDir()
	t.Setenv("SHAREBENCH_CACHE", cache)
	t.Setenv("PATH", bin)
	fakeTool(t, bin, "mvn", fakeMaven)
	var log strings.Builder

	dir, err := ResolveJars(context.Background(), "4.2.2", &log)
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(cache, "kafka-4.2.2") {
		t.Errorf("jar dir %q, want %q", dir, filepath.Join(cache, "kafka-4.2.2"))
	}
	for _, f := range []string{"kafka_2.13-4.2.2.jar", "slf4j-api-2.0.17.jar", jarsMarker, JMXExporterJar()} {
		if !cachedir.Exists(filepath.Join(dir, f)) {
			t.Errorf("%s missing after resolution", f)
		}
	}
	if !strings.Contains(log.String(), "resolving Kafka 4.2.2 jars") {
		t.Errorf("no progress line; log: %q", log.String())
	}
	if n := runs(t, bin); n != 1 {
		t.Fatalf("mvn ran %d times, want 1", n)
	}
	if _, err := ResolveJars(context.Background(), "4.2.2", nil); err != nil {
		t.Fatal(err)
	}
	if n := runs(t, bin); n != 1 {
		t.Errorf("mvn ran again with a complete cache (%d runs)", n)
	}
	// Without Maven at all, the cache still serves.
	os.Remove(filepath.Join(bin, "mvn"))
	if _, err := ResolveJars(context.Background(), "4.2.2", nil); err != nil {
		t.Errorf("cached jars unusable without mvn: %v", err)
	}
	assertOnlyEntries(t, cache, "kafka-4.2.2")
}

func TestResolveJarsRedoesIncompleteCache(t *testing.T) {
	cache, bin := t.TempDir(), t.TempDir()
	t.Setenv("SHAREBENCH_CACHE", cache)
	t.Setenv("PATH", bin)
	fakeTool(t, bin, "mvn", fakeMaven)
	// A directory without the marker: as if written by something else.
	half := filepath.Join(cache, "kafka-4.2.2")
	os.MkdirAll(half, 0o755)
	os.WriteFile(filepath.Join(half, "kafka_2.13-4.2.2.jar"), nil, 0o644)
	if _, err := ResolveJars(context.Background(), "4.2.2", nil); err != nil {
		t.Fatal(err)
	}
	if n := runs(t, bin); n != 1 {
		t.Errorf("mvn ran %d times over an unmarked cache, want 1", n)
	}
	if !jarsComplete(half, "4.2.2") {
		t.Error("cache not complete after resolution")
	}
}

// A cache completed by an older sharebench (layout 1: marker without the
// layout line, no agent) is resolved again, and the agent lands off the
// classpath directory.
func TestResolveJarsRedoesOldLayout(t *testing.T) {
	cache, bin := t.TempDir(), t.TempDir()
	t.Setenv("SHAREBENCH_CACHE", cache)
	t.Setenv("PATH", bin)
	fakeTool(t, bin, "mvn", fakeMaven)
	old := filepath.Join(cache, "kafka-4.2.2")
	os.MkdirAll(old, 0o755)
	os.WriteFile(filepath.Join(old, "kafka_2.13-4.2.2.jar"), nil, 0o644)
	os.WriteFile(filepath.Join(old, jarsMarker), []byte("kafka 4.2.2 jars resolved by sharebench at 2026-11-29T20:06:55Z\n"), 0o644)
	if jarsComplete(old, "4.2.2") {
		t.Fatal("a layout-1 cache counts as complete")
	}
	dir, err := ResolveJars(context.Background(), "4.2.2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := runs(t, bin); n != 1 {
		t.Errorf("mvn ran %d times over a layout-1 cache, want 1", n)
	}
	if !cachedir.Exists(filepath.Join(dir, JMXExporterJar())) {
		t.Errorf("agent jar missing at %s", JMXExporterJar())
	}
	if cachedir.Exists(filepath.Join(dir, filepath.Base(JMXExporterJar()))) {
		t.Error("agent jar left on the classpath directory")
	}
}

func TestResolveJarsMavenFailureQuotesTail(t *testing.T) {
	cache, bin := t.TempDir(), t.TempDir()
	t.Setenv("SHAREBENCH_CACHE", cache)
	t.Setenv("PATH", bin)
	fakeTool(t, bin, "mvn", `
i=0; while [ $i -lt 500 ]; do echo "noise line $i"; i=$((i+1)); done
echo "[ERROR] Failed to execute goal: Could not resolve org.apache.kafka:kafka_2.13:jar:9.9.9" >&2
exit 1
`)
	_, err := ResolveJars(context.Background(), "9.9.9", nil)
	if err == nil {
		t.Fatal("resolution succeeded with a failing mvn")
	}
	msg := err.Error()
	for _, want := range []string{"9.9.9", "maven failed", "Could not resolve org.apache.kafka:kafka_2.13:jar:9.9.9", "noise line 499"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "noise line 1\n") {
		t.Errorf("error quotes all of mvn's output, not its tail (%d bytes)", len(msg))
	}
	assertOnlyEntries(t, cache)
}

func TestResolveJarsInterruptedLeavesNoCache(t *testing.T) {
	cache, bin := t.TempDir(), t.TempDir()
	t.Setenv("SHAREBENCH_CACHE", cache)
	t.Setenv("PATH", bin)
	fakeTool(t, bin, "mvn", `
for a in "$@"; do case "$a" in -DoutputDirectory=*) out="${a#-DoutputDirectory=}" ;; esac; done
: > "$out/kafka_2.13-4.2.2.jar"
echo $$ > "$(dirname "$0")/pid"
exec sleep 60
`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	began := time.Now()
	_, err := ResolveJars(ctx, "4.2.2", nil)
	if err == nil {
		t.Fatal("resolution succeeded although interrupted")
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("interrupted resolution returned after %v", d)
	}
	b, _ := os.ReadFile(filepath.Join(bin, "pid"))
	if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid == 0 {
		t.Error("fake mvn never ran")
	} else if processAlive(pid) {
		t.Errorf("mvn (pid %d) still running after the interrupted resolution", pid)
	}
	assertOnlyEntries(t, cache)
}

func TestResolveJarsWithoutMaven(t *testing.T) {
	t.Setenv("SHAREBENCH_CACHE", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	_, err := ResolveJars(context.Background(), "4.2.2", nil)
	if err == nil || !strings.Contains(err.Error(), "mvn not found on PATH") || !strings.Contains(err.Error(), "apt-get install maven") {
		t.Errorf("error %v; want one naming mvn and how to install it", err)
	}
}

func TestFindJava(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	_, err := FindJava(context.Background())
	if err == nil || !strings.Contains(err.Error(), "java not found on PATH") || !strings.Contains(err.Error(), "openjdk-17-jre-headless") {
		t.Errorf("no java: error %v; want one naming java and how to install it", err)
	}

	fakeTool(t, bin, "java", `echo 'openjdk version "11.0.2" 2019-01-15' >&2`)
	_, err = FindJava(context.Background())
	if err == nil || !strings.Contains(err.Error(), "11.0.2") || !strings.Contains(err.Error(), "Java 17+") {
		t.Errorf("java 11: error %v; want one saying 11.0.2 is too old for Java 17+", err)
	}

	fakeTool(t, bin, "java", `echo 'openjdk version "21.0.1" 2023-10-17' >&2`)
	j, err := FindJava(context.Background())
	if err != nil || j.Major != 21 || j.Path != filepath.Join(bin, "java") {
		t.Errorf("java 21: got %+v, %v", j, err)
	}
}

// assertOnlyEntries fails unless dir holds exactly the named entries (no
// temporary directories left behind).
func assertOnlyEntries(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}
