package infra

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sharebench/sharebench/internal/cachedir"
)

// kafkaPom is the Maven project whose dependencies are the broker's
// classpath: Kafka itself plus an SLF4J 2 binding to log4j2 (Kafka's jars
// leave the binding to the distribution).
//
//go:embed kafka/pom.xml
var kafkaPom []byte

// jarsMarker is written into a jar directory after everything else: its
// presence, with the current cacheLayout in it, is what makes a cached
// directory complete.
const jarsMarker = ".sharebench-complete"

// cacheLayout versions what a complete jar directory holds; bump it when the
// pom gains something, so older caches are resolved again. Layout 2 added
// the JMX exporter agent (agentDir/JMXExporterJar).
const cacheLayout = "sharebench jar cache layout 2"

// JMXExporterVersion is the Prometheus JMX exporter java agent resolved with
// the broker jars (the pom's jmx.exporter.version).
const JMXExporterVersion = "1.0.1"

// agentDir is the subdirectory of a jar directory that holds the agent jar,
// kept off the broker classpath (DIR/*): -javaagent adds it by itself.
const agentDir = "agent"

// JMXExporterJar is the agent jar's path relative to a jar directory.
func JMXExporterJar() string {
	return filepath.Join(agentDir, "jmx_prometheus_javaagent-"+JMXExporterVersion+".jar")
}

// MinJavaMajor is the oldest Java release Kafka 4.x brokers run on.
const MinJavaMajor = 17

const (
	installJava  = "install a Java 17+ runtime (Debian: apt-get install openjdk-17-jre-headless)"
	installMaven = "install Maven 3.6+ (Debian: apt-get install maven)"
)

// CacheDir returns the directory where sharebench caches downloads
// (cachedir.Root: $SHAREBENCH_CACHE, else $XDG_CACHE_HOME/sharebench, else
// ~/.cache/sharebench). It does not create it.
func CacheDir() (string, error) { return cachedir.Root() }

// JarDir returns the directory the jars of Kafka version are cached in,
// CacheDir()/kafka-<version>, whether or not they have been resolved yet.
func JarDir(version string) (string, error) {
	if !cachedir.ReleaseVersion.MatchString(version) {
		return "", fmt.Errorf("kafka version %q: not a release version like %s", version, DefaultKafkaVersion)
	}
	root, err := CacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "kafka-"+version), nil
}

// ResolveJars returns a directory holding the jars a broker of Kafka version
// runs on (use "DIR/*" as the Java classpath). The first call for a version
// resolves them with Maven into JarDir(version), which takes about a minute;
// later calls reuse the cache. Resolution happens in a temporary directory
// that is renamed into place only when complete (cachedir.Build), so an
// interrupted download never leaves a cache that looks usable. Progress
// lines go to log (nil discards them).
func ResolveJars(ctx context.Context, version string, log io.Writer) (string, error) {
	dir, err := JarDir(version)
	if err != nil {
		return "", err
	}
	var start time.Time
	built, err := cachedir.Build{Dir: dir, What: "kafka " + version + " jars",
		Complete: func(d string) bool { return jarsComplete(d, version) },
		Fill: func(tmp string) error {
			mvn, err := exec.LookPath("mvn")
			if err != nil {
				return fmt.Errorf("mvn not found on PATH: %s; it resolves the Kafka %s jars once into %s", installMaven, version, dir)
			}
			progress(log, "resolving Kafka %s jars with Maven into %s (about a minute, once)", version, dir)
			start = time.Now()
			return fillJars(ctx, mvn, version, tmp)
		},
	}.Ensure()
	if err != nil {
		return "", err
	}
	if built {
		progress(log, "resolved Kafka %s jars in %s", version, time.Since(start).Round(time.Second))
	}
	return dir, nil
}

// fillJars resolves the jars of version into tmp, the agent moved off the
// classpath, and writes the completion marker last.
func fillJars(ctx context.Context, mvn, version, tmp string) error {
	if err := runMaven(ctx, mvn, version, tmp); err != nil {
		return err
	}
	if !cachedir.Exists(filepath.Join(tmp, kafkaJar(version))) {
		return fmt.Errorf("kafka %s jars: maven succeeded but %s is missing from %s", version, kafkaJar(version), tmp)
	}
	if err := moveAgent(tmp); err != nil {
		return fmt.Errorf("kafka %s jars: %w", version, err)
	}
	marker := fmt.Sprintf("%s\nkafka %s jars resolved by sharebench at %s\n", cacheLayout, version, time.Now().UTC().Format(time.RFC3339))
	if err := os.WriteFile(filepath.Join(tmp, jarsMarker), []byte(marker), 0o644); err != nil {
		return fmt.Errorf("kafka %s jars: %w", version, err)
	}
	return nil
}

// runMaven copies the dependencies of the embedded pom for version into out.
func runMaven(ctx context.Context, mvn, version, out string) error {
	pomDir, err := os.MkdirTemp("", "sharebench-pom-")
	if err != nil {
		return fmt.Errorf("kafka %s jars: %w", version, err)
	}
	defer os.RemoveAll(pomDir)
	pom := filepath.Join(pomDir, "pom.xml")
	if err := os.WriteFile(pom, kafkaPom, 0o644); err != nil {
		return fmt.Errorf("kafka %s jars: %w", version, err)
	}
	cmd := exec.Command(mvn, "-q", "-B", "-f", pom,
		"-Dkafka.version="+version,
		"dependency:copy-dependencies",
		"-DoutputDirectory="+out)
	cmd.Dir = pomDir
	tail := &tailBuffer{max: 4 << 10}
	if err := runTool(ctx, cmd, tail); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("kafka %s jars: maven interrupted: %w", version, err)
		}
		return fmt.Errorf("kafka %s jars: maven failed (%w); is %s a released Kafka version, and can Maven reach its repository? mvn output ends:\n%s",
			version, err, version, tail)
	}
	return nil
}

func kafkaJar(version string) string { return "kafka_2.13-" + version + ".jar" }

// moveAgent moves the JMX exporter agent jar Maven copied into dir down into
// dir/agent, off the broker classpath.
func moveAgent(dir string) error {
	name := filepath.Base(JMXExporterJar())
	if !cachedir.Exists(filepath.Join(dir, name)) {
		return fmt.Errorf("jmx exporter agent: maven succeeded but %s is missing from %s", name, dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, agentDir), 0o755); err != nil {
		return fmt.Errorf("jmx exporter agent: %w", err)
	}
	if err := os.Rename(filepath.Join(dir, name), filepath.Join(dir, JMXExporterJar())); err != nil {
		return fmt.Errorf("jmx exporter agent: %w", err)
	}
	return nil
}

// jarsComplete reports whether dir is a finished resolution of version in
// the current cache layout.
func jarsComplete(dir, version string) bool {
	marker, err := os.ReadFile(filepath.Join(dir, jarsMarker))
	if err != nil || !strings.Contains(string(marker), cacheLayout+"\n") {
		return false
	}
	return cachedir.Exists(filepath.Join(dir, kafkaJar(version))) && cachedir.Exists(filepath.Join(dir, JMXExporterJar()))
}

// JavaRuntime is the java executable brokers run on.
type JavaRuntime struct {
	Path    string // absolute path of the java executable
	Major   int    // feature release: 17, 21, ...
	Version string // as printed by java -version, e.g. "17.0.15"
}

// FindJava locates java on PATH and checks it is Java 17 or newer.
func FindJava(ctx context.Context) (JavaRuntime, error) {
	path, err := exec.LookPath("java")
	if err != nil {
		return JavaRuntime{}, fmt.Errorf("java not found on PATH: %s", installJava)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out := &tailBuffer{max: 4 << 10}
	if err := runTool(ctx, exec.Command(path, "-version"), out); err != nil {
		return JavaRuntime{}, fmt.Errorf("java at %s: java -version: %w: %s", path, err, out)
	}
	version, major, err := parseJavaVersion(out.String())
	if err != nil {
		return JavaRuntime{}, fmt.Errorf("java at %s: %w", path, err)
	}
	if major < MinJavaMajor {
		return JavaRuntime{}, fmt.Errorf("java at %s is version %s: Kafka 4 brokers need Java %d+; %s and put it first on PATH",
			path, version, MinJavaMajor, installJava)
	}
	return JavaRuntime{Path: path, Major: major, Version: version}, nil
}

// javaVersionPattern finds the quoted version in the first line of
// `java -version` output: openjdk version "17.0.15" 2025-04-15,
// java version "1.8.0_292", openjdk version "21-ea".
var javaVersionPattern = regexp.MustCompile(`version "([^"]+)"`)

// parseJavaVersion extracts the version string and the feature release
// (major) from `java -version` output. Pre-9 versions are "1.<major>...".
func parseJavaVersion(out string) (version string, major int, err error) {
	m := javaVersionPattern.FindStringSubmatch(out)
	if m == nil {
		return "", 0, fmt.Errorf("java -version: no version in output %q", firstLine(out))
	}
	version = m[1]
	parts := strings.FieldsFunc(version, func(r rune) bool { return r == '.' || r == '_' || r == '-' || r == '+' })
	if len(parts) == 0 {
		return "", 0, fmt.Errorf("java -version: version %q: no number", version)
	}
	first := parts[0]
	if first == "1" && len(parts) > 1 {
		first = parts[1]
	}
	major, err = strconv.Atoi(first)
	if err != nil || major <= 0 {
		return "", 0, fmt.Errorf("java -version: version %q: no major release number", version)
	}
	return version, major, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// progress writes one progress line to w, if any.
func progress(w io.Writer, format string, args ...any) {
	if w == nil {
		return
	}
	fmt.Fprintf(w, "infra: "+format+"\n", args...)
}
