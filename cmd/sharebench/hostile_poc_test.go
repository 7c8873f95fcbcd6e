package main

import (
	"os"
	"path/filepath"
	"testing"
)

// sharebench poc's bad input (issue 37): a missing profile, a budget no
// experiment fits or that is not a duration, --set (the profile is the
// whole input), a flag of another provider, a second argument: each exit 2
// before anything starts, naming the file or flag; a dry run prints the
// plan and makes no folder.
func init() {
	hostileGroups = append(hostileGroups, func(t *testing.T, k hostileKit) []hostileCase {
		const group = "poc"
		profile := k.file("poc/tiny.yaml", tinyProfile)
		results := filepath.Join(k.dir, "poc-results")
		add := func(name string, want int, says string, args ...string) hostileCase {
			return hostileCase{group: group, name: name, want: want, says: says, args: append([]string{"poc"}, args...)}
		}
		dry := add("a dry run prints the plan and starts nothing", ExitOK, "dry run: nothing started",
			profile, "--provider", "kfake", "--dry-run", "--results", results)
		dry.check = func() string {
			if _, err := os.Stat(results); !os.IsNotExist(err) {
				return "the dry run made " + results
			}
			return ""
		}
		return []hostileCase{
			add("a missing profile", ExitUsage, "no-such-profile.yaml", filepath.Join(k.dir, "no-such-profile.yaml"), "--provider", "kfake", "--dry-run"),
			add("a budget no experiment fits", ExitUsage, "budget 30s: no experiment fits", profile, "--provider", "kfake", "--budget", "30s"),
			add("a budget that is not a duration", ExitUsage, `"soon"`, profile, "--provider", "kfake", "--budget", "soon"),
			add("a negative budget", ExitUsage, "--budget -5m0s: expected a duration > 0", profile, "--provider", "kfake", "--budget", "-5m"),
			add("--set beside a profile", ExitUsage, "--set rate: a proof of concept's runs come from the profile", profile, "--provider", "kfake", "--set", "rate=5"),
			{group: "poc", name: "--set with a secret value beside a profile", want: ExitUsage, says: "--set destination.dsn: a proof of concept's runs",
				secret: "HostilePocSetPw1", args: []string{"poc", profile, "--provider", "kfake", "--set", "destination.dsn=password=HostilePocSetPw1"}},
			add("--bootstrap without the external provider", ExitUsage, "--bootstrap: only the external provider", profile, "--provider", "kfake", "--bootstrap", "h:9092"),
			add("two profiles", ExitUsage, "accepts 1 arg", profile, profile, "--provider", "kfake"),
			dry,
		}
	})
}
