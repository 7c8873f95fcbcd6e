package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var shBlockRE = regexp.MustCompile("(?s)```sh\n(.*?)```")

// manualCommands returns every sharebench command line in the sh blocks of
// the pages a reader follows step by step (README, Start here, the how-to
// guides), keyed by "page:line", continuations joined.
func manualCommands(t *testing.T, root string) map[string]string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "how-to", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"), filepath.Join(root, "docs", "start-here.md"))
	out := map[string]string{}
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for i, m := range shBlockRE.FindAllStringSubmatch(string(data), -1) {
			joined := strings.ReplaceAll(m[1], "\\\n", " ")
			for j, line := range strings.Split(joined, "\n") {
				line = strings.TrimSpace(line)
				if strings.HasPrefix(line, "sharebench ") {
					out[rel+": block "+strconv.Itoa(i+1)+" line "+strconv.Itoa(j+1)] = line
				}
			}
		}
	}
	return out
}

// shellWords splits a command line as a POSIX shell would for the quoting
// the manual uses: single and double quotes, no expansions.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestManualCommandsRun runs every sharebench command the README, Start
// here and the how-to guides show: run and poc with --dry-run (so the
// scenario or profile they name must load and size), every other command
// parsed against its flags and arguments, so a renamed flag, a removed
// command or a broken example fails here. Commands that need a broker or a
// results folder are only parsed; k8s commands need a build with -tags k8s.
func TestManualCommandsRun(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmds := manualCommands(t, root)
	if len(cmds) < 20 {
		t.Fatalf("found %d sharebench commands in the manual, want at least 20", len(cmds))
	}
	t.Chdir(root)
	keys := make([]string, 0, len(cmds))
	for k := range cmds {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	executed := 0
	for _, where := range keys {
		line := cmds[where]
		args := shellWords(line)[1:]
		if i := slices.Index(args, "|"); i >= 0 {
			args = args[:i]
		}
		if i := slices.IndexFunc(args, func(a string) bool { return a == ">" || strings.HasPrefix(a, ">") || a == "&&" || a == ";" }); i >= 0 {
			args = args[:i]
		}
		c, rest, err := newRoot().Find(args)
		if err != nil || c == nil || (c.Name() == "sharebench" && len(args) > 0 && !strings.HasPrefix(args[0], "-")) {
			t.Errorf("%s: %q: no such command (%v)", where, line, err)
			continue
		}
		if c.Name() == "k8s" || (c.Parent() != nil && c.Parent().Name() == "k8s") {
			continue // the default build has only the k8s command's refusal
		}
		if err := c.ParseFlags(rest); err != nil {
			t.Errorf("%s: %q: %v", where, line, err)
			continue
		}
		if err := c.ValidateArgs(c.Flags().Args()); err != nil {
			t.Errorf("%s: %q: %v", where, line, err)
			continue
		}
		name := c.Name()
		resume, _ := c.Flags().GetString("resume")
		distribute, _ := c.Flags().GetString("distribute")
		if (name != "run" && name != "poc") || resume != "" || (distribute == "k8s" && !k8sBuilt) {
			continue
		}
		full := args
		if !slices.Contains(full, "--dry-run") {
			full = append(slices.Clone(full), "--dry-run")
		}
		var stdout, stderr bytes.Buffer
		if code := runMain(context.Background(), full, os.Environ(), &stdout, &stderr); code != ExitOK {
			t.Errorf("%s: %q --dry-run exited %d:\n%s", where, line, code, stderr.String())
		}
		executed++
	}
	t.Logf("%d sharebench commands in the manual, %d run with --dry-run", len(cmds), executed)
	if executed < 5 {
		t.Errorf("executed %d run/poc commands with --dry-run, want at least 5", executed)
	}
}
