package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// hostileCase is one input a new user (or an attacker) could hand
// sharebench, with the exit status it must give. Every case must also end
// within its bound, never panic and never print a planted secret.
type hostileCase struct {
	group, name string
	args        []string
	want        int      // exit status
	says        string   // the console must contain this ("" = anything)
	env         []string // NAME=VALUE set in the process environment for the case
	// check, when set, inspects what the command wrote: "" or why not.
	check func() string
	// secret, when set, is this case's own planted secret (every case
	// of the secrets group has a distinct one): the console must not
	// hold it. hostileSecret is checked for every case.
	secret string
}

const hostileSecret = "HostilePw4242"

// hostileKit is what a group of hostile cases kept in a file of its own
// needs from TestHostilePass: the case's temporary folder and a writer of
// files in it (name relative to dir, returns the path).
type hostileKit struct {
	dir  string
	file func(name, body string) string
}

// hostileGroups are the groups of hostile cases kept in files of their own;
// each file appends its group in an init function (files initialise in name
// order, so row numbers stay stable).
var hostileGroups []func(t *testing.T, k hostileKit) []hostileCase

// TestHostilePass runs the hostile cases of issue 25 (docs/lab/2026-12-06-hostile-pass.md
// lists them with their outcomes; HOSTILE_OUT=FILE writes that table).
func TestHostilePass(t *testing.T) {
	if testing.Short() {
		t.Skip("hostile pass: ~200 CLI invocations")
	}
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var cases []hostileCase
	add := func(group, name string, want int, says string, args ...string) {
		cases = append(cases, hostileCase{group: group, name: name, args: args, want: want, says: says})
	}
	addEnv := func(group, name string, env []string, want int, says string, args ...string) {
		cases = append(cases, hostileCase{group: group, name: name, args: args, want: want, says: says, env: env})
	}

	pageHas := func(d, file string, want []string, not []string) func() string {
		return func() string {
			b, err := os.ReadFile(filepath.Join(d, file))
			if err != nil {
				return err.Error()
			}
			for _, w := range want {
				if !strings.Contains(string(b), w) {
					return fmt.Sprintf("%s lacks %q", file, w)
				}
			}
			for _, w := range not {
				if strings.Contains(string(b), w) {
					return fmt.Sprintf("%s holds %q", file, w)
				}
			}
			return ""
		}
	}

	// Scenario files: every bad one is exit 2 naming the file (dry run).
	badScenarios := map[string]string{
		"empty name": "name: ''\n", "no name": "rate: 5\n", "name with slash": "name: a/b\n", "name 300 chars": "name: " + strings.Repeat("n", 300) + "\n",
		"unknown key": "name: t\nmax_poll_record: 5\n", "negative rate": "name: t\nrate: -5\n", "rate zero": "name: t\nrate: 0\n",
		"rate .inf": "name: t\nrate: .inf\n", "rate .nan": "name: t\nrate: .nan\n", "rate string": "name: t\nrate: lots\n",
		"partitions 0": "name: t\npartitions: 0\n", "partitions -1": "name: t\npartitions: -1\n", "partitions huge": "name: t\npartitions: 100000000\n",
		"members 0": "name: t\nmembers: 0\n", "members 300 share": "name: t\nconsumer_type: share\nmembers: 300\n", "workers 0": "name: t\nworkers: 0\n",
		"bad consumer_type": "name: t\nconsumer_type: both\n", "bad acks": "name: t\nacks: some\n", "bad duration": "name: t\nduration: forever\n",
		"negative duration": "name: t\nduration: -1s\n", "bad processing model": "name: t\nprocessing: {model: magic}\n",
		"list not map": "- a\n- b\n", "scalar doc": "just text\n", "two documents": "name: t\n---\nname: u\n", "tab indent": "name: t\n\trate: 5\n",
		"yaml bomb": "name: t\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n",
		"binary":    "\x00\x01\x02\xff\xfe", "description 100 KiB": "name: t\ndescription: " + strings.Repeat("d", 100<<10) + "\n",
		"repeat 0": "name: t\nrepeat: 0\n", "bad message_size": "name: t\nmessage_size: 1ZB\n", "max_poll_records 0": "name: t\nmax_poll_records: 0\n",
		"bad event action": "name: t\nevents: [{at: 1s, action: explode}]\n", "event after window": "name: t\nduration: 2s\nevents: [{at: 10s, action: join}]\n",
		"bad expect": "name: t\nexpect: [{name: x, measure: nope}]\n", "duplicate key": "name: t\nrate: 5\nrate: 6\n",
		"bad kafka_version": "name: t\nkafka_version: http://bob:" + hostileSecret + "@x/\n", "broker_config not map": "name: t\nbroker_config: 5\n",
		"warmup negative": "name: t\nwarmup: -5s\n", "drain_timeout 0": "name: t\ndrain_timeout: 0s\n", "huge list matrix": "name: t\nmembers: [" + strings.Repeat("1,", 5000) + "1]\n",
		"deep nesting": "name: t\nprocessing: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n",
	}
	for _, name := range slices.Sorted(maps.Keys(badScenarios)) { // sorted: stable row numbers
		body := badScenarios[name]
		p := file("sc/"+strings.ReplaceAll(name, " ", "_")+".yaml", body)
		add("scenario file", name, ExitUsage, "", "run", "--provider", "kfake", "--dry-run", "--scenario", p)
	}
	big := file("sc/big.yaml", "name: t\n# "+strings.Repeat("x", 2<<20)+"\n")
	add("scenario file", "2 MiB file", ExitUsage, "larger than", "run", "--provider", "kfake", "--dry-run", "--scenario", big)
	add("scenario file", "/dev/zero", ExitUsage, "larger than", "run", "--provider", "kfake", "--dry-run", "--scenario", "/dev/zero")
	add("scenario file", "a directory", ExitUsage, "", "run", "--provider", "kfake", "--dry-run", "--scenario", dir)
	add("scenario file", "missing file", ExitUsage, "", "run", "--provider", "kfake", "--dry-run", "--scenario", filepath.Join(dir, "nope.yaml"))
	add("scenario file", "unknown built-in", ExitUsage, "", "run", "--provider", "kfake", "--dry-run", "--scenario", "no-such-builtin")
	add("scenario file", "scenarios show /dev/zero", ExitUsage, "", "scenarios", "show", "/dev/zero")

	// CLI flags and combinations.
	smoke := []string{"run", "--provider", "kfake", "--scenario", "smoke", "--dry-run"}
	cli := []struct {
		name  string
		extra []string
		want  int
	}{
		{"valid dry run", nil, ExitOK},
		{"--provider banana", []string{"--provider", "banana"}, ExitUsage},
		{"--metrics-addr non-loopback", []string{"--metrics-addr", "10.1.2.3:9464"}, ExitUsage},
		{"--metrics-addr no port", []string{"--metrics-addr", "127.0.0.1"}, ExitUsage},
		{"--metrics-addr URL with userinfo", []string{"--metrics-addr", "http://u:" + hostileSecret + "@10.0.0.1:9"}, ExitUsage},
		{"--bootstrap with kfake", []string{"--bootstrap", "h:9092"}, ExitUsage},
		{"--metrics-url with kfake", []string{"--metrics-url", "http://u:" + hostileSecret + "@h/m"}, ExitUsage},
		{"--set unknown key", []string{"--set", "nope=1"}, ExitUsage},
		{"--set no =", []string{"--set", "rate"}, ExitUsage},
		{"--set rate NaN", []string{"--set", "rate=NaN"}, ExitUsage},
		{"--set rate Inf", []string{"--set", "rate=Inf"}, ExitUsage},
		{"--set rate -1", []string{"--set", "rate=-1"}, ExitUsage},
		{"--set rate password=", []string{"--set", "rate=password=" + hostileSecret}, ExitUsage},
		{"--set kafka_version URL", []string{"--set", "kafka_version=http://bob:" + hostileSecret + "@x/"}, ExitUsage},
		{"--set members 0", []string{"--set", "members=0"}, ExitUsage},
		{"--set duration 0s", []string{"--set", "duration=0s"}, ExitUsage},
		{"--set processing.time -1ms", []string{"--set", "processing.time=-1ms"}, ExitUsage},
		{"--set name 300", []string{"--set", "name=" + strings.Repeat("n", 300)}, ExitUsage},
		{"--set description 100 KiB", []string{"--set", "description=" + strings.Repeat("d", 100<<10)}, ExitUsage},
		{"--shards -1", []string{"--shards", "-1"}, ExitUsage},
		{"--shards 65", []string{"--shards", "65"}, ExitUsage},
		{"--shards x", []string{"--shards", "x"}, ExitUsage},
		{"unknown flag", []string{"--nope"}, ExitUsage},
		{"stray argument", []string{"extra"}, ExitUsage},
		{"--set broker_config secret ok", []string{"--set", "broker_config.ssl.key.password=" + hostileSecret}, ExitOK},
	}
	for _, c := range cli {
		add("CLI", "run "+c.name, c.want, "", append(append([]string(nil), smoke...), c.extra...)...)
	}
	// Kafka 4.1: share groups in preview; what it lacks is refused naming the release.
	add("CLI", "run Kafka 4.1.2 share dry run", ExitOK, "(share groups in preview on Kafka 4.1)", append(append([]string(nil), smoke...), "--set", "kafka_version=4.1.2")...)
	add("CLI", "run Kafka 4.1.2 renew auto", ExitUsage, "renew: auto needs Kafka 4.2.0 (RENEW, KIP-1222); kafka_version is 4.1.2",
		append(append([]string(nil), smoke...), "--set", "kafka_version=4.1.2", "--set", "consumer_type=share", "--set", "ack_mode=explicit", "--set", "renew=auto")...)
	add("CLI", "run Kafka 4.1.2 group setting of 4.3", ExitUsage, "it is a group setting from Kafka 4.3.0 on",
		append(append([]string(nil), smoke...), "--set", "kafka_version=4.1.2", "--set", "group_config.share.delivery.count.limit=3")...)
	add("CLI", "run Kafka 4.0.0", ExitUsage, "share groups need Kafka 4.1.0 or newer", append(append([]string(nil), smoke...), "--set", "kafka_version=4.0.0")...)
	add("CLI", "run without --scenario", ExitUsage, "--scenario", "run")
	add("CLI", "unknown command", ExitUsage, "", "frobnicate")
	add("CLI", "bench --dry-run", ExitOK, "", "bench", "--provider", "kfake", "--dry-run")
	add("CLI", "broker_kill on kfake", ExitUsage, "kfake", "run", "--provider", "kfake", "--dry-run", "--scenario", "broker-kill")
	add("CLI", "rolling restart on kfake", ExitUsage, "events: broker_rolling_restart: the kfake provider has no broker process", "run", "--provider", "kfake", "--dry-run", "--scenario", "rolling-restart")
	add("CLI", "rolling restart on external", ExitUsage, "events: broker_rolling_restart: the external provider does not control the brokers; use --provider process",
		"run", "--provider", "external", "--bootstrap", "127.0.0.1:1", "--dry-run", "--scenario", "rolling-restart")
	add("CLI", "rolling upgrade on container", ExitUsage, "events: broker_rolling_upgrade: the container provider cannot restart a broker on another release's image",
		"run", "--provider", "container", "--dry-run", "--scenario", "rolling-upgrade")
	add("CLI", "version with argument", ExitUsage, "", "version", "x")
	add("CLI", "scenarios show unknown", ExitUsage, "", "scenarios", "show", "nope")
	add("CLI", "k8s render no image", ExitUsage, "", "k8s", "render", "--scenario", "smoke", "--shards", "2")
	add("CLI", "k8s render shards 0", ExitUsage, "", "k8s", "render", "--scenario", "smoke", "--shards", "0", "--image", "i:v")
	add("CLI", "k8s render /dev/zero", ExitUsage, "", "k8s", "render", "--scenario", "/dev/zero", "--shards", "2", "--image", "i:v", "--bootstrap", "k:9092")

	// Result folders: a corrupt run.json inside a complete campaign folder
	// is exit 2 naming the file, never "missing in the candidate".
	good := run("r01-share", "share", 0, 1000, 20)
	good.Phases.MeasureSec = 0.1
	base := campaignFolder(t, dir, "base", good)
	corrupt := map[string]string{
		"null": "null", "{}": "{}", "truncated": `{"schema_version": 1, "run_id": "r01-share", "spec": {`, "empty": "",
		"binary": "\x00\xff\x10garbage", "array": "[1,2]", "string": `"run"`, "number": "5", "NaN": `{"schema_version": 1, "run_id": "r01-share", "spec": {}, "throughput": {"completed_per_sec": NaN}}`,
		"Infinity":            `{"schema_version": 1, "run_id": "r01-share", "spec": {}, "throughput": {"completed_per_sec": Infinity}}`,
		"wrong type audit":    `{"schema_version": 1, "run_id": "r01-share", "spec": {}, "audit": {"lost": "none"}}`,
		"wrong type spec":     `{"schema_version": 1, "run_id": "r01-share", "spec": "share"}`,
		"schema 999":          `{"schema_version": 999, "run_id": "r01-share", "spec": {}}`,
		"schema missing":      `{"run_id": "r01-share", "spec": {}}`,
		"duplicate run_id":    `{"schema_version": 1, "run_id": "r01-share", "run_id": "other", "spec": {}}`,
		"duplicate audit key": `{"schema_version": 1, "run_id": "r01-share", "spec": {}, "audit": {"lost": 5, "lost": 0}}`,
		"run_id mismatch":     `{"schema_version": 1, "run_id": "r99-other", "spec": {}}`,
		"trailing garbage":    `{"schema_version": 1, "run_id": "r01-share", "spec": {}} xyz`,
		"utf-16 BOM":          "\xff\xfe{\x00}\x00",
		"deep nesting":        `{"schema_version": 1, "run_id": "r01-share", "spec": {}, "x": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "}",
	}
	for _, name := range slices.Sorted(maps.Keys(corrupt)) {
		body := corrupt[name]
		cand := campaignFolder(t, dir, "c-"+name, good)
		_ = os.WriteFile(filepath.Join(cand, "runs", "r01-share", "run.json"), []byte(body), 0o644)
		add("result folders", "compare: run.json "+name, ExitUsage, "run.json", "compare", base, cand)
	}
	for _, kind := range []string{"directory", "symlink elsewhere", "fifo-like device", "huge file"} {
		cand := campaignFolder(t, dir, "k-"+strings.ReplaceAll(kind, " ", "-"), good)
		p := filepath.Join(cand, "runs", "r01-share", "run.json")
		_ = os.Remove(p)
		switch kind {
		case "directory":
			_ = os.Mkdir(p, 0o755)
		case "symlink elsewhere":
			_ = os.Symlink(filepath.Join(base, "runs", "r01-share", "run.json"), p)
		case "fifo-like device":
			_ = os.Symlink("/dev/zero", p)
		case "huge file":
			f, _ := os.Create(p)
			_ = f.Truncate(runs.MaxRecordFileBytes + 1)
			_ = f.Close()
		}
		add("result folders", "compare: run.json is a "+kind, ExitUsage, "run.json", "compare", base, cand)
	}
	for _, st := range []string{"running", "interrupted", "failed", "banana"} {
		cand := campaignFolder(t, dir, "st-"+st, good)
		setStatus(t, cand, st)
		add("result folders", "compare: campaign status "+st, ExitUsage, "", "compare", base, cand)
	}
	for _, kind := range []string{"link to /dev/zero", "64 MiB + 1"} {
		cand := campaignFolder(t, dir, "cj-"+strings.ReplaceAll(kind, " ", "-"), good)
		p := filepath.Join(cand, "campaign.json")
		_ = os.Remove(p)
		if kind == "link to /dev/zero" {
			_ = os.Symlink("/dev/zero", p)
		} else {
			f, _ := os.Create(p)
			_ = f.Truncate(runs.MaxRecordFileBytes + 1)
			_ = f.Close()
		}
		add("result folders", "compare: campaign.json is a "+kind, ExitUsage, "campaign.json", "compare", base, cand)
	}
	add("result folders", "compare: no such folder", ExitUsage, "", "compare", base, filepath.Join(dir, "nope"))
	add("result folders", "compare: empty folder", ExitUsage, "", "compare", base, t.TempDir())
	add("result folders", "compare: itself", ExitOK, "", "compare", base, base)
	add("result folders", "report: no such folder", ExitUsage, "no such directory", "report", filepath.Join(dir, "nope"))
	add("result folders", "report: a folder without runs", ExitUsage, "no runs", "report", t.TempDir())
	add("result folders", "report: good folder", ExitOK, "wrote", "report", campaignFolder(t, dir, "rep", good))

	// The gate recomputes: an inconsistent record is a named failure (exit 1).
	gate := map[string]func(*runs.Record){
		"produced 300, completed 200, balanced":   func(r *runs.Record) { r.Audit.Produced, r.Audit.CompletedOnce = 300, 200 },
		"audit.lost -5":                           func(r *runs.Record) { r.Audit.Lost = -5; r.Audit.Produced = 95 },
		"completed_once -1":                       func(r *runs.Record) { r.Audit.CompletedOnce = -1 },
		"duplicates -3":                           func(r *runs.Record) { r.Audit.Duplicates = -3 },
		"in_flight -1":                            func(r *runs.Record) { r.Audit.InFlight = -1 },
		"foreign 2 but balanced":                  func(r *runs.Record) { r.Audit.Foreign = 2 },
		"unacknowledged 1 but balanced":           func(r *runs.Record) { r.Audit.Unacknowledged = 1 },
		"throughput 1.7e308":                      func(r *runs.Record) { r.Throughput.CompletedPerSec = 1.7e308 },
		"throughput -100":                         func(r *runs.Record) { r.Throughput.CompletedPerSec = -100 },
		"produced_per_sec -1":                     func(r *runs.Record) { r.Throughput.ProducedPerSec = -1 },
		"completed_ratio -1":                      func(r *runs.Record) { r.Throughput.CompletedRatio = -1 },
		"completions beyond produced":             func(r *runs.Record) { r.Throughput.CompletedPerSec = 5000 },
		"produced beyond counted":                 func(r *runs.Record) { r.Throughput.ProducedPerSec = 1e6 },
		"lost 5 unbalanced":                       func(r *runs.Record) { r.Audit.Lost = 5; r.Audit.Balanced = false },
		"balanced false":                          func(r *runs.Record) { r.Audit.Balanced = false },
		"undelivered -5 balancing 105% completed": func(r *runs.Record) { r.Audit.CompletedOnce += 5; r.Audit.Undelivered = -5 },
		"phases 0, completed_per_sec 1.7e308":     func(r *runs.Record) { r.Phases.MeasureSec = 0; r.Throughput.CompletedPerSec = 1.7e308 },
		"phases 0, produced_per_sec 1e9":          func(r *runs.Record) { r.Phases.MeasureSec = 0; r.Throughput.ProducedPerSec = 1e9 },
		"measure_s -1":                            func(r *runs.Record) { r.Phases.MeasureSec = -1 },
	}
	for _, name := range slices.Sorted(maps.Keys(gate)) {
		mut := gate[name]
		r := good
		mut(&r)
		add("gate arithmetic", "compare: "+name, ExitError, "", "compare", base, campaignFolder(t, dir, "g-"+strings.ReplaceAll(name, " ", "_"), r))
	}
	noLost := campaignFolder(t, dir, "g-nolost", good)
	rj := filepath.Join(noLost, "runs", "r01-share", "run.json")
	b, _ := os.ReadFile(rj)
	_ = os.WriteFile(rj, bytes.Replace(b, []byte(`"lost": 0,`), nil, 1), 0o644)
	add("gate arithmetic", "compare: audit.lost absent", ExitError, "audit.lost absent", "compare", base, noLost)

	// History.
	hist := campaignFolder(t, dir, "h1", good)
	for _, v := range []string{"0", "-1", "-5"} {
		add("history", "--window "+v, ExitUsage, "--window", "history", "--out", filepath.Join(dir, "hout"), "--window", v, hist)
	}
	for _, v := range []string{"0", "-5", "NaN", "Inf", "-Inf", "1e9"} {
		add("history", "--threshold "+v, ExitUsage, "--threshold", "history", "--out", filepath.Join(dir, "hout"), "--threshold", v, hist)
	}
	add("history", "--window x", ExitUsage, "", "history", "--window", "x", hist)
	add("history", "good folder", ExitOK, "1 campaign(s)", "history", "--out", filepath.Join(dir, "hout"), hist)
	inter := campaignFolder(t, dir, "h-int", good)
	setStatus(t, inter, "interrupted")
	add("history", "interrupted only", ExitUsage, "nothing to draw", "history", "--out", filepath.Join(dir, "hout2"), inter)
	add("history", "interrupted drawn with flag", ExitOK, "", "history", "--include-incomplete", "--out", filepath.Join(dir, "hout3"), inter)
	for _, st := range []string{"running", "banana"} {
		d := campaignFolder(t, dir, "h-"+st, good)
		setStatus(t, d, st)
		hout := filepath.Join(dir, "hout-"+st)
		cases = append(cases, hostileCase{group: "history", name: "status " + st + " beside a complete one: excluded, listed on the page", want: ExitOK,
			says: "status " + st, args: []string{"history", "--out", hout, hist, d},
			check: pageHas(hout, "history.html", []string{"Left out", "status " + st}, []string{"INCOMPLETE"})})
	}
	withCorrupt := campaignFolder(t, dir, "h-corrupt", good, func() runs.Record { r := good; r.RunID = "r02-share"; return r }())
	_ = os.WriteFile(filepath.Join(withCorrupt, "runs", "r02-share", "run.json"), []byte("{}"), 0o644)
	cases = append(cases, hostileCase{group: "history", name: "a corrupt run: listed on the page", want: ExitOK,
		says: "corrupt run left out", args: []string{"history", "--out", filepath.Join(dir, "hout-corrupt"), withCorrupt},
		check: pageHas(filepath.Join(dir, "hout-corrupt"), "history.html", []string{"corrupt run left out", "run r02-share skipped"}, nil)})
	lostOne := good
	lostOne.Audit.Lost, lostOne.Audit.CompletedOnce = 50, good.Audit.CompletedOnce-50
	fromZero := []string{campaignFolder(t, dir, "hz-1", good), campaignFolder(t, dir, "hz-2", lostOne)}
	for i, d := range fromZero {
		c, _ := runs.ReadCampaign(d)
		c.StartedAt = fmt.Sprintf("2026-01-0%dT00:00:00Z", i+1)
		_ = runs.WriteJSON(filepath.Join(d, "campaign.json"), c)
	}
	cases = append(cases, hostileCase{group: "history", name: "audit.lost 0 → 50: a regression from 0", want: ExitOK,
		says: "audit.lost: 50 (from 0 in the previous campaign)", args: []string{"history", "--out", filepath.Join(dir, "hout-zero"), "--figure", "audit.lost", fromZero[0], fromZero[1]},
		check: pageHas(filepath.Join(dir, "hout-zero"), "history.html", []string{`class="regression">50 (from 0)`}, nil)})
	add("history", "no such folder", ExitUsage, "no such file", "history", "--out", filepath.Join(dir, "hout4"), filepath.Join(dir, "nope"))

	// Advise.
	ab := []string{"advise", "--processing", "10ms", "--partitions", "4"}
	for _, a := range [][]string{
		{"--rate", "-5"}, {"--rate", "0"}, {"--rate", "NaN"}, {"--rate", "Inf"}, {"--rate", "1e308"}, {"--rate", "lots"},
		{"--rate", "10", "--workers", "0"}, {"--rate", "10", "--workers", "100000000"}, {"--rate", "10", "--headroom", "-1"},
		{"--rate", "10", "--headroom", "1e300"}, {"--rate", "10", "--poll-overhead", "1000h"}, {"--rate", "10", "--record-locks", "50"},
		{"--rate", "10", "--lock-duration", "2h"}, {"--rate", "10", "extra"},
	} {
		add("advise", strings.Join(a, " "), ExitUsage, "", append(append([]string(nil), ab...), a...)...)
	}
	add("advise", "valid plan", ExitOK, "", append(append([]string(nil), ab...), "--rate", "100")...)
	add("advise", "missing required", ExitUsage, "", "advise")

	// Flags that would be ignored, and advise's own limits (issue 25.6).
	for _, c := range []struct {
		name  string
		extra []string
		says  string
	}{
		{"--distribute local, one shard", []string{"--distribute", "local"}, "--distribute: no run of scenario smoke is sharded"},
		{"--distribute k8s, one shard", []string{"--distribute", "k8s"}, "would be ignored"},
		{"--distribute banana", []string{"--distribute", "banana"}, `--distribute "banana": expected one of`},
		{"--image, one shard", []string{"--image", "i:v"}, "--image: no run of scenario smoke is sharded"},
		{"--namespace, one shard", []string{"--namespace", "ns"}, "--namespace: no run"},
		{"--agent-binary, one shard", []string{"--agent-binary", "/bin/true"}, "--agent-binary: no run"},
		{"--shards 2 --image with local agents", []string{"--shards", "2", "--image", "i:v"}, "--image: only --distribute k8s reads it"},
		{"--shards 2 --kube-context with local agents", []string{"--shards", "2", "--kube-context", "c"}, "only --distribute k8s"},
		{"--shards 2 --distribute k8s --agent-binary", []string{"--shards", "2", "--distribute", "k8s", "--agent-binary", "/bin/true", "--image", "i:v"}, "--agent-binary: only --distribute local"},
	} {
		add("CLI", "run "+c.name, ExitUsage, c.says, append(append([]string(nil), smoke...), c.extra...)...)
	}
	add("CLI", "run --shards 2 (local agents) dry run", ExitOK, "", append(append([]string(nil), smoke...), "--shards", "2")...)

	// The run's flag checks are the dry run's (preflight): each is refused
	// with --dry-run too, exit 2 (issue 25.6).
	connFile := file("conn.yaml", "bootstrap: [h:9093]\nsasl: {mechanism: PLAIN, username: u, password: "+hostileSecret+"}\n")
	dry := []string{"run", "--scenario", "smoke", "--dry-run"}
	for _, c := range []struct {
		name  string
		extra []string
		want  int
		says  string
	}{
		{"--cluster beside --provider kfake", []string{"--cluster", "c1", "--provider", "kfake"}, ExitUsage, "--cluster c1: the cluster's state gives the provider"},
		{"--cluster with --bootstrap", []string{"--cluster", "c1", "--bootstrap", "h:9092"}, ExitUsage, "drop --bootstrap"},
		{"--cluster with --metrics-url", []string{"--cluster", "c1", "--metrics-url", "http://h:9/m"}, ExitUsage, "drop --metrics-url"},
		{"--cluster with --connection", []string{"--cluster", "c1", "--connection", connFile}, ExitUsage, "drop --connection"},
		{"--connection with --provider kfake", []string{"--provider", "kfake", "--connection", connFile}, ExitUsage, "connection flag --connection applies to --provider external"},
		{"--sasl-password with --provider process", []string{"--provider", "process", "--sasl-password", hostileSecret}, ExitUsage, "connection flag --sasl-password applies"},
		{"--tls with --provider kfake", []string{"--provider", "kfake", "--tls"}, ExitUsage, "connection flag --tls applies"},
		{"external --sasl-password naming an unset variable", []string{"--provider", "external", "--bootstrap", "h:9092", "--sasl-mechanism", "PLAIN", "--sasl-username", "u", "--sasl-password", "${SB_HOSTILE_UNSET}"}, ExitUsage, "environment variable SB_HOSTILE_UNSET is not set"},
		{"external --connection /dev/zero", []string{"--provider", "external", "--connection", "/dev/zero"}, ExitUsage, "larger than 64 KiB"},
		{"external --connection missing file", []string{"--provider", "external", "--connection", filepath.Join(dir, "nope.yaml")}, ExitUsage, "nope.yaml"},
		{"external --metrics-url unknown naming", []string{"--provider", "external", "--bootstrap", "h:9092", "--metrics-url", "banana=http://h:9/m"}, ExitUsage, "--metrics-url"},
		{"external --connection valid", []string{"--provider", "external", "--connection", connFile}, ExitOK, ""},
		{"--shards 2 --distribute k8s without --image", []string{"--provider", "kfake", "--shards", "2", "--distribute", "k8s"}, ExitUsage, "--image: --distribute k8s needs the agent image"},
		{"--shards 2 --distribute k8s --image", []string{"--provider", "kfake", "--shards", "2", "--distribute", "k8s", "--image", "i:v"}, k8sDryRun.want, k8sDryRun.says},
	} {
		add("CLI", "dry run: "+c.name, c.want, c.says, append(append([]string(nil), dry...), c.extra...)...)
	}
	for _, c := range []struct {
		env  string
		want int
		says string
	}{
		{"SHAREBENCH_PARTITONS=8", ExitUsage, `did you mean "SHAREBENCH_PARTITIONS"`},
		{"SHAREBENCH_PROVIDER=kfake", ExitUsage, "SHAREBENCH_PROVIDER: names no scenario key"},
		{"SHAREBENCH_X_TOKEN=" + hostileSecret, ExitUsage, "SHAREBENCH_X_TOKEN"},
		{"SHAREBENCH_RATE=.inf", ExitUsage, "must be a finite number of records/s"},
		{"SHAREBENCH_PARTITIONS=8", ExitOK, ""},
		{"SHAREBENCH_CACHE=" + filepath.Join(dir, "cache"), ExitOK, ""},
		{"SHAREBENCH_PARTITONS=", ExitOK, ""}, // empty: unset
	} {
		addEnv("CLI", "env "+strings.ReplaceAll(c.env, dir, "$TMP"), []string{c.env}, c.want, c.says, smoke...)
	}
	add("scenario file", "rate .inf says finite", ExitUsage, "must be a finite number of records/s", "run", "--provider", "kfake", "--dry-run",
		"--scenario", file("sc/rate_inf2.yaml", "name: t\nrate: .inf\n"))
	add("scenario file", "over the memory budget", ExitUsage, "half of this host's physical memory", "run", "--provider", "kfake", "--dry-run",
		"--scenario", file("sc/budget.yaml", "name: t\nrate: 5000000\nduration: 100h\n"))
	for _, a := range [][]string{
		{"--rate", "10", "--verify-duration", "10s"}, {"--rate", "10", "--verify-warmup", "5s"},
		{"--rate", "10", "--verify-where", "latency.completion_ms.p99<=500ms"}, {"--rate", "10", "--set", "members=2"},
		{"--rate", "10", "--provider", "kfake"}, {"--rate", "10", "--results", dir},
	} {
		add("advise", strings.ReplaceAll(strings.Join(a, " "), dir, "$TMP")+" without --verify", ExitUsage, "only advise --verify reads it", append(append([]string(nil), ab...), a...)...)
	}
	add("advise", "--verify --verify-warmup 500ms", ExitUsage, "--verify-warmup: must be 0 (none) or ≥ 1s",
		append(append([]string(nil), ab...), "--rate", "10", "--verify", "--provider", "kfake", "--verify-warmup", "500ms")...)
	add("advise", "--processing 1000h --rate 3", ExitUsage, "beyond the harness's limit of 10000 workers per member",
		"advise", "--processing", "1000h", "--partitions", "4", "--rate", "3")
	add("advise", "--processing 1000h --rate 2 (8640 workers, within)", ExitOK, "", "advise", "--processing", "1000h", "--partitions", "4", "--rate", "2")
	add("advise", "--rate 1e-300", ExitUsage, "--rate: must be ≥ 0.001 records/s", append(append([]string(nil), ab...), "--rate", "1e-300")...)

	// Reports carry the run verdict and the expectations (issue 25.7).
	withExpect := func(name string, outs ...runs.ExpectationOutcome) string {
		d := campaignFolder(t, dir, name, good)
		c, err := runs.ReadCampaign(d)
		if err != nil {
			t.Fatal(err)
		}
		c.Expectations = outs
		if err := runs.WriteJSON(filepath.Join(d, "campaign.json"), c); err != nil {
			t.Fatal(err)
		}
		return d
	}
	notMet := runs.ExpectationOutcome{Name: "<script>alert(1)</script> speed-up", Claim: "share / consumer throughput.completed_per_sec ≥ 100",
		Measured: []runs.Measured{{Run: "r01-share", Value: 1}}}
	met := runs.ExpectationOutcome{Name: "no record lost", Claim: "all runs: audit.lost ≤ 0", Met: true,
		Measured: []runs.Measured{{Run: "r01-share", Value: 0, Met: true}}}
	nm := withExpect("x-notmet", met, notMet)
	cases = append(cases, hostileCase{group: "reports", name: "report.html: a NOT MET expectation and the failed verdict", want: ExitOK,
		args: []string{"report", nm}, check: pageHas(nm, "report.html",
			[]string{"Run verdict: FAILED, 1 problem(s)", `<span class="notmet">NOT MET</span>`, "expectations: 1 of 2 met"}, []string{"<script>alert(1)"})})
	cases = append(cases, hostileCase{group: "reports", name: "summary.md: the NOT MET expectation escaped", want: ExitOK,
		args: []string{"report", nm}, check: pageHas(nm, "summary.md",
			[]string{"**Run verdict: FAILED, 1 problem(s)", "- **NOT MET** &lt;script&gt;"}, []string{"<script>"})})
	allMet := withExpect("x-met", met)
	cases = append(cases, hostileCase{group: "reports", name: "report.html: every expectation met", want: ExitOK,
		args: []string{"report", allMet}, check: pageHas(allMet, "report.html",
			[]string{"Run verdict: passed: no record lost, every audit balanced, all 1 expectation(s) met", `<span class="met">MET</span>`}, []string{"FAILED"})})
	intr := withExpect("x-interrupted", notMet)
	setStatus(t, intr, "interrupted")
	cases = append(cases, hostileCase{group: "reports", name: "report.html: interrupted campaign states no verdict", want: ExitOK,
		args: []string{"report", intr}, check: pageHas(intr, "report.html", []string{"INCOMPLETE CAMPAIGN"}, []string{"Run verdict"})})

	// A corrupt run among good ones: the pages name it and never say passed.
	two := good
	two.RunID = "r02-share"
	corruptRep := campaignFolder(t, dir, "x-corrupt", good, two)
	_ = os.WriteFile(filepath.Join(corruptRep, "runs", "r02-share", "run.json"), []byte(`{"schema_version": 1, "run_id": "r02-`), 0o644)
	for _, f := range []string{"report.html", "summary.md"} {
		cases = append(cases, hostileCase{group: "reports", name: f + ": a truncated run.json makes the verdict FAILED", want: ExitOK, says: "skipped:",
			args: []string{"report", corruptRep}, check: pageHas(corruptRep, f,
				[]string{"Run verdict: FAILED, 1 problem(s)", "run r02-share skipped"}, []string{"Run verdict: passed"})})
	}

	// Secrets: each case plants its own secret, and the literal registry
	// is emptied before every case (redact.ForgetSecrets), so no case is
	// masked by what an earlier one registered.
	secretCase := func(name, secret string, env []string, want int, says string, check func() string, args ...string) {
		cases = append(cases, hostileCase{group: "secrets", name: name, args: args, env: env, want: want, says: says, check: check, secret: secret})
	}
	noSecretIn := func(d, secret string) func() string {
		return func() string {
			var leak string
			_ = filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
						leak = p + " holds the secret"
					}
				}
				return nil
			})
			return leak
		}
	}
	secretCase("--set rate=token=", "HostileSetRateTok1", nil, ExitUsage, "", nil, append(append([]string(nil), smoke...), "--set", "rate=token=HostileSetRateTok1")...)
	secretCase("SHAREBENCH_RATE=token=", "HostileEnvRateTok2", []string{"SHAREBENCH_RATE=token=HostileEnvRateTok2"}, ExitUsage, "SHAREBENCH_RATE", nil, smoke...)
	secretCase("--thresholds file holding a secret", "HostileThreshPw3", nil, ExitUsage, "", nil, "compare", "--thresholds", file("th.txt", "password=HostileThreshPw3\n"), base, base)
	secretCase("--deny-flags secret", "HostileDenyPw4", nil, ExitUsage, "", nil, "compare", "--deny-flags", "password=HostileDenyPw4", base, base)
	secretCase("broker_config password swept in the file", "HostileSweepPw5", nil, ExitUsage, "a list of 2 values for a secret setting", nil,
		"run", "--provider", "kfake", "--dry-run", "--scenario", file("sc/swept_secret.yaml", "name: t\nbroker_config:\n  ssl.keystore.password: [HostileSweepPw5a, HostileSweepPw5b]\n"))
	secretCase("--set sasl.jaas.config swept", "HostileSweepJaas6", nil, ExitUsage, "(--set broker_config.sasl.jaas.config): broker_config.sasl.jaas.config: a list of 2", nil,
		append(append([]string(nil), smoke...), "--set", "broker_config.sasl.jaas.config=[HostileSweepJaas6a,HostileSweepJaas6b]")...)
	secretCase("URL userinfo swept in an ordinary setting", "HostileSweepUrl7", nil, ExitUsage, "holds what the redaction masks as a secret", nil,
		append(append([]string(nil), smoke...), "--set", "broker_config.some.endpoint=[http://h/,http://bob:HostileSweepUrl7@h/]")...)
	secretCase("--metrics-addr with userinfo", "HostileMetricsPw8", nil, ExitUsage, "", nil, append(append([]string(nil), smoke...), "--metrics-addr", "http://u:HostileMetricsPw8@10.0.0.1:9")...)
	secretCase("--set kafka_version URL userinfo", "HostileVersionPw9", nil, ExitUsage, "", nil, append(append([]string(nil), smoke...), "--set", "kafka_version=http://bob:HostileVersionPw9@x/")...)
	secretCase("--sasl-password with kfake (refused)", "HostileSaslPw10", nil, ExitUsage, "connection flag --sasl-password", nil,
		append(append([]string(nil), dry...), "--provider", "kfake", "--sasl-password", "HostileSaslPw10")...)
	secretCase("connection file with a bad mechanism", "HostileConnPw11", nil, ExitUsage, "", nil, append(append([]string(nil), dry...), "--provider", "external",
		"--connection", file("conn-bad.yaml", "bootstrap: [h:9093]\nsasl: {mechanism: NOPE, username: u, password: HostileConnPw11}\n"))...)
	leakyDesc := good
	leakyDesc.Spec = &scenarios.RunSpec{ConsumerType: "share"}
	leakyDesc.Errors = []string{"dial http://bob:HostileRecordPw12@h/ failed", "token=HostileRecordPw12"}
	leakyFolder := campaignFolder(t, dir, "s-leaky", leakyDesc)
	secretCase("report over a run.json holding secrets", "HostileRecordPw12", nil, ExitOK, "wrote", noSecretIn(leakyFolder, "HostileRecordPw12"), "report", leakyFolder)
	hLeak := filepath.Join(dir, "hout-leak")
	secretCase("history over a run.json holding secrets", "HostileRecordPw12", nil, ExitOK, "1 campaign(s)", noSecretIn(hLeak, "HostileRecordPw12"),
		"history", "--out", hLeak, "--figure", "throughput.completed_per_sec", leakyFolder)
	secretCase("compare over a run.json holding secrets", "HostileRecordPw12", nil, ExitOK, "", nil, "compare", leakyFolder, leakyFolder)

	// The groups that live in files of their own (hostile_*_test.go), in file order.
	kit := hostileKit{dir: dir, file: file}
	for _, g := range hostileGroups {
		cases = append(cases, g(t, kit)...)
	}

	var table strings.Builder
	fmt.Fprintf(&table, "| # | group | case | want | got | outcome |\n|---|---|---|---|---|---|\n")
	failed := 0
	for i, c := range cases {
		var out bytes.Buffer
		redact.ForgetSecrets() // a fresh process registers nothing: no case is masked by an earlier one's secret
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		start := time.Now()
		code := func() (code int) {
			defer func() {
				if p := recover(); p != nil {
					code = -1
					fmt.Fprintf(&out, "PANIC: %v", p)
				}
			}()
			for _, kv := range c.env {
				k, v, _ := strings.Cut(kv, "=")
				_ = os.Setenv(k, v)
				defer os.Unsetenv(k)
			}
			return runMain(ctx, c.args, c.env, &out, &out)
		}()
		cancel()
		took := time.Since(start)
		var why []string
		if code != c.want {
			why = append(why, fmt.Sprintf("exit %d, want %d", code, c.want))
		}
		if strings.Contains(out.String(), hostileSecret) || c.secret != "" && strings.Contains(out.String(), c.secret) {
			why = append(why, "secret on the console")
		}
		if c.says != "" && !strings.Contains(out.String(), c.says) {
			why = append(why, fmt.Sprintf("console lacks %q", c.says))
		}
		if took > 20*time.Second {
			why = append(why, "took "+took.String())
		}
		if c.check != nil {
			if w := c.check(); w != "" {
				why = append(why, w)
			}
		}
		outcome := "ok"
		if len(why) > 0 {
			failed++
			outcome = "FAIL: " + strings.Join(why, "; ")
			t.Errorf("%s / %s (%v): %s\n%.600s", c.group, c.name, c.args, outcome, out.String())
		}
		fmt.Fprintf(&table, "| %d | %s | %s | %d | %d | %s |\n", i+1, c.group, strings.ReplaceAll(c.name, "|", "/"), c.want, code, outcome)
	}
	if len(cases) < 150 {
		t.Errorf("only %d hostile cases", len(cases))
	}
	t.Logf("%d hostile cases, %d failed", len(cases), failed)
	if p := os.Getenv("HOSTILE_OUT"); p != "" {
		_ = os.WriteFile(p, []byte(table.String()), 0o644)
	}
}

// campaignFolder writes a complete campaign folder name under dir with recs.
func campaignFolder(t *testing.T, dir, name string, recs ...runs.Record) string {
	t.Helper()
	d := filepath.Join(dir, "folders", name)
	camp := runs.Campaign{SchemaVersion: runs.SchemaVersion, Name: "fixture", Status: runs.StatusComplete,
		StartedAt: "2026-01-01T00:00:00Z", FinishedAt: "2026-01-01T00:10:00Z"}
	for _, r := range recs {
		if err := os.MkdirAll(filepath.Join(d, "runs", r.RunID), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := runs.WriteJSON(filepath.Join(d, "runs", r.RunID, "run.json"), r); err != nil {
			t.Fatal(err)
		}
		camp.Runs = append(camp.Runs, r.RunID)
	}
	if err := runs.WriteJSON(filepath.Join(d, "campaign.json"), camp); err != nil {
		t.Fatal(err)
	}
	return d
}

func setStatus(t *testing.T, dir, status string) {
	t.Helper()
	c, err := runs.ReadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Status = status
	if err := runs.WriteJSON(filepath.Join(dir, "campaign.json"), c); err != nil {
		t.Fatal(err)
	}
}
