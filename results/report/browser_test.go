package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/internal/testkit"

	"github.com/sharebench/sharebench/internal/envvars"
)

// needChromium returns Debian's chromium (.ci/run installs it). Without
// it the browser tests skip, saying why, or fail where
// SHAREBENCH_REQUIRE_BROKERS=1 (CI) demands that everything runs.
func needChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testkit.Unavailable(t, "chromium not on PATH (apt-get install -y chromium; .ci/run installs it)")
	return ""
}

// chromiumArgs run a headless chromium that stays off the network and
// lets the page's timers run before it dumps the DOM or takes the shot.
func chromiumArgs(t *testing.T, extra ...string) []string {
	return append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
		"--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000", "--user-data-dir=" + t.TempDir()}, extra...)
}

// renderedFigure is one chart of a page as the page script left it.
type renderedFigure struct {
	id, kind, hover string
	points          int
}

var (
	figureTagRE = regexp.MustCompile(`<figure class="chart"[^>]*>`)
	attrRE      = regexp.MustCompile(`(data-[a-z-]+)="([^"]*)"`)
	bodyTagRE   = regexp.MustCompile(`<body[^>]*>`)
	// consoleErrRE: what chromium logs to stderr for an uncaught error or
	// console.error of the page.
	consoleErrRE = regexp.MustCompile(`(?m)^.*(Uncaught|CONSOLE\(\d+\)|console\.error).*$`)
)

func attrs(tag string) map[string]string {
	out := map[string]string{}
	for _, m := range attrRE.FindAllStringSubmatch(tag, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// checkInBrowser opens page#selftest in headless chromium and fails on
// any JavaScript error, on a chart without data points and on a chart
// whose legend shows no value on hover; it then takes a screenshot
// (into $SHAREBENCH_SCREENSHOTS when set, else a temporary folder) and
// logs its size. It returns the charts as drawn.
func checkInBrowser(t *testing.T, browser, page string) []renderedFigure {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(browser, chromiumArgs(t, "--dump-dom", "file://"+page+"#selftest")...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s --dump-dom: %v\n%s", browser, err, stderr.String())
	}
	dom := string(out)
	if errs := consoleErrRE.FindAllString(stderr.String(), -1); len(errs) > 0 {
		t.Errorf("the browser logged errors:\n%s", strings.Join(errs, "\n"))
	}
	body := attrs(bodyTagRE.FindString(dom))
	if body["data-js-errors"] != "0" {
		m := regexp.MustCompile(`(?s)<pre id="js-errors">(.*?)</pre>`).FindStringSubmatch(dom)
		t.Errorf("JavaScript errors (%q): %v", body["data-js-errors"], m)
	}
	var figs []renderedFigure
	for _, tag := range figureTagRE.FindAllString(dom, -1) {
		a := attrs(tag)
		f := renderedFigure{id: a["data-chart"], kind: a["data-kind"], hover: a["data-hover"]}
		f.points, _ = strconv.Atoi(a["data-points"])
		if f.points <= 0 {
			t.Errorf("chart %s (%s): no data points drawn (%q)", f.id, f.kind, a["data-points"])
		}
		if !strings.Contains(f.hover, "→") || strings.HasSuffix(f.hover, "→ ") {
			t.Errorf("chart %s (%s): hover shows no value (%q)", f.id, f.kind, f.hover)
		}
		figs = append(figs, f)
	}
	if len(figs) == 0 || body["data-charts-drawn"] != strconv.Itoa(len(figs)) {
		t.Errorf("%d charts on the page, %q drawn", len(figs), body["data-charts-drawn"])
	}
	for _, f := range figs {
		t.Logf("chart %s (%s): %d points, hover %s", f.id, f.kind, f.points, f.hover)
	}

	shots := os.Getenv(envvars.Screenshots)
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(shots, strings.TrimSuffix(filepath.Base(page), ".html")+".png")
	cmd = exec.Command(browser, chromiumArgs(t, "--screenshot="+shot, "--window-size=1300,2400", "file://"+page)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s --screenshot: %v\n%s", browser, err, out)
	}
	st, err := os.Stat(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	// A blank 1300×2400 PNG compresses to a few KB; charts and tables do not.
	if st.Size() < 50_000 {
		t.Errorf("screenshot is %d bytes: the page rendered (nearly) empty", st.Size())
	}
	t.Logf("screenshot %s: %d bytes", shot, st.Size())
	return figs
}
