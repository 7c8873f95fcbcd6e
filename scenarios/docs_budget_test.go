package scenarios_test

import (
	"path"
	"slices"
	"strings"
	"testing"
)

// The manual's parts and their word budgets (words as wc -w counts them).
// The required reading is README.md and docs/start-here.md; the how-to
// guides are one task a page; the explanation is the measurement model and
// the capacity formulas. The generated reference (docs/reference/) and the
// lab notebook (docs/lab/) are outside the budget.
const (
	startHereWords       = 1500
	requiredReadingWords = 3000
	howToWords           = 1500
	explanationWords     = 6000
	manualWords          = 30000 // everything but docs/reference/ and docs/lab/
	longestLine          = 300   // characters, outside docs/reference/ and docs/lab/
)

// part names the part of the manual a page belongs to, "" for none.
func part(page string) string {
	switch {
	case page == "README.md" || page == "docs/README.md" || page == "docs/start-here.md":
		return "start"
	case strings.HasPrefix(page, "docs/") && strings.Count(page, "/") == 2:
		return strings.Split(page, "/")[1]
	}
	return ""
}

func words(text string) int { return len(strings.Fields(text)) }

// TestManualWordBudget keeps the manual readable: every page in one of its
// parts, each part within its word budget, no line a wall of text, and
// every reference page generated.
func TestManualWordBudget(t *testing.T) {
	pages := manualPages(t)
	parts := []string{"start", "how-to", "explanation", "contributing", "reference", "lab"}
	total, explanation := 0, 0
	var names []string
	for p := range pages {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		text, part := pages[p], part(p)
		if !slices.Contains(parts, part) {
			t.Errorf("%s is in none of the manual's parts (%s): move it", p, strings.Join(parts, ", "))
			continue
		}
		n := words(text)
		switch part {
		case "reference":
			if head := text[:min(len(text), 300)]; !strings.Contains(strings.ToLower(head), "generated") {
				t.Errorf("%s: a reference page is generated from the code; this one is not marked as generated", p)
			}
			continue
		case "lab":
			continue
		case "how-to":
			if n > howToWords {
				t.Errorf("%s: %d words, a how-to guide has at most %d", p, n, howToWords)
			}
		case "explanation":
			explanation += n
		}
		total += n
		fence := false
		for i, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "```") {
				fence = !fence
			}
			if !fence && len([]rune(line)) > longestLine {
				t.Errorf("%s:%d: a line of %d characters (at most %d): break it up", p, i+1, len([]rune(line)), longestLine)
			}
		}
	}
	if n := words(pages["docs/start-here.md"]); n == 0 || n > startHereWords {
		t.Errorf("docs/start-here.md: %d words, want 1 to %d", n, startHereWords)
	}
	if n := words(pages["README.md"]) + words(pages["docs/start-here.md"]); n > requiredReadingWords {
		t.Errorf("README.md and docs/start-here.md: %d words together, the required reading has at most %d", n, requiredReadingWords)
	}
	if explanation > explanationWords {
		t.Errorf("docs/explanation/: %d words, at most %d", explanation, explanationWords)
	}
	if total > manualWords {
		t.Errorf("the manual outside docs/reference/ and docs/lab/: %d words, at most %d", total, manualWords)
	}
	t.Logf("manual outside the reference and the lab: %d words; explanation %d", total, explanation)
	for _, p := range []string{"README.md", "docs/start-here.md"} {
		for _, m := range linkRE.FindAllStringSubmatch(pages[p], -1) {
			if strings.Contains(path.Clean(m[1]), "lab/") && !strings.HasSuffix(m[1], "lab/README.md") {
				t.Errorf("%s links to the lab study %s: the required reading needs no lab result", p, m[1])
			}
		}
	}
}
