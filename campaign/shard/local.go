package shard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"github.com/sharebench/sharebench/internal/tail"
)

// Local starts agents as processes of a sharebench binary on this machine,
// each in its own process group.
type Local struct {
	// Binary is the sharebench executable.
	Binary string
	// Grace is how long Stop waits after SIGTERM before SIGKILL (default 5s).
	Grace time.Duration
	// ShardEnv adds environment variables to one shard's process (tests:
	// SHAREBENCH_AGENT_CLOCK_SKEW on one agent); nil: none.
	ShardEnv func(shard int) []string
}

// Name is "local".
func (l *Local) Name() string { return "local" }

// CarriesTokens is true: each process gets its shard's token, alone, in
// its environment (TokenEnv).
func (l *Local) CarriesTokens() bool { return true }

// CarriesDSN is true: each process gets the destination's dsn in its
// environment (DSNEnv); local agents reach the coordinator's host, an
// embedded server included.
func (l *Local) CarriesDSN() bool { return true }

// tailBytes is how much of an agent's output an exit keeps.
const tailBytes = 4 << 10

// Start starts a.Shards processes of Binary with a.Argv(i).
func (l *Local) Start(ctx context.Context, a AgentArgs) (Agents, error) {
	if a.Shards < 1 {
		return nil, fmt.Errorf("shard: local launcher: %d shards; want ≥ 1", a.Shards)
	}
	if l.Binary == "" {
		return nil, errors.New("shard: local launcher: no agent binary")
	}
	la := &localAgents{exited: make(chan Exit, a.Shards), grace: l.Grace}
	if la.grace <= 0 {
		la.grace = 5 * time.Second
	}
	for i := range a.Shards {
		cmd := exec.Command(l.Binary, a.Argv(i)...)
		cmd.Env = os.Environ()
		if i < len(a.Tokens) {
			cmd.Env = append(cmd.Env, TokenEnv+"="+a.Tokens[i])
		}
		if a.DestinationDSN != "" {
			cmd.Env = append(cmd.Env, DSNEnv+"="+a.DestinationDSN)
		}
		if l.ShardEnv != nil {
			cmd.Env = append(cmd.Env, l.ShardEnv(i)...)
		}
		out := tail.New(tailBytes)
		cmd.Stdout, cmd.Stderr = out, out
		cmd.SysProcAttr = procAttr()
		p := &localProc{shard: i, cmd: cmd, out: out, done: make(chan struct{})}
		started := make(chan error, 1)
		la.wg.Add(1)
		go func() {
			defer la.wg.Done()
			// Started and waited for from one locked OS thread: on Linux
			// the agent gets SIGKILL when the thread that forked it ends
			// (Pdeathsig, procAttr), which must be when the harness dies,
			// not when the Go runtime retires an idle thread.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if err := cmd.Start(); err != nil {
				started <- err
				return
			}
			started <- nil
			err := cmd.Wait()
			close(p.done)
			if err != nil {
				err = fmt.Errorf("shard %d (pid %d): %w", p.shard, cmd.Process.Pid, err)
			}
			la.exited <- Exit{Shard: p.shard, Err: err, Output: out.Trimmed()}
		}()
		if err := <-started; err != nil {
			_ = la.Stop(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("shard %d: start %s: %w", i, l.Binary, err)
		}
		la.procs = append(la.procs, p)
	}
	go func() { la.wg.Wait(); close(la.exited) }()
	return la, nil
}

type localAgents struct {
	procs  []*localProc
	exited chan Exit
	grace  time.Duration
	wg     sync.WaitGroup
	once   sync.Once
}

type localProc struct {
	shard int
	cmd   *exec.Cmd
	out   *tail.Writer
	done  chan struct{}
}

func (la *localAgents) Exited() <-chan Exit { return la.exited }

// PIDs are the agents' process ids (tests check none is left).
func (la *localAgents) PIDs() []int {
	out := make([]int, len(la.procs))
	for i, p := range la.procs {
		out[i] = p.cmd.Process.Pid
	}
	return out
}

// Stop sends SIGTERM to every agent's process group, SIGKILL to those
// still running after the grace period, and waits for every process.
func (la *localAgents) Stop(ctx context.Context) error {
	var err error
	la.once.Do(func() {
		for _, p := range la.procs {
			signalGroup(p.cmd.Process.Pid, false)
		}
		deadline := time.NewTimer(la.grace)
		defer deadline.Stop()
	wait:
		for _, p := range la.procs {
			select {
			case <-p.done:
			case <-deadline.C:
				break wait
			case <-ctx.Done():
				break wait
			}
		}
		for _, p := range la.procs {
			select {
			case <-p.done:
			default:
				signalGroup(p.cmd.Process.Pid, true)
			}
		}
		for _, p := range la.procs {
			select {
			case <-p.done:
			case <-time.After(10 * time.Second):
				err = errors.Join(err, fmt.Errorf("shard %d (pid %d) did not end after SIGKILL", p.shard, p.cmd.Process.Pid))
			}
		}
	})
	return err
}
