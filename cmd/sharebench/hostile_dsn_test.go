package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The destination's dsn (issue 36): every quoting form libpq accepts is
// masked by scenarios show, the dry run and the errors; a bad dsn, an
// unset or malformed ${VAR} and --destination-dsn without a destination:
// block are exit 2 before anything starts, naming the flag or the file,
// line and key; the connections bound is the one the check applies.
func init() {
	hostileGroups = append(hostileGroups, func(t *testing.T, k hostileKit) []hostileCase {
		const group = "destination dsn"
		var cs []hostileCase
		n := 0
		// scenario is a scenario file whose destination.dsn, on line 10, is
		// dsn as YAML writes it.
		scenario := func(dsn string) string {
			n++
			return k.file(fmt.Sprintf("dsn/d%02d.yaml", n), "name: d\nconsumer_type: share\npartitions: 1\nmembers: 1\nrate: 10\nwarmup: 0s\nduration: 1s\n"+
				"destination:\n  pool: 1\n  dsn: "+dsn+"\n")
		}
		add := func(name, secret string, env []string, want int, says string, args ...string) {
			cs = append(cs, hostileCase{group: group, name: name, args: args, env: env, want: want, says: says, secret: secret})
		}
		show := func(name, dsn, secret string) {
			add("scenarios show: "+name, secret, nil, ExitOK, "REDACTED", "scenarios", "show", scenario(dsn))
		}
		dry := func(p string, more ...string) []string {
			return append([]string{"run", "--provider", "kfake", "--dry-run", "--scenario", p}, more...)
		}
		bad := func(name, dsn, secret, says string) {
			p := scenario(dsn)
			add("dry run: "+name, secret, nil, ExitUsage, filepath.Base(p)+":10: destination.dsn: "+says, dry(p)...)
		}

		// Every quoting form, in scenarios show.
		show("unquoted", "host=h password=ShowPlainPw01 dbname=x", "ShowPlainPw01")
		show("blanks around =", "host=h password = ShowSpacePw02 dbname=x", "ShowSpacePw02")
		show("single-quoted with a blank", "host=h password='Show QuotedPw03' dbname=x", "QuotedPw03")
		show("escaped quote", `host=h password='Show\'EscPw04' dbname=x`, "EscPw04")
		show("escaped backslash", `host=h password='Show\\BsPw05' dbname=x`, "BsPw05")
		show("unquoted escaped blank", `host=h password=Show\ SpPw06 dbname=x`, "SpPw06")
		show("password given twice", "host=h password=FirstPw07 password='Second Pw07'", "Pw07")
		show("sslpassword", "host=h sslpassword='Show KeyPw08' sslkey=/k", "KeyPw08")
		show("URL userinfo", "postgres://app:ShowUrlPw09@db:5432/x", "ShowUrlPw09")
		show("URL ?password=", "postgres://app@db/x?password=ShowQueryPw10&sslmode=disable", "ShowQueryPw10")
		show("URL percent-encoded password", "postgres://app:Show%40EncPw11@db/x", "EncPw11")
		show("multi-host URL", "postgres://app:ShowMultiPw12@db1:5432,db2:5433,[::1]:5434/x", "ShowMultiPw12")
		show("URL percent-encoded key", "postgres://db/x?pass%77ord=ShowKeyEncPw13", "ShowKeyEncPw13")
		show("YAML double-quoted, escaped quote", `"host=h password='Show\\'DqPw14'"`, "DqPw14")
		show("YAML single-quoted, doubled quote", `'host=h password=''Show \'' SqPw15'''`, "SqPw15")
		show("YAML block scalar", "|\n    host=h password='Show BlockPw16'", "BlockPw16")
		show("short quoted password", "host=h password='x y'", "'x y'")
		add("scenarios show --json: no dsn", "ShowJsonPw17", nil, ExitOK, `"destination"`, "scenarios", "show", "--json", scenario("host=h password='Show JsonPw17'"))

		// The dry run accepts the good forms and prints no password.
		add("dry run: quoted password accepted", "DryQuotedPw18", nil, ExitOK, "dry run: nothing started", dry(scenario("\"host=127.0.0.1 port=5433 password='Dry DryQuotedPw18'\""))...)
		add("dry run: ${VAR} from the environment", "DryVarPw19", []string{"HOSTILE_DSN_PW19=DryVarPw19"}, ExitOK, "dry run: nothing started",
			dry(scenario("postgres://app:${HOSTILE_DSN_PW19}@db/x"))...)
		add("dry run: ${VAR} holding quotes, blanks and @", "Var Pw'20@x", []string{"HOSTILE_DSN_PW20=Var Pw'20@x"}, ExitOK, "dry run: nothing started",
			dry(scenario("host=h password='${HOSTILE_DSN_PW20}' dbname=x"))...)
		add("dry run: $$ is a dollar", "", nil, ExitOK, "dry run: nothing started", dry(scenario("host=h password=$${NOT_A_VAR}x"))...)

		// Bad dsns: exit 2 in the dry run, file:line: destination.dsn, no password.
		bad("bad port", "host=h port=abc password=BadPortPw21", "BadPortPw21", "port: expected a whole number from 1 to 65535")
		bad("URL port out of range", "postgres://u:BadPortPw22@h:99999/x", "BadPortPw22", "port: expected a whole number from 1 to 65535")
		bad("unknown key", "host=h passwrd=BadKeyPw23", "BadKeyPw23", `unknown key "passwrd"; expected keys among host, port`)
		bad("a server setting as a key", "host=h search_path=x password=BadKeyPw24", "BadKeyPw24", `unknown key "search_path"`)
		bad("unterminated quote", "\"host=h password='Unclosed Pw25\"", "Pw25", "password: a quoted value without its closing quote")
		bad("bad URL escape in the password", "postgres://u:Bad%zzEscPw26@h/x", "EscPw26", "the password: invalid percent-encoding")
		bad("bad URL escape in a query value", "postgres://u@h/x?password=Bad%g1Pw27", "Pw27", "query parameter password: invalid percent-encoding")
		bad("a key without =", "host=h dbname=x password", "", `"password" has no "=": expected key=value`)
		bad("a blank inside a key", "host=h pass word=BlankKeyPw29", "BlankKeyPw29", `missing "=" after "pass"`)
		bad("bad sslmode", "host=h sslmode=maybe password=SslPw30", "SslPw30", "failed to configure TLS (sslmode is invalid)")
		bad("bad connect_timeout", "host=h connect_timeout=soon password=TimeoutPw31", "TimeoutPw31", "invalid connect_timeout")
		bad("unterminated IPv6 host", "postgres://u:Ipv6Pw32@[::1/x", "Ipv6Pw32", `failed to parse as URL (end of string reached when looking for matching "]"`)
		bad("a CA file that is not there", "host=h sslmode=verify-full sslrootcert=/nonexistent-ca password=CaPw33", "CaPw33", "failed to configure TLS (unable to read CA file")
		bad("an empty URL query parameter", "postgres://u:EmptyParamPw34@h/x?sslmode", "EmptyParamPw34", `query parameter "sslmode" has no "=": expected key=value`)

		// Variables: unset or malformed ${VAR} is exit 2 naming the file and line.
		bad("unset ${VAR}", "postgres://u:${HOSTILE_DSN_UNSET}@h/x", "", "environment variable HOSTILE_DSN_UNSET is not set")
		bad("${ alone", "host=h password=${", "", `"${": expected ${NAME}`)
		bad("${A unclosed", "host=h password=${A", "", `"${A": expected ${NAME}`)
		bad("${1A} not a name", "host=h password=${1A}", "", `"${1A}": expected ${NAME}`)
		bad("${} empty", "host=h password=x${}y", "", `"${}": expected ${NAME}`)

		// --destination-dsn: refused without a destination: block, read as the file's.
		smoke := []string{"run", "--provider", "kfake", "--dry-run", "--scenario", "smoke"}
		add("--destination-dsn without a destination: block", "FlagNoDestPw40", nil, ExitUsage, "--destination-dsn: no run has a destination: block",
			append(smoke, "--destination-dsn", "host=h password='Flag FlagNoDestPw40'")...)
		good := scenario("host=h dbname=x")
		add("--destination-dsn bad port", "FlagPortPw41", nil, ExitUsage, "--destination-dsn: port: expected a whole number",
			dry(good, "--destination-dsn", "postgres://u:FlagPortPw41@h:0x/x")...)
		add("--destination-dsn unset ${VAR}", "", nil, ExitUsage, "--destination-dsn: environment variable HOSTILE_DSN_NOPE is not set",
			dry(good, "--destination-dsn", "host=h password=${HOSTILE_DSN_NOPE}")...)
		add("--destination-dsn quoted password accepted", "FlagOkPw43", nil, ExitOK, "dry run: nothing started",
			dry(good, "--destination-dsn", "host=h password='Flag FlagOkPw43'")...)
		add("--destination-dsn unknown key", "FlagKeyPw44", nil, ExitUsage, `--destination-dsn: unknown key "pasword"`,
			dry(good, "--destination-dsn", "host=h pasword=FlagKeyPw44")...)
		add("--destination-dsn replaces a bad file dsn", "", nil, ExitOK, "dry run: nothing started",
			dry(scenario("host=h port=bad"), "--destination-dsn", "host=h port=5432")...)

		// The dsn from SHAREBENCH_* variables and --set: refused, masked, the
		// text around the password kept.
		add("SHAREBENCH_DESTINATION with a dsn", "EnvDestPw46", []string{"SHAREBENCH_DESTINATION={dsn: 'host=h password=EnvDestPw46'}"}, ExitUsage,
			"password=REDACTED'}: destination: written in the scenario file", smoke...)
		add("SHAREBENCH_DESTINATION_DSN", "EnvDsnPw47", []string{"SHAREBENCH_DESTINATION_DSN=host=h password='Env EnvDsnPw47'"}, ExitUsage,
			"SHAREBENCH_DESTINATION_DSN: names no scenario key", smoke...)
		add("--set destination.dsn", "SetDsnPw48", nil, ExitUsage, "written in the scenario file",
			append(smoke, "--set", "destination.dsn=host=h password='Set SetDsnPw48'")...)

		// The connections bound: the message reads the bound the check applies.
		many := k.file("dsn/many.yaml", "name: d\nconsumer_type: share\nmembers: 40\ndestination:\n  pool: 8\n")
		add("40 members × pool 8", "", nil, ExitUsage, "320 connections; a run may open at most 250", dry(many)...)
		add("connections 251", "", nil, ExitUsage, "destination.connections: expected a whole number of connections for the whole group from 1 to 250",
			dry(k.file("dsn/c251.yaml", "name: d\nconsumer_type: share\nmembers: 40\ndestination:\n  pool: 8\n  connections: 251\n"))...)
		add("connections 250 caps 40 × 8", "", nil, ExitOK, "dry run: nothing started",
			dry(k.file("dsn/c250.yaml", "name: d\nconsumer_type: share\nmembers: 40\ndestination:\n  pool: 8\n  connections: 250\n"))...)

		// The run refuses what the dry run refuses before the campaign
		// starts (no folder), and a server that cannot be reached fails
		// without a password on the console.
		results := filepath.Join(k.dir, "dsn-results")
		noFolder := func() string {
			if ents, _ := os.ReadDir(results); len(ents) > 0 {
				return "a campaign folder was made: " + ents[0].Name()
			}
			return ""
		}
		p := scenario("postgres://u:${HOSTILE_DSN_UNSET}@h/x")
		cs = append(cs, hostileCase{group: group, name: "run: unset ${VAR} before the campaign", want: ExitUsage, check: noFolder,
			says: filepath.Base(p) + ":10: destination.dsn: environment variable HOSTILE_DSN_UNSET is not set",
			args: []string{"run", "--provider", "kfake", "--scenario", p, "--results", results}})
		p = scenario("\"host=h password='RunBad Pw53\"")
		cs = append(cs, hostileCase{group: group, name: "run: unterminated quote before the campaign", want: ExitUsage, check: noFolder, secret: "Pw53",
			says: "destination.dsn: password: a quoted value without its closing quote", args: []string{"run", "--provider", "kfake", "--scenario", p, "--results", results}})
		p = scenario("\"host=127.0.0.1 port=1 user=app password='Run Unreachable Pw54' connect_timeout=2\"")
		cs = append(cs, hostileCase{group: group, name: "run: unreachable server, quoted password", want: ExitError, check: noFolder, secret: "Pw54",
			says: "127.0.0.1:1 unreachable", args: []string{"run", "--provider", "kfake", "--scenario", p, "--results", results}})
		return cs
	})
}
