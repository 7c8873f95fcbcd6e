package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// CLIReferencePath is the generated command-line reference, relative to the
// repository root; TestCLIReferenceUpToDate fails when it is stale and
// rewrites it with -update (make docs).
const CLIReferencePath = "docs/reference/cli.md"

// cliReference renders every command of root (help and shell completion
// left out), its usage, description, examples and flags, and the exit
// statuses, as the Markdown page CLIReferencePath.
func cliReference(root *cobra.Command) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# Command-line reference\n\n")
	p("<!-- Generated from the commands of cmd/sharebench by `make docs`; do not edit. -->\n\n")
	p("Every command and flag of `sharebench`, as `sharebench COMMAND --help` prints them. ")
	p("Commands that need a build with `-tags k8s` say so.\n\n")
	var cmds []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		if c != root {
			cmds = append(cmds, c)
		}
		for _, sub := range c.Commands() { // cobra sorts them by name
			walk(sub)
		}
	}
	walk(root)
	p("| command | what it does |\n|---|---|\n")
	for _, c := range cmds {
		p("| [`%s`](#%s) | %s |\n", c.CommandPath(), anchor(c.CommandPath()), cell(c.Short))
	}
	p("\n[Exit statuses](#exit-statuses) are the same for every command.\n")
	for _, c := range cmds {
		p("\n## %s\n\n%s\n\n", c.CommandPath(), c.Short)
		p("```text\n%s\n```\n\n", strings.TrimSpace(c.UseLine()))
		if long := strings.TrimSpace(c.Long); long != "" {
			p("```text\n%s\n```\n\n", long)
		}
		if ex := strings.TrimSpace(c.Example); ex != "" {
			p("Examples:\n\n```sh\n%s\n```\n\n", dedent(c.Example))
		}
		var rows []string
		c.NonInheritedFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			name := "`--" + f.Name + "`"
			if f.Shorthand != "" {
				name = "`-" + f.Shorthand + "`, " + name
			}
			typ, usage := pflag.UnquoteUsage(f)
			def := ""
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" && f.DefValue != "0" && f.DefValue != "0s" {
				def = "`" + f.DefValue + "`"
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", name, typ, def, cell(usage)))
		})
		if len(rows) > 0 {
			p("| flag | value | default | meaning |\n|---|---|---|---|\n%s\n", strings.Join(rows, "\n"))
		}
	}
	p("\n## Exit statuses\n\n| status | name | meaning |\n|---|---|---|\n")
	for _, s := range exitStatuses {
		p("| %d | %s | %s |\n", s.code, s.name, cell(s.meaning))
	}
	return b.String()
}

// anchor is the heading anchor a Markdown renderer gives "## " + heading.
func anchor(heading string) string {
	return strings.ReplaceAll(strings.ToLower(heading), " ", "-")
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// dedent removes the two-space indent cobra's examples are written with.
func dedent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "  ")
	}
	return strings.Join(lines, "\n")
}
