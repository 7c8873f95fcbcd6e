package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/campaign"
	"github.com/sharebench/sharebench/results/runs"
)

// Exit statuses of sharebench; exitStatuses says what each means (in
// sharebench --help and docs/reference/cli.md).
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitVerdict     = 3
	ExitNoSpace     = 4
	ExitInterrupted = 130
)

// exitStatus is one exit status and what it means.
type exitStatus struct {
	code          int
	name, meaning string
}

// exitStatuses are the exit statuses, in order, with what each means.
var exitStatuses = []exitStatus{
	{ExitOK, "ok", "the command did what it was asked; compare passed every gate"},
	{ExitError, "error", "an error while running, or compare found a regression or a failed correctness gate"},
	{ExitUsage, "usage", "bad input: an unknown flag or command, a bad flag value, a scenario that does not validate, " +
		"an unreadable or incomplete campaign folder, nothing to compare"},
	{ExitVerdict, "verdict", "run or bench finished, but a run lost a record, an audit did not balance or an expectation " +
		"is NOT MET (--no-fail exits 0)"},
	{ExitNoSpace, "no space", "the results folder's file system is full (ENOSPC) or its disk quota spent (EDQUOT): a write " +
		"failed, or the check before a run found less free space than the run's output estimate; the message names " +
		"the path and the bytes, every run recorded before is intact, and run --resume FOLDER continues once there is space"},
	{ExitInterrupted, "interrupted", "SIGINT or SIGTERM; every broker started was stopped"},
}

// exitStatusHelp lists the exit statuses for sharebench --help.
func exitStatusHelp() string {
	var b strings.Builder
	b.WriteString("Exit statuses:\n")
	for _, s := range exitStatuses {
		fmt.Fprintf(&b, "  %3d  %s\n", s.code, s.name)
	}
	return b.String()
}

// exitError carries the exit status of an error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks err as bad input (exit status 2); nil stays nil.
func usageError(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: ExitUsage, err: err}
}

// exitCode maps an error returned by the root command to the exit status.
func exitCode(err error) int {
	var ee *exitError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &ee):
		return ee.code
	case isNoSpace(err):
		return ExitNoSpace
	case strings.HasPrefix(err.Error(), "unknown command"), strings.HasPrefix(err.Error(), "unknown flag"):
		return ExitUsage
	}
	return ExitError
}

// isNoSpace reports whether err is a campaign stopped by a full disk or a
// write into a campaign folder that found its file system full.
func isNoSpace(err error) bool {
	var df *campaign.DiskFullError
	var ns *runs.NoSpaceError
	return errors.As(err, &df) || errors.As(err, &ns)
}

// markUsageErrors makes flag and argument errors of cmd and its
// subcommands usage errors (exit status 2).
func markUsageErrors(cmd *cobra.Command) {
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	if args := cmd.Args; args != nil {
		cmd.Args = func(c *cobra.Command, a []string) error { return usageError(args(c, a)) }
	}
	for _, sub := range cmd.Commands() {
		markUsageErrors(sub)
	}
}
