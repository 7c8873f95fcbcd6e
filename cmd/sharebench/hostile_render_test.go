package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/results/runs/runstest"
	"github.com/sharebench/sharebench/vocab"
)

// The hostile cases of issue 36 on autoscale render (every value that
// fills the manifest, every file --run and --scenario may name), advise's
// claims and history through symbolic links.
func init() {
	hostileGroups = append(hostileGroups, func(t *testing.T, k hostileKit) []hostileCase {
		var cs []hostileCase
		const g = "autoscale render"
		// render runs autoscale render on the spike built-in's run of
		// ctype with the flags given over a valid target; out is the
		// manifest file (--out) when the case checks it.
		render := func(ctype string, out string, set ...string) []string {
			flags := map[string]string{"--deployment": "orders", "--group": "orders", "--topic": "orders"}
			for i := 0; i+1 < len(set); i += 2 {
				flags[set[i]] = set[i+1]
			}
			a := []string{"autoscale", "render", "--scenario", "autoscale-spike", "--consumer-type", ctype}
			for _, f := range []string{"--deployment", "--group", "--topic", "--name", "--namespace", "--bootstrap", "--prometheus", "--query"} {
				if v, ok := flags[f]; ok {
					a = append(a, f, v)
				}
			}
			if out != "" {
				a = append(a, "--out", out)
			}
			return a
		}
		refused := func(name, ctype, flag, value, says string) {
			cs = append(cs, hostileCase{group: g, name: name, args: render(ctype, "", flag, value), want: ExitUsage, says: says})
		}
		// allowed: the value is a valid one that YAML would retype if it
		// were written unquoted; it must come back a string, no key added.
		allowed := func(name, ctype, flag, value, at string) {
			out := filepath.Join(k.dir, "render", strings.ReplaceAll(name, " ", "_")+".yaml")
			_ = os.MkdirAll(filepath.Dir(out), 0o755)
			cs = append(cs, hostileCase{group: g, name: name, args: render(ctype, out, flag, value), want: ExitOK, says: "wrote " + out,
				check: func() string { return checkScaledObject(out, at, value) }})
		}

		// --namespace: a DNS-1123 label; "yes", "null" and "0123" are
		// labels, and stay strings.
		for _, v := range []struct{ name, value string }{
			{"newline", "shop\nlabels: {evil: x}"}, {"colon space", "shop: x"}, {"hash", "shop #x"}, {"star", "*shop"},
			{"bracket", "[shop"}, {"unicode", "shöp"}, {"64 characters", strings.Repeat("n", 64)}, {"uppercase", "Shop"},
		} {
			refused("--namespace "+v.name, "consumer", "--namespace", v.value, `--namespace "`)
		}
		for _, v := range []string{"yes", "null", "0123"} {
			allowed("--namespace "+v+" stays a string", "consumer", "--namespace", v, "metadata.namespace")
		}
		// --deployment (and the ScaledObject's name it defaults): a
		// DNS-1123 subdomain.
		for _, v := range []struct{ name, value string }{
			{"newline", "orders\nnamespace: kube-system"}, {"colon space", "orders: x"}, {"hash", "orders#x"}, {"star", "*orders"},
			{"bracket", "[orders]"}, {"unicode", "ördersé"}, {"254 characters", strings.Repeat("d", 254)}, {"uppercase", "Orders"},
		} {
			refused("--deployment "+v.name, "share", "--deployment", v.value, `--deployment "`)
		}
		for _, v := range []string{"yes", "null", "0123"} {
			allowed("--deployment "+v+" stays a string", "share", "--deployment", v, "spec.scaleTargetRef.name")
		}
		allowed("--name null stays a string", "consumer", "--name", "null", "metadata.name")
		refused("--name newline", "consumer", "--name", "so\nspec: {}", `--name "so\nspec: {}": expected a ScaledObject name (DNS-1123 subdomain`)
		// --bootstrap: host:port, the host an IP or a DNS name (any case).
		for _, v := range []struct{ name, value, says string }{
			{"newline", "kafka:9092\n    topic: other", "expected host:port"},
			{"colon space", "kafka: 9092", `port " 9092": expected a number from 1 to 65535`},
			{"hash", "#kafka:9092", `host "#kafka": expected an IP address or a DNS name`},
			{"star", "*:9092", `host "*": expected an IP address or a DNS name`},
			{"bracket", "[kafka:9092", "expected host:port"},
			{"unicode", "kafkä:9092", "expected an IP address or a DNS name"},
			{"overlong host", strings.Repeat("k", 300) + ":9092", "must be no more than 253 characters"},
			{"second address bad", "kafka:9092,kafka 2:9092", `--bootstrap "kafka 2:9092"`},
			{"loopback", "127.0.0.1:9092", "a loopback address"},
			{"share run", "kafka:9092", "--bootstrap: the run is a share group"},
		} {
			ctype := "consumer"
			if v.name == "share run" {
				ctype = "share"
			}
			refused("--bootstrap "+v.name, ctype, "--bootstrap", v.value, v.says)
		}
		for _, v := range []string{"yes:9092", "null:9092", "kafka:0123", "KAFKA-0.Example.COM:9092"} {
			allowed("--bootstrap "+v+" stays a string", "consumer", "--bootstrap", v, "spec.triggers.0.metadata.bootstrapServers")
		}
		// --topic (Kafka's rule), --group and --query (plain text),
		// --prometheus (an http(s) URL, no credentials).
		refused("--topic colon space", "consumer", "--topic", "orders: x", `--topic "orders: x": expected a Kafka topic name`)
		refused("--topic 250 characters", "consumer", "--topic", strings.Repeat("t", 250), "expected a Kafka topic name: 1 to 249")
		allowed("--topic 0123 stays a string", "consumer", "--topic", "0123", "spec.triggers.0.metadata.topic")
		refused("--group newline", "consumer", "--group", "orders\nlagThreshold: 1", `--group "orders\nlagThreshold: 1": holds the control character U+000A`)
		allowed("--group 'a: b #c *d [e' stays a string", "consumer", "--group", "a: b #c *d [e", "spec.triggers.0.metadata.consumerGroup")
		allowed("--group yes stays a string", "consumer", "--group", "yes", "spec.triggers.0.metadata.consumerGroup")
		allowed("--group unicode stays itself", "consumer", "--group", "grüße-€-注文", "spec.triggers.0.metadata.consumerGroup")
		allowed("--query with a newline and # stays one string", "share", "--query", "sum(x{a=\"b: c\"})\n# not a comment", "spec.triggers.0.metadata.query")
		refused("--query NUL", "share", "--query", "up\x00", "holds the control character U+0000")
		refused("--prometheus newline", "share", "--prometheus", "http://p:9090\n- type: cpu", "--prometheus")
		refused("--prometheus not http", "share", "--prometheus", "ftp://p", "expected an http or https URL with a host")
		refused("--prometheus on a consumer run", "consumer", "--prometheus", "http://p:9090", "--prometheus/--query: the run is a consumer group")
		cs = append(cs, hostileCase{group: g, name: "--prometheus with credentials", args: render("share", "", "--prometheus", "http://bob:"+hostileSecret+"@p:9090"),
			want: ExitUsage, says: "--prometheus: holds credentials"})
		cs = append(cs, hostileCase{group: g, name: "--out in a missing folder", args: render("share", filepath.Join(k.dir, "no", "such", "so.yaml")),
			want: ExitUsage, says: "--out:"})

		// --run: a run.json's values meet the scenario's bounds.
		rj := filepath.Join(k.dir, "render-runs")
		good := autoscaleRunJSON(t, rj, "good/run.json", vocab.ConsumerGroup, nil)
		goodOut := filepath.Join(k.dir, "render", "from-run.yaml")
		cs = append(cs, hostileCase{group: g, name: "--run a good run.json", want: ExitOK, says: "wrote " + goodOut,
			args:  []string{"autoscale", "render", "--run", good, "--deployment", "orders", "--group", "orders", "--topic", "orders", "--namespace", "null", "--out", goodOut},
			check: func() string { return checkScaledObject(goodOut, "metadata.namespace", "null") }})
		for _, v := range []struct {
			name, key string
			value     any
			says      string
		}{
			{"negative cooldown", "cooldown", -1e9, "spec.autoscale.cooldown: expected a Go duration ≥ 0 and ≤ 168h"},
			{"huge max_latency", "max_latency", 9.2e18, "spec.autoscale.max_latency: expected a Go duration ≥ 0 and ≤ 168h"},
			{"negative out_after", "out_after", -5e9, "spec.autoscale.out_after: expected a Go duration ≥ 0"},
			{"huge in_after", "in_after", 7e17, "spec.autoscale.in_after: expected a Go duration ≥ 0 and ≤ 168h"},
			{"poll 1ns", "poll", 1, "spec.autoscale.poll: must be ≥ 100ms"},
			{"negative threshold", "threshold", -200, "spec.autoscale.threshold: expected a finite number of records > 0, got -200"},
			{"threshold 0", "threshold", 0, "spec.autoscale.threshold: expected a finite number of records > 0, got 0"},
			{"negative in_below", "in_below", -1, "spec.autoscale.in_below: expected a finite number of records ≥ 0, got -1"},
			{"threshold \"NaN\" (JSON has no NaN)", "threshold", "NaN", "json: cannot unmarshal string into Go struct field"},
			{"step 0", "step", 0, "spec.autoscale.step: expected an integer from 1 to 10000"},
			{"max 1e6", "max", 1e6, "spec.autoscale.max: expected an integer from 1 to 10000"},
			{"goal -1s", "goal", -1e9, "spec.autoscale.goal: expected a Go duration ≥ 0"},
		} {
			p := autoscaleRunJSON(t, rj, strings.ReplaceAll(v.name, " ", "_")+"/run.json", vocab.ConsumerGroup, setAutoscale(v.key, v.value))
			says := "--run " + p + ": " + v.says // the file and the key
			if v.value == "NaN" {
				says = "--run: " + p + ": " + v.says // the decoder's message
			}
			cs = append(cs, hostileCase{group: g, name: "--run with " + v.name, want: ExitUsage, says: says,
				args: []string{"autoscale", "render", "--run", p, "--deployment", "orders", "--group", "orders", "--topic", "orders"}})
		}
		etd := autoscaleRunJSON(t, rj, "etd/run.json", vocab.ConsumerGroup, setAutoscale("signal", "etd"))
		cs = append(cs, hostileCase{group: g, name: "--run with signal etd (valid, but no KEDA equivalent)", want: ExitUsage,
			says: `autoscale render: signal "etd": KEDA scales on a metric's value per replica`,
			args: []string{"autoscale", "render", "--run", etd, "--deployment", "orders", "--group", "orders", "--topic", "orders"}})
		noBlock := autoscaleRunJSON(t, rj, "no-block/run.json", vocab.ConsumerGroup, setAutoscale("", nil))
		cs = append(cs, hostileCase{group: g, name: "--run without an autoscale block", want: ExitUsage, says: "--run " + noBlock + ": spec.autoscale: absent",
			args: []string{"autoscale", "render", "--run", noBlock, "--deployment", "orders", "--group", "orders", "--topic", "orders"}})
		cs = append(cs, hostileCase{group: g, name: "--run with --consumer-type", want: ExitUsage, says: "--consumer-type: only with --scenario",
			args: []string{"autoscale", "render", "--run", good, "--consumer-type", "share", "--deployment", "orders", "--group", "orders", "--topic", "orders"}})

		// --run and --scenario on what is not a file to read.
		big := filepath.Join(k.dir, "render-files", "big.json")
		_ = os.MkdirAll(filepath.Dir(big), 0o755)
		if f, err := os.Create(big); err == nil {
			_ = f.Truncate(runs.MaxRecordFileBytes + 1) // sparse
			f.Close()
		}
		loop := filepath.Join(k.dir, "render-files", "loop")
		_ = os.Symlink(loop, loop)
		zeroLink := filepath.Join(k.dir, "render-files", "zero")
		_ = os.Symlink("/dev/zero", zeroLink)
		empty := k.file("render-files/empty.json", "")
		files := []struct{ name, path, says string }{
			{"/dev/zero", "/dev/zero", "not a regular file"}, {"a directory", k.dir, "a directory"},
			{"a 64 MiB + 1 file", big, "larger than the 64 MiB"}, {"a symlink loop", loop, "a symbolic link"},
			{"a link to /dev/zero", zeroLink, "a symbolic link"}, {"an empty file", empty, "empty file"},
			{"a missing file", filepath.Join(k.dir, "nope.json"), "no such file"},
		}
		fifo := filepath.Join(k.dir, "render-files", "fifo")
		if mkfifo(fifo) == nil {
			files = append(files, struct{ name, path, says string }{"a FIFO nobody writes", fifo, "not a regular file"})
			cs = append(cs, hostileCase{group: g, name: "--scenario a FIFO nobody writes", want: ExitUsage, says: "a named pipe (FIFO) nobody writes",
				args: []string{"autoscale", "render", "--scenario", fifo, "--deployment", "orders", "--group", "orders", "--topic", "orders"}})
		}
		for _, f := range files {
			cs = append(cs, hostileCase{group: g, name: "--run " + f.name, want: ExitUsage, says: f.says,
				args: []string{"autoscale", "render", "--run", f.path, "--deployment", "orders", "--group", "orders", "--topic", "orders"}})
		}

		// advise: a plan that falls short says so; counts agree.
		const a = "advise and history"
		adv := func(name, says string, args ...string) {
			cs = append(cs, hostileCase{group: a, name: "advise " + name, want: ExitOK, says: says, args: append([]string{"advise", "--processing", "10ms"}, args...)})
		}
		adv("destination 0.5/s below the target: falls short", "a consumer group falls short: 1 member on 4 partitions reaches only 0.5 records/s, below the 1200 records/s planned",
			"--partitions", "4", "--rate", "1000", "--destination-capacity", "0.5")
		adv("destination 250/s below the target: falls short", "a consumer group falls short: 3 members on 4 partitions reach only 250 records/s, below the 1200 records/s planned",
			"--partitions", "4", "--rate", "1000", "--destination-capacity", "250")
		adv("a plan that reaches: plural", "a consumer group suffices: 12 members on 16 partitions reach 1200 records/s ≥ 1200 records/s",
			"--partitions", "16", "--rate", "1000")
		adv("a plan that reaches: singular", "a consumer group suffices: 1 member on 1 partition reaches 100 records/s ≥ 0.06 records/s",
			"--partitions", "1", "--rate", "0.05")

		// history, compare and report through symbolic links.
		camp := runstest.WriteCampaign(t, runstest.Run("r01-share", "share", 0, 1000, 100))
		links := filepath.Join(k.dir, "links")
		_ = os.MkdirAll(links, 0o755)
		latest := filepath.Join(links, "latest")
		_ = os.Symlink(camp, latest)
		_ = os.Symlink(camp, filepath.Join(links, "again"))
		_ = os.Symlink(links, filepath.Join(links, "loop"))
		loops := filepath.Join(k.dir, "loops")
		_ = os.MkdirAll(loops, 0o755)
		_ = os.Symlink(loops, filepath.Join(loops, "self"))
		hout := func(s string) string { return filepath.Join(k.dir, "hout-link-"+s) }
		cs = append(cs,
			hostileCase{group: a, name: "history of a campaign given through a link", want: ExitOK, says: "1 campaign(s)", args: []string{"history", "--out", hout("1"), latest},
				check: fileHas(filepath.Join(hout("1"), "history.csv"), "r01-share")},
			hostileCase{group: a, name: "history of a folder of links (two to one campaign, a loop)", want: ExitOK, says: "1 campaign(s)", args: []string{"history", "--out", hout("2"), links}},
			hostileCase{group: a, name: "history of a link and its target: one campaign", want: ExitOK, says: "1 campaign(s)", args: []string{"history", "--out", hout("3"), latest, camp}},
			hostileCase{group: a, name: "history of a path through a loop", want: ExitOK, says: "1 campaign(s)", args: []string{"history", "--out", hout("4"), filepath.Join(links, "loop", "loop", "latest")}},
			hostileCase{group: a, name: "history of a folder whose only entry is a loop", want: ExitUsage, says: "no campaign folder", args: []string{"history", "--out", hout("5"), loops}},
			hostileCase{group: a, name: "compare through a link", want: ExitOK, says: "", args: []string{"compare", latest, camp}},
			hostileCase{group: a, name: "report through a link", want: ExitOK, says: "", args: []string{"report", latest}},
		)
		return cs
	})
}

// fileHas: "" when the file at path holds want, else why not.
func fileHas(path, want string) func() string {
	return func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			return err.Error()
		}
		if !strings.Contains(string(b), want) {
			return path + " lacks " + want
		}
		return ""
	}
}
