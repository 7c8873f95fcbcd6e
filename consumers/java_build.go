package consumers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sharebench/sharebench/internal/cachedir"
)

// javaRunnerSrc is the Java runner's Maven project (javarunner/), built on
// first use against the kafka-clients of the run's Kafka version.
//
//go:embed javarunner/pom.xml javarunner/src/main
var javaRunnerSrc embed.FS

// javaRunnerJar is the runner's jar inside a built runner directory; its
// dependencies are in lib/.
const javaRunnerJar = "target/sharebench-javarunner.jar"

// javaRunnerMarker is written last into a built runner directory.
const javaRunnerMarker = ".sharebench-complete"

// CheckJavaClient reports what client java is missing on this host: a JDK
// (javac, to build the runner; java to run it) and Maven (to resolve
// kafka-clients and build).
func CheckJavaClient() error {
	var missing []string
	for _, tool := range []string{"java", "javac", "mvn"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("client java needs a JDK (javac) and Maven: %s not found on PATH; install a JDK 17+ and Maven "+
		"(Debian: apt-get install openjdk-17-jdk-headless maven), or use client franz-go", strings.Join(missing, ", "))
}

// javaRunnerHash identifies the embedded sources, so a changed runner is
// built again.
func javaRunnerHash() (string, error) {
	h := sha256.New()
	var paths []string
	err := fs.WalkDir(javaRunnerSrc, "javarunner", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, path)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	sort.Strings(paths)
	for _, p := range paths {
		b, err := javaRunnerSrc.ReadFile(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// JavaRunnerDir returns the directory of the Java runner built against
// kafka-clients kafkaVersion, building it with Maven on first use into the
// cache (cachedir.Root()/javarunner-<version>-<source hash>; about a minute the
// first time, then reused). The build happens in a temporary directory
// renamed into place when complete (cachedir.Build). Progress lines go to
// log (nil discards them).
func JavaRunnerDir(ctx context.Context, kafkaVersion string, log io.Writer) (string, error) {
	return runnerDir(ctx, javaBuild{client: ClientJava, kafkaVersion: kafkaVersion}, log)
}

// SpringRunnerDir returns the directory of the Spring runner: the Java
// runner's Maven project built with its spring profile, so with Spring for
// Apache Kafka springKafkaVersion on top of kafka-clients kafkaVersion
// (cachedir.Root()/springrunner-<kafka version>-<spring version>-<source
// hash>), on first use and then reused, as JavaRunnerDir. Both builds
// resolve into the same local Maven repository.
func SpringRunnerDir(ctx context.Context, kafkaVersion string, log io.Writer) (string, error) {
	return runnerDir(ctx, javaBuild{client: ClientSpring, kafkaVersion: kafkaVersion, springVersion: springKafkaVersion}, log)
}

// javaBuild is one build of the Java runner's Maven project: the plain
// runner (client java) or the one with Spring for Apache Kafka (client
// spring, springVersion set).
type javaBuild struct {
	client                      Client
	kafkaVersion, springVersion string
}

// what names the build in progress lines ("Java client runner").
func (b javaBuild) what() string {
	if b.springVersion != "" {
		return "Spring client runner"
	}
	return "Java client runner"
}

// runner names the runner in errors ("java runner").
func (b javaBuild) runner() string {
	return string(b.client) + " runner"
}

// dirName is the build's cache directory name for sources of hash sum.
func (b javaBuild) dirName(sum string) string {
	if b.springVersion != "" {
		return "springrunner-" + b.kafkaVersion + "-" + b.springVersion + "-" + sum
	}
	return "javarunner-" + b.kafkaVersion + "-" + sum
}

// mvnArgs are the arguments of the build's Maven run.
func (b javaBuild) mvnArgs() []string {
	args := []string{"-q", "-B", "-Dkafka.version=" + b.kafkaVersion, "-DskipTests"}
	if b.springVersion != "" {
		args = append(args, "-Pspring", "-Dspring.kafka.version="+b.springVersion)
	}
	return append(args, "package", "dependency:copy-dependencies", "-DincludeScope=runtime", "-DoutputDirectory=lib")
}

// jars are the jars a complete build has in lib/ beside the runner's.
func (b javaBuild) jars() []string {
	jars := []string{"kafka-clients-" + b.kafkaVersion + ".jar"}
	if b.springVersion != "" {
		jars = append(jars, "spring-kafka-"+b.springVersion+".jar")
	}
	return jars
}

// runnerDir builds b into the cache on first use and returns its directory.
func runnerDir(ctx context.Context, b javaBuild, log io.Writer) (string, error) {
	if !cachedir.ReleaseVersion.MatchString(b.kafkaVersion) {
		return "", fmt.Errorf("client %s: kafka version %q is not a release version like 4.2.2", b.client, b.kafkaVersion)
	}
	if err := CheckJavaClient(); err != nil {
		return "", err
	}
	root, err := cachedir.Root()
	if err != nil {
		return "", err
	}
	sum, err := javaRunnerHash()
	if err != nil {
		return "", fmt.Errorf("java runner sources: %w", err)
	}
	dir := filepath.Join(root, b.dirName(sum))
	var start time.Time
	built, err := cachedir.Build{Dir: dir, What: b.runner(),
		Complete: func(d string) bool { return cachedir.Exists(filepath.Join(d, javaRunnerMarker)) },
		Fill: func(tmp string) error {
			progress(log, "building the %s against kafka-clients %s with Maven into %s (once per version)", b.what(), b.kafkaVersion, dir)
			start = time.Now()
			return buildJavaRunner(ctx, b, tmp)
		},
	}.Ensure()
	if err != nil {
		return "", err
	}
	if built {
		progress(log, "built the %s in %s", b.what(), time.Since(start).Round(time.Second))
	}
	return dir, nil
}

// buildJavaRunner writes the runner's sources into tmp, builds b with Maven
// and writes the marker last.
func buildJavaRunner(ctx context.Context, b javaBuild, tmp string) error {
	name := b.runner()
	if err := writeJavaSources(tmp); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	cmd := exec.CommandContext(ctx, "mvn", b.mvnArgs()...)
	cmd.Dir = tmp
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: maven interrupted: %w", name, ctx.Err())
		}
		return fmt.Errorf("%s: maven build against kafka-clients %s failed (%w); is it a released Kafka version, "+
			"and can Maven reach its repository? mvn output ends:\n%s", name, b.kafkaVersion, err, lastLines(out.String(), 30))
	}
	if !cachedir.Exists(filepath.Join(tmp, javaRunnerJar)) {
		return fmt.Errorf("%s: maven succeeded but %s is missing in %s", name, javaRunnerJar, tmp)
	}
	for _, jar := range b.jars() {
		if !cachedir.Exists(filepath.Join(tmp, "lib", jar)) {
			return fmt.Errorf("%s: maven succeeded but lib/%s is missing in %s", name, jar, tmp)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, javaRunnerMarker), []byte("built "+time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// writeJavaSources writes the embedded Maven project into dir.
func writeJavaSources(dir string) error {
	return fs.WalkDir(javaRunnerSrc, "javarunner", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("javarunner", filepath.FromSlash(path))
		dst := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := javaRunnerSrc.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// javaClasspath is the runner's classpath in a built runner directory.
func javaClasspath(dir string) string {
	return filepath.Join(dir, javaRunnerJar) + string(os.PathListSeparator) + filepath.Join(dir, "lib", "*")
}

// progress writes one line to w (nil: nowhere).
func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

var errJavaRunnerGone = errors.New("java runner: gone")
