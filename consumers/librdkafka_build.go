package consumers

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sharebench/sharebench/internal/cachedir"
)

// The librdkafka runner (rdkafkarunner/runner.py) runs on confluent-kafka,
// the Python binding that ships librdkafka in its wheel, installed on first
// use into a virtual environment in the cache, like the Java runner's build.
const (
	// confluentKafkaVersion is the pinned confluent-kafka (its wheel bundles
	// librdkafka 2.16.0, whose ShareConsumer is a KIP-932 preview).
	confluentKafkaVersion = "2.16.1"
	// crc32cVersion is the pinned crc32c package: the frames' CRC-32C in C
	// (runner.py falls back to a pure-Python table without it).
	crc32cVersion = "2.9.post0"
	// psycopgVersion is the pinned psycopg (with its binary wheel, which
	// bundles libpq): the write stage's driver (runner.py's Destination).
	psycopgVersion = "3.3.6"
	// LibrdkafkaPreview is printed with every run on the librdkafka client.
	LibrdkafkaPreview = "librdkafka's share consumer is a preview (KIP-932 support in librdkafka is not recommended for production use by its authors)"
)

//go:embed rdkafkarunner/runner.py
var librdkafkaRunnerSrc []byte

// librdkafkaMarker is written last into a built runner directory, with the
// versions the runner's Python reports.
const librdkafkaMarker = ".sharebench-complete.json"

// LibrdkafkaVersions are the versions of a built librdkafka runner, as
// run.json records them.
type LibrdkafkaVersions struct {
	Package    string `json:"package"`    // "confluent-kafka 2.16.1"
	Librdkafka string `json:"librdkafka"` // "2.16.0"
	Python     string `json:"python"`     // "3.11.7"
}

// CheckLibrdkafkaClient reports what client librdkafka is missing on this
// host: python3 with the venv module (to install confluent-kafka into the
// cache).
func CheckLibrdkafkaClient() error {
	if _, err := exec.LookPath("python3"); err != nil {
		return fmt.Errorf("client librdkafka needs python3 (3.9+) with venv: python3 not found on PATH; " +
			"install it (Debian: apt-get install python3 python3-venv), or use client franz-go")
	}
	if out, err := exec.Command("python3", "-c", "import venv, ensurepip").CombinedOutput(); err != nil {
		return fmt.Errorf("client librdkafka needs python3's venv and ensurepip modules (%s); "+
			"install them (Debian: apt-get install python3-venv), or use client franz-go", strings.TrimSpace(lastLines(string(out), 1)))
	}
	return nil
}

// librdkafkaRunnerName is the runner's cache directory name: the pinned
// packages and a hash of the runner's source, so a changed runner or pin
// is installed again.
func librdkafkaRunnerName() string {
	h := sha256.New()
	fmt.Fprintf(h, "confluent-kafka==%s\x00crc32c==%s\x00psycopg[binary]==%s\x00", confluentKafkaVersion, crc32cVersion, psycopgVersion)
	h.Write(librdkafkaRunnerSrc)
	h.Write([]byte(librdkafkaVersionProbe))
	return "rdkafkarunner-" + confluentKafkaVersion + "-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// LibrdkafkaRunnerDir returns the directory of the librdkafka runner (a
// virtual environment venv/ with confluent-kafka, and runner.py), installing
// it on first use into the cache (cachedir.Root()/rdkafkarunner-<version>-<hash>):
// python3 -m venv, then pip install of the pinned packages, in a temporary
// directory renamed into place when complete. Progress lines go to log.
func LibrdkafkaRunnerDir(ctx context.Context, log io.Writer) (string, error) {
	if err := CheckLibrdkafkaClient(); err != nil {
		return "", err
	}
	root, err := cachedir.Root()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, librdkafkaRunnerName())
	var start time.Time
	var v LibrdkafkaVersions
	built, err := cachedir.Build{Dir: dir, What: "librdkafka runner",
		Complete: func(d string) bool { return cachedir.Exists(filepath.Join(d, librdkafkaMarker)) },
		Fill: func(tmp string) error {
			progress(log, "installing confluent-kafka %s (librdkafka) into a virtual environment in %s (once)", confluentKafkaVersion, dir)
			start = time.Now()
			var err error
			v, err = installLibrdkafkaRunner(ctx, tmp)
			return err
		},
	}.Ensure()
	if err != nil {
		return "", err
	}
	if built {
		progress(log, "installed confluent-kafka %s (librdkafka %s) in %s", confluentKafkaVersion, v.Librdkafka, time.Since(start).Round(time.Second))
	}
	return dir, nil
}

// installLibrdkafkaRunner makes a virtual environment in tmp, installs the
// pinned packages into it, writes runner.py and, last, the marker with the
// versions the venv's python loads.
func installLibrdkafkaRunner(ctx context.Context, tmp string) (LibrdkafkaVersions, error) {
	// The venv's python finds its site-packages from pyvenv.cfg beside it,
	// so it keeps working once the directory is renamed (its pip script's
	// shebang would not: pip runs as python -m pip).
	steps := [][]string{
		{"python3", "-m", "venv", filepath.Join(tmp, "venv")},
		{filepath.Join(tmp, "venv", "bin", "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
			"--no-input", "confluent-kafka==" + confluentKafkaVersion, "crc32c==" + crc32cVersion,
			"psycopg[binary]==" + psycopgVersion},
	}
	for _, s := range steps {
		cmd := exec.CommandContext(ctx, s[0], s[1:]...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return LibrdkafkaVersions{}, fmt.Errorf("librdkafka runner: install interrupted: %w", ctx.Err())
			}
			return LibrdkafkaVersions{}, fmt.Errorf("librdkafka runner: %s failed (%w); can pip reach its package index? output ends:\n%s",
				strings.Join(s[:min(len(s), 4)], " "), err, lastLines(out.String(), 30))
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "runner.py"), librdkafkaRunnerSrc, 0o644); err != nil {
		return LibrdkafkaVersions{}, fmt.Errorf("librdkafka runner: %w", err)
	}
	v, err := readLibrdkafkaVersions(ctx, filepath.Join(tmp, "venv", "bin", "python"))
	if err != nil {
		return LibrdkafkaVersions{}, err
	}
	b, _ := json.Marshal(v)
	if err := os.WriteFile(filepath.Join(tmp, librdkafkaMarker), b, 0o644); err != nil {
		return LibrdkafkaVersions{}, fmt.Errorf("librdkafka runner: %w", err)
	}
	return v, nil
}

// librdkafkaVersionProbe prints the versions of confluent-kafka (version()
// is a string), of the librdkafka it loads (libversion() a tuple) and of
// Python.
const librdkafkaVersionProbe = `import sys, confluent_kafka as c
assert hasattr(c, "ShareConsumer"), "confluent_kafka has no ShareConsumer"
v = c.version()
print(v if isinstance(v, str) else v[0], c.libversion()[0], "%d.%d.%d" % sys.version_info[:3])`

// readLibrdkafkaVersions asks the venv's python which confluent-kafka and
// librdkafka it loads (and which ShareConsumer it has: none is refused).
func readLibrdkafkaVersions(ctx context.Context, python string) (LibrdkafkaVersions, error) {
	out, err := exec.CommandContext(ctx, python, "-c", librdkafkaVersionProbe).CombinedOutput()
	f := strings.Fields(string(out))
	if err != nil || len(f) != 3 {
		return LibrdkafkaVersions{}, fmt.Errorf("librdkafka runner: confluent-kafka does not load (%v): %s", err, lastLines(string(out), 10))
	}
	return LibrdkafkaVersions{Package: "confluent-kafka " + f[0], Librdkafka: f[1], Python: f[2]}, nil
}

// InstalledLibrdkafkaVersions are the versions of the runner installed in
// the cache for this build, or ok false when it is not installed.
func InstalledLibrdkafkaVersions() (LibrdkafkaVersions, bool) {
	root, err := cachedir.Root()
	if err != nil {
		return LibrdkafkaVersions{}, false
	}
	b, err := os.ReadFile(filepath.Join(root, librdkafkaRunnerName(), librdkafkaMarker))
	var v LibrdkafkaVersions
	if err != nil || json.Unmarshal(b, &v) != nil {
		return LibrdkafkaVersions{}, false
	}
	return v, true
}

// librdkafkaCommand is the runner's command line in a runner directory.
func librdkafkaCommand(dir, cfgFile string) *exec.Cmd {
	// -u: unbuffered stderr lines; -X dev off; frames are written with os.write.
	return exec.Command(filepath.Join(dir, "venv", "bin", "python"), "-u", filepath.Join(dir, "runner.py"), cfgFile)
}
