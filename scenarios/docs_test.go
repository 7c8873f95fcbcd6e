package scenarios_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/sharebench/sharebench/scenarios"
)

// manualPages returns README.md and every Markdown page of docs/, keyed by
// their path relative to the repository root.
func manualPages(t *testing.T) map[string]string {
	t.Helper()
	pages := map[string]string{}
	err := filepath.WalkDir("../docs", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		pages[filepath.ToSlash(strings.TrimPrefix(p, "../"))] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	pages["README.md"] = string(data)
	if len(pages) < 10 {
		t.Fatalf("found %d manual pages", len(pages))
	}
	return pages
}

var yamlBlockRE = regexp.MustCompile("(?s)```yaml\n(.*?)```")

// TestManualScenarioExamples loads every complete scenario (a yaml block
// with a top-level name:) shown in README.md and docs/, and checks it
// against the JSON Schema, so the manual's examples stay runnable.
func TestManualScenarioExamples(t *testing.T) {
	schema := compileSchema(t)
	n := 0
	for path, text := range manualPages(t) {
		for i, m := range yamlBlockRE.FindAllStringSubmatch(text, -1) {
			block := m[1]
			if !regexp.MustCompile(`(?m)^name: `).MatchString(block) {
				continue // a fragment, not a whole scenario
			}
			if regexp.MustCompile(`(?m)^(on|jobs):`).MatchString(block) {
				continue // a CI workflow, not a scenario
			}
			n++
			if _, err := scenarios.LoadBytes(path, []byte(block), nil, nil); err != nil {
				t.Errorf("%s, yaml block %d: %v", path, i+1, err)
			}
			if err := schema.Validate(instance(t, path, []byte(block))); err != nil {
				t.Errorf("%s, yaml block %d does not match the schema: %v", path, i+1, err)
			}
		}
	}
	if n < 3 {
		t.Errorf("found %d complete scenario examples in the manual, want at least 3", n)
	}
}

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// slug is the anchor a Markdown renderer gives a heading.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists the heading anchors of a Markdown page (outside code blocks).
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
			continue
		}
		if h, ok := strings.CutPrefix(line, "#"); ok && !fence {
			out[slug(strings.TrimLeft(h, "#"))] = true
		}
	}
	return out
}

// TestManualLinks checks that every relative link of README.md and docs/
// names a file of the repository and, with #anchor, a heading of it.
// Links to the outside world are not followed.
func TestManualLinks(t *testing.T) {
	pages := manualPages(t)
	for path, text := range pages {
		for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			resolved := path
			if file != "" {
				resolved = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(path), file)))
				if strings.HasPrefix(resolved, "..") {
					t.Errorf("%s: link %q leaves the repository", path, target)
					continue
				}
				if _, err := os.Stat(filepath.Join("..", resolved)); err != nil {
					t.Errorf("%s: link %q: no file %s", path, target, resolved)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(resolved, ".md") {
				continue
			}
			if !anchors(pages[resolved])[anchor] {
				t.Errorf("%s: link %q: %s has no heading with anchor #%s", path, target, resolved, anchor)
			}
		}
	}
}

var (
	codeDocRE     = regexp.MustCompile(`docs/([a-z0-9/_.-]+\.md)(#[a-z0-9_-]+)?`)
	codeSectionRE = regexp.MustCompile(`docs/([a-z0-9/_.-]+\.md),? "([^"]+)"`)
)

// TestCodeCitesExistingDocs checks every manual page the code, the
// Makefile, the built-in scenarios and the runners cite (help texts, error
// messages, comments): the page exists and so does the anchor, or the
// section named in quotes after it.
func TestCodeCitesExistingDocs(t *testing.T) {
	pages := manualPages(t)
	n := 0
	err := filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "docs", "node_modules", "target", "bin", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(p)
		if ext != ".go" && ext != ".yaml" && ext != ".yml" && ext != ".sh" && ext != ".java" && ext != ".py" && d.Name() != "Makefile" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := strings.ReplaceAll(string(data), "\"\n", "\" ") // a section name quoted at a line's end
		for _, m := range codeDocRE.FindAllStringSubmatch(text, -1) {
			n++
			page, ok := pages["docs/"+m[1]]
			if !ok {
				t.Errorf("%s cites docs/%s: no such page", p, m[1])
				continue
			}
			if m[2] != "" && !anchors(page)[m[2][1:]] {
				t.Errorf("%s cites docs/%s%s: no such heading", p, m[1], m[2])
			}
		}
		for _, m := range codeSectionRE.FindAllStringSubmatch(text, -1) {
			if page, ok := pages["docs/"+m[1]]; ok && !anchors(page)[slug(m[2])] {
				t.Errorf("%s cites docs/%s, %q: no such heading", p, m[1], m[2])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Errorf("found %d citations of the manual in the code, want at least 50", n)
	}
}
