package shard

import (
	"context"
	"strconv"
	"strings"

	"github.com/sharebench/sharebench/internal/envvars"
)

// AgentArgs is what every agent of a sharded campaign is started with. The
// run itself (spec, topic, group, clock, window) travels over the control
// topic, so an agent needs only where to find the coordinator.
type AgentArgs struct {
	// Bootstrap are the Kafka bootstrap addresses as the agents reach them.
	Bootstrap []string
	// ControlTopic carries the coordinator's commands and the agents'
	// replies; ResultsTopic carries each shard's results at the end.
	ControlTopic, ResultsTopic string
	// Shards is the number of agents; each has an index 0..Shards-1.
	Shards int
	// ConnectionFile, when set, is the connection file (TLS, SASL) the
	// agents read, as a path inside the agent's file system.
	ConnectionFile string
	// ScenarioFile, when set, is the scenario as a path inside the agent's
	// file system; the agent refuses to run when its hash differs from the
	// coordinator's.
	ScenarioFile string
	// Campaign names the campaign (labels, log lines).
	Campaign string
	// Tokens, when set, hold each shard's token (index: shard), drawn by
	// the coordinator for this run. A launcher that carries them
	// (TokenCarrier) hands shard i Tokens[i] alone, never on the command
	// line: the agent signs its messages with it (Msg.Mac) and the
	// coordinator refuses a message not signed by the shard it names.
	Tokens []string
	// DestinationDSN, when set, is the dsn of the run's destination
	// database. A launcher that carries it (DSNCarrier) hands it to every
	// agent in its environment (DSNEnv), never on the command line.
	DestinationDSN string
}

// DSNEnv is the variable a launcher gives an agent the destination's dsn in.
const DSNEnv = envvars.AgentDestinationDSN

// DSNCarrier is a Launcher that hands its agents the destination's dsn
// (AgentArgs.DestinationDSN); a run with a destination: needs one.
type DSNCarrier interface {
	CarriesDSN() bool
}

// TokenEnv is the variable a launcher gives an agent its token in.
const TokenEnv = envvars.AgentToken

// TokenCarrier is a Launcher that hands every agent its own token
// (AgentArgs.Tokens). The coordinator requires signed messages only from
// the agents of such a launcher.
type TokenCarrier interface {
	CarriesTokens() bool
}

// Argv is the agent's command line after the program name. shard < 0 leaves
// --shard out: the agent then takes its index from $JOB_COMPLETION_INDEX
// (a Kubernetes Indexed Job sets it on every pod).
func (a AgentArgs) Argv(shard int) []string {
	argv := []string{"agent",
		"--bootstrap", strings.Join(a.Bootstrap, ","),
		"--control-topic", a.ControlTopic,
		"--results-topic", a.ResultsTopic,
		"--shards", strconv.Itoa(a.Shards)}
	if shard >= 0 {
		argv = append(argv, "--shard", strconv.Itoa(shard))
	}
	if a.ConnectionFile != "" {
		argv = append(argv, "--connection", a.ConnectionFile)
	}
	if a.ScenarioFile != "" {
		argv = append(argv, "--scenario", a.ScenarioFile)
	}
	if a.Campaign != "" {
		argv = append(argv, "--campaign", a.Campaign)
	}
	return argv
}

// Launcher starts the agents of a campaign.
type Launcher interface {
	// Start starts a.Shards agents and returns once each was started (not
	// necessarily ready: readiness is reported over the control topic).
	// On error nothing it started is left running.
	Start(ctx context.Context, a AgentArgs) (Agents, error)
	// Name says where agents run ("local", "k8s"), for run.json and logs.
	Name() string
}

// Agents are started agents.
type Agents interface {
	// Exited delivers one Exit for every agent that ends, whether it
	// failed or finished; it is closed once every agent has ended.
	Exited() <-chan Exit
	// Stop ends every agent still running (signal, then kill; for
	// Kubernetes: delete the objects) and waits for them. Safe to call more
	// than once and after every agent has exited.
	Stop(ctx context.Context) error
}

// Exit is an agent that ended.
type Exit struct {
	Shard int
	// Err is nil when the agent exited cleanly; otherwise it says how
	// (exit code, signal, pod phase).
	Err error
	// Output is the tail of the agent's stderr/log, for the error message.
	Output string
}
