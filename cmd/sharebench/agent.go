package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/campaign"
	"github.com/sharebench/sharebench/campaign/shard"
	"github.com/sharebench/sharebench/connection"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/internal/envvars"
)

// clockSkewEnv shifts an agent's clock: for tests only, to check that the
// measured clock offset recovers an injected one (docs/how-to/run-sharded.md).
const clockSkewEnv = envvars.AgentClockSkew

func init() {
	launchers["local"] = func(d distributeFlags) (shard.Launcher, error) {
		bin := d.AgentBinary
		if bin == "" {
			exe, err := os.Executable()
			if err != nil {
				return nil, fmt.Errorf("--agent-binary: this executable's path is unknown (%v); give the sharebench binary", err)
			}
			bin = exe
		}
		if st, err := os.Stat(bin); err != nil || st.IsDir() {
			return nil, fmt.Errorf("--agent-binary %s: expected the sharebench executable", bin)
		}
		return &shard.Local{Binary: bin}, nil
	}
}

// newAgentCmd is `sharebench agent`: one shard of a sharded run, started by
// the coordinator (run/bench --shards N) or a Kubernetes Indexed Job.
func newAgentCmd() *cobra.Command {
	var (
		bootstrap                          []string
		control, results, connFile, scFile string
		shards, idx                        int
		name                               string
	)
	cmd := &cobra.Command{
		Use:   "agent",
		Args:  cobra.NoArgs,
		Short: "Run one shard of a sharded run (started by run --shards N or a Kubernetes Indexed Job; not for direct use)",
		Long: "agent runs one shard of one sharded run: it reports to the coordinator on the control topic, measures its clock\n" +
			"offset, runs its producers and members (index i mod shards = shard), writes its results to the results topic and\n" +
			"exits 0; on an error it reports failed and exits non-zero. See docs/how-to/run-sharded.md.",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("shard") {
				v, ok := os.LookupEnv("JOB_COMPLETION_INDEX")
				n, err := strconv.Atoi(v)
				if !ok || err != nil {
					return usageError(fmt.Errorf("--shard: give the shard index, or run as a Kubernetes Indexed Job ($JOB_COMPLETION_INDEX %q)", v))
				}
				idx = n
			}
			if len(bootstrap) == 0 || control == "" || results == "" {
				return usageError(fmt.Errorf("--bootstrap, --control-topic and --results-topic are required"))
			}
			if shards < 1 || idx < 0 || idx >= shards {
				return usageError(fmt.Errorf("--shard %d --shards %d: expected 0 ≤ shard < shards", idx, shards))
			}
			o := campaign.AgentOptions{Bootstrap: bootstrap, ControlTopic: control, ResultsTopic: results,
				Shard: idx, Shards: shards, Log: cmd.ErrOrStderr()}
			if connFile != "" {
				c, err := connection.Load(connFile)
				if err != nil {
					return usageError(fmt.Errorf("--connection: %w", err))
				}
				o.Connection = c
			}
			h, err := campaign.ScenarioHash(scFile)
			if err != nil {
				return usageError(fmt.Errorf("--scenario: %w", err))
			}
			o.ScenarioHash = h
			if v := os.Getenv(clockSkewEnv); v != "" {
				d, err := time.ParseDuration(v)
				if err != nil {
					return usageError(fmt.Errorf("%s=%s: expected a Go duration such as 2s or -150ms", clockSkewEnv, v))
				}
				o.ClockSkew = d
			}
			o.Token = os.Getenv(shard.TokenEnv)
			o.DestinationDSN = os.Getenv(shard.DSNEnv)
			fmt.Fprintf(cmd.ErrOrStderr(), "sharebench agent: shard %d of %d, run %s, control topic %s\n", idx, shards, name, control)
			return campaign.Agent(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringSliceVar(&bootstrap, "bootstrap", nil, "Kafka bootstrap servers as the agent reaches them, HOST:PORT[,HOST:PORT...]")
	fs.StringVar(&control, "control-topic", "", "the run's control topic")
	fs.StringVar(&results, "results-topic", "", "the run's results topic")
	fs.IntVar(&shards, "shards", 0, "number of shards of the run")
	fs.IntVar(&idx, "shard", 0, "this agent's shard index, 0..shards-1 (default: $JOB_COMPLETION_INDEX)")
	fs.StringVar(&connFile, "connection", "", "connection settings `FILE` (TLS, SASL), as for --provider external")
	fs.StringVar(&scFile, "scenario", "", "the scenario file; its hash must match the coordinator's")
	fs.StringVar(&name, "campaign", "", "the campaign or run the agent belongs to (log lines)")
	return cmd
}

// shardOptions are the campaign's agent settings from the distribute flags
// (nil launcher when no run of sc is sharded).
func (f *runFlags) shardOptions(sharded bool) (campaign.ShardOptions, error) {
	if !sharded {
		return campaign.ShardOptions{}, nil
	}
	l, err := f.dist.launcher()
	if err != nil {
		return campaign.ShardOptions{}, err
	}
	o := campaign.ShardOptions{Launcher: l}
	if isScenarioFile(f.scenario) {
		if abs, err := filepath.Abs(f.scenario); err == nil {
			o.ScenarioFile, o.HashFile = abs, abs
		}
	} else if path, err := builtinScenarioFile(f.scenario); err == nil {
		// A built-in has no file: its source is written to one so the
		// agents (a Kubernetes ConfigMap included) check the same text.
		o.ScenarioFile, o.HashFile = path, path
	}
	if f.conn.file != "" {
		abs, err := filepath.Abs(f.conn.file)
		if err != nil {
			return o, err
		}
		o.ConnectionFile = abs
	}
	return o, nil
}

// shardsSet is the --set override that --shards N stands for.
func (f *runFlags) shardsSet() []string {
	if f.dist.Shards == 0 {
		return f.sets
	}
	return append(append([]string(nil), f.sets...), "shards="+strconv.Itoa(f.dist.Shards))
}

// builtinScenarioFile writes a built-in scenario's source to a file in the
// temporary directory named after its content, so repeated campaigns reuse
// it and no file is left per run.
func builtinScenarioFile(name string) (string, error) {
	src, err := scenarios.BuiltinSource(name)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(src)
	path := filepath.Join(os.TempDir(), "sharebench-scenario-"+name+"-"+hex.EncodeToString(sum[:6])+".yaml")
	if b, err := os.ReadFile(path); err == nil && bytes.Equal(b, src) {
		return path, nil
	}
	tmp, err := os.CreateTemp(os.TempDir(), "sharebench-scenario-*.yaml")
	if err != nil {
		return "", err
	}
	if _, err := tmp.Write(src); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return path, os.Rename(tmp.Name(), path)
}
