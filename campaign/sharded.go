package campaign

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sharebench/sharebench/campaign/shard"
	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// Coordinator timeouts of a sharded run: every wait for the agents is
// bounded and names the shards that missed it.
const (
	helloTimeout   = 2 * time.Minute // agents started → every hello (Kubernetes pulls images)
	readyTimeout   = time.Minute     // run sent → every ready (clock pings)
	commandTimeout = 2 * time.Minute // a command → every reply (members: a runner's JVM starts)
	shardedLead    = 500 * time.Millisecond
	resultsTimeout = 2 * time.Minute // stop → every shard's results and done
	exitTimeout    = 30 * time.Second
	drainCheckWait = 30 * time.Second // drain_check → every shard's marks
	// produceMargin bounds the producers' end beyond the schedule: their
	// flush and the progress message that says so.
	produceMargin = time.Minute
)

// ScenarioHash is the sha256 of a scenario file with its secrets masked
// (redact.Bytes), as agents report it: a Kubernetes agent reads the masked
// file from its ConfigMap, a local agent the file itself, and both hash what
// the coordinator hashes.
func ScenarioHash(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := scenarios.ReadFileLimited(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(redact.Bytes(b))
	return hex.EncodeToString(sum[:]), nil
}

// checkShards refuses, before anything is created, a sharded run its
// agents cannot carry out: each refusal is physical, and says why.
func (s *runSetup) checkShards() error {
	spec := s.spec
	if spec.ShardCount() <= 1 {
		return nil
	}
	n := spec.ShardCount()
	if s.shards.Launcher == nil {
		return fmt.Errorf("shards %d: no agent launcher (sharebench run --distribute local or k8s)", n)
	}
	if s.conn.conn.Secured() && s.shards.ConnectionFile == "" {
		return fmt.Errorf("shards %d: the cluster's connection (%s) must reach the agents as a file: give it with --connection FILE",
			n, s.conn.conn.Describe())
	}
	if err := runnerAgents(spec, s.shards.Launcher.Name()); err != nil {
		return err
	}
	if spec.Destination != nil {
		if dc, ok := s.shards.Launcher.(shard.DSNCarrier); !ok || !dc.CarriesDSN() {
			return fmt.Errorf("shards %d with destination: agents launched by %s are not handed the destination's dsn "+
				"(it holds a password, and their pods get no Secret from the coordinator; an embedded server on this host "+
				"is out of their reach); use --distribute local", n, s.shards.Launcher.Name())
		}
	}
	return nil
}

// runnerAgents refuses a sharded run whose client runner (java,
// librdkafka) the agents the launcher named starts cannot run: each agent
// runs its own runner, and only local agents share this host's JDK,
// python3 and cache; the Kubernetes agent image carries the sharebench
// binary only.
func runnerAgents(spec scenarios.RunSpec, launcher string) error {
	if !spec.Client.Runner() || launcher == (&shard.Local{}).Name() {
		return nil
	}
	needs := "JDK or Maven for the Java runner"
	if spec.Client == consumers.ClientSpring {
		needs = "JDK or Maven for the Spring runner"
	}
	if spec.Client == consumers.ClientLibrdkafka {
		needs = "python3 (with venv) to install confluent-kafka for the librdkafka runner"
	}
	return fmt.Errorf("shards %d with client %s: agents launched by %s have no %s (the agent image carries the sharebench "+
		"binary only); use --distribute local or client franz-go", spec.ShardCount(), spec.Client, launcher, needs)
}

// shardedLoad starts the run's agents through the launcher
// (docs/how-to/run-sharded.md): the control and results topics, the
// agents, their hello, the run's setup, their clock offsets. The returned
// load spreads the run's phases over them; close stops them and drops the
// topics.
func (s *runSetup) shardedLoad(ctx context.Context, rc *recording) (_ load, _ func(), err error) {
	var undo []func()
	closeLoad := func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	defer func() {
		if err != nil {
			closeLoad()
		}
	}()
	spec, n := s.spec, s.spec.ShardCount()
	// Local agents share this host's cache: build the Java runner once,
	// here, rather than in every agent within its reply bound (checkClients
	// installed the librdkafka runner before the campaign started).
	switch spec.Client {
	case consumers.ClientJava:
		if _, err := consumers.JavaRunnerDir(ctx, spec.KafkaVersion, s.log); err != nil {
			return nil, nil, err
		}
	case consumers.ClientSpring:
		if _, err := consumers.SpringRunnerDir(ctx, spec.KafkaVersion, s.log); err != nil {
			return nil, nil, err
		}
	}
	cleanup := context.WithoutCancel(ctx)
	control, resultsTopic := s.topic+"-control", s.topic+"-results"
	for _, t := range []string{control, resultsTopic} {
		if err := s.adm.createTopic(ctx, t, 1, min(s.cl.Nodes(), 3)); err != nil {
			return nil, nil, err
		}
		undo = append(undo, func() { s.dropTopic(cleanup, t) })
	}
	bus, err := shard.NewBus(ctx, s.cl.Bootstrap(), control, resultsTopic, s.conn.opts...)
	if err != nil {
		return nil, nil, err
	}
	undo = append(undo, bus.Close)
	var tokens []string // one per shard, when the launcher hands each agent its own
	if tc, ok := s.shards.Launcher.(shard.TokenCarrier); ok && tc.CarriesTokens() {
		for range n {
			t, err := shard.NewToken()
			if err != nil {
				return nil, nil, err
			}
			tokens = append(tokens, t)
		}
	}
	args := shard.AgentArgs{Bootstrap: s.cl.Bootstrap(), ControlTopic: control, ResultsTopic: resultsTopic, Shards: n,
		ConnectionFile: s.shards.ConnectionFile, ScenarioFile: s.shards.ScenarioFile, Campaign: s.id, Tokens: tokens}
	if s.sink != nil {
		args.DestinationDSN = s.sink.Config().DSN
	}
	fmt.Fprintf(s.log, "  %s: starting %d agents (%s)\n", s.id, n, s.shards.Launcher.Name())
	agents, err := s.shards.Launcher.Start(ctx, args)
	if err != nil {
		return nil, nil, fmt.Errorf("start agents: %w", err)
	}
	undo = append(undo, func() {
		sctx, cancel := context.WithTimeout(cleanup, time.Minute)
		defer cancel()
		if err := agents.Stop(sctx); err != nil {
			fmt.Fprintf(s.log, "  %s: stop agents: %v\n", s.id, err)
		}
	})
	c := &coord{s: s, rec: rc.rec, bus: bus, agents: agents, n: n, hash: s.shards.scenarioHash, tokens: tokens,
		pings: map[int][]pingSeen{}, hello: map[int]shard.Msg{}, ready: map[int]shard.Msg{},
		progress: map[int]*shard.Progress{}, done: map[int]*shard.Progress{}, gone: map[int]bool{},
		marks: map[int]map[int]results.LedgerMarks{}, replies: map[int]map[int]shard.Reply{},
		exports: map[int][]byte{}, client: map[int][]byte{}, exitc: agents.Exited(), cleanExit: map[int]cleanExit{},
		tick: time.NewTicker(time.Second), changed: make(chan struct{}), pumped: make(chan struct{}),
		exitErr: make(chan error, 1), merged: consumers.NewClientStats(), nextID: spec.Members}
	pctx, stopPump := context.WithCancel(ctx)
	go c.pump(pctx)
	undo = append(undo, func() { stopPump(); <-c.pumped; c.tick.Stop() })
	if err := c.until(ctx, helloTimeout, "hello", func(i int) bool { _, ok := c.hello[i]; return ok }); err != nil {
		return nil, nil, err
	}
	if err := c.sendSetup(ctx, rc); err != nil {
		return nil, nil, err
	}
	if err := c.until(ctx, readyTimeout, "ready", func(i int) bool { _, ok := c.ready[i]; return ok }); err != nil {
		return nil, nil, err
	}
	for i := range n {
		c.live = append(c.live, producer.Indices(spec.Members, i, n))
	}
	return c, closeLoad, nil
}

// sendSetup sends every shard what it runs: the spec, the topic and group,
// what its recorder shares with the coordinator's, its destination table
// and its part of the destination's connections.
func (c *coord) sendSetup(ctx context.Context, rc *recording) error {
	s := c.s
	specJSON, err := json.Marshal(s.spec)
	if err != nil {
		return err
	}
	perProducer, seconds, err := runSizes(s.spec)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.clock = rc.clock // pongs read it from now on
	c.mu.Unlock()
	for i := range c.n {
		setup := &shard.Setup{Spec: specJSON, RunID: s.id, Topic: s.topic, Group: s.group, RunTag: rc.rec.Run,
			SeriesStartNs: rc.series.Start(), SeriesSeconds: seconds, Producers: s.spec.Producers, PerProducer: perProducer}
		if s.sink != nil {
			setup.DestinationTable = s.destIn.Table
			setup.DestinationConnections = shardConnections(s.spec.Destination.Connections, i, c.n)
		}
		if err := c.bus.Send(ctx, shard.Msg{Type: shard.TypeRun, Shard: i, Setup: setup}); err != nil {
			return err
		}
	}
	return nil
}

// shardConnections is shard i's part of a destination's connections cap
// (0: no cap), the remainder to the lowest shards: the agents' pools
// together hold the cap, as one process's shared pool would.
func shardConnections(total, i, n int) int {
	if total <= 0 {
		return 0
	}
	return len(producer.Indices(total, i, n))
}

// coord is the coordinator's side of one sharded run: the load of its
// agents. pump handles what they send; the load's calls send commands and
// wait on what pump recorded.
type coord struct {
	s      *runSetup
	rec    *results.Recorder // the run's: every shard's results are absorbed into it
	bus    *shard.Bus
	agents shard.Agents
	n      int
	hash   string
	tick   *time.Ticker
	gen    atomic.Int32 // the highest consumer-group generation an agent reported
	seq    atomic.Int64 // commands and drain checks sent

	mu      sync.Mutex
	changed chan struct{} // closed (and replaced) after every event pump handled
	failed  error         // the first failure pump saw
	exitErr chan error    // exited(): the first failure
	pumped  chan struct{} // closed when pump returns
	clock   *results.Clock
	// tokens are the shards' tokens (nil: the launcher carries none, and
	// agents are told apart by their hello only); pings are the pings
	// each shard sent, with the coordinator's reply time, against which
	// its ready's clock offset is checked (checkClock).
	tokens []string
	pings  map[int][]pingSeen

	hello, ready map[int]shard.Msg
	progress     map[int]*shard.Progress
	done         map[int]*shard.Progress
	gone         map[int]bool                        // agents whose process ended
	marks        map[int]map[int]results.LedgerMarks // drain check seq → shard → marks
	replies      map[int]map[int]shard.Reply         // command seq → shard → reply
	exports      map[int][]byte
	client       map[int][]byte    // client statistics, by shard
	exitc        <-chan shard.Exit // nil once closed
	cleanExit    map[int]cleanExit // exited 0, done not seen yet
	merged       consumers.ClientStats
	// live are each shard's running members' ids, oldest first; nextID is
	// the id the next member to join takes.
	live   [][]int
	nextID int
	// mergeSec is stop's time to decode and absorb every shard's results
	// (run.json shards.merge_s).
	mergeSec float64
}

// until waits until have holds for every shard (read under c.mu), or fails
// naming the shards lacking after timeout, or with pump's failure.
func (c *coord) until(ctx context.Context, timeout time.Duration, what string, have func(i int) bool) error {
	return c.untilShards(ctx, timeout, what, allShards(c.n), have)
}

func allShards(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// untilShards is until over some shards.
func (c *coord) untilShards(ctx context.Context, timeout time.Duration, what string, shards []int, have func(i int) bool) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		c.mu.Lock()
		var lacking []int
		for _, i := range shards {
			if !have(i) {
				lacking = append(lacking, i)
			}
		}
		failed, changed := c.failed, c.changed
		c.mu.Unlock()
		switch {
		case failed != nil:
			return failed
		case len(lacking) == 0:
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return fmt.Errorf("shard(s) %v missed %s within %v", lacking, what, timeout)
		case <-changed:
		}
	}
}

// command sends cmd to each shard of shards (as typ) and waits for every
// reply; a reply's error is the shard's failure to carry it out.
func (c *coord) command(ctx context.Context, typ string, shards []int, cmd func(i int) shard.Command) (map[int]shard.Reply, error) {
	seq := int(c.seq.Add(1))
	for _, i := range shards {
		cm := cmd(i)
		cm.Seq = seq
		if err := c.bus.Send(ctx, shard.Msg{Type: typ, Shard: i, Cmd: &cm}); err != nil {
			return nil, err
		}
	}
	err := c.untilShards(ctx, commandTimeout, fmt.Sprintf("its reply to %s %d", typ, seq), shards, func(i int) bool {
		_, ok := c.replies[seq][i]
		return ok
	})
	c.mu.Lock()
	got := c.replies[seq]
	delete(c.replies, seq)
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, i := range shards {
		if e := got[i].Error; e != "" {
			errs = append(errs, fmt.Errorf("shard %d: %s: %s", i, typ, redact.Relayed(e, 0)))
		}
	}
	return got, errors.Join(errs...)
}

func (c *coord) startMembers(ctx context.Context, hold bool) error {
	_, err := c.command(ctx, shard.TypeMembers, allShards(c.n), func(int) shard.Command { return shard.Command{Hold: hold} })
	return err
}

// release returns the earliest shard's release: from then on a member
// may consume.
func (c *coord) release(ctx context.Context) (int64, error) {
	got, err := c.command(ctx, shard.TypeRelease, allShards(c.n), func(int) shard.Command { return shard.Command{} })
	if err != nil {
		return 0, err
	}
	at := int64(math.MaxInt64)
	for _, r := range got {
		at = min(at, r.AtNs)
	}
	return at, nil
}

func (c *coord) generation() int32 { return c.gen.Load() }

func (c *coord) lead() time.Duration { return shardedLead }

// produce starts every shard's producers at pcfg.Start and waits for all
// of them to end: by the window's end plus produceMargin, or, for a
// backlog, by ctx (the fill's bound, which the agents are told as well).
func (c *coord) produce(ctx context.Context, pcfg producer.Config, w results.Window) error {
	cmd := shard.Command{StartNs: pcfg.Start, WindowStartNs: w.Start, WindowEndNs: w.End, FlushNs: int64(pcfg.FlushTimeout)}
	bound := c.s.spec.DrainTimeout + produceMargin
	if w.End != math.MaxInt64 {
		bound = time.Duration(w.End-c.rec.Clock.Now()) + flushOrDefault(pcfg.FlushTimeout) + produceMargin
	}
	if dl, ok := ctx.Deadline(); ok {
		cmd.UntilNs = c.rec.Clock.Now() + int64(time.Until(dl))
	}
	if _, err := c.command(ctx, shard.TypeProduce, allShards(c.n), func(int) shard.Command { return cmd }); err != nil {
		return err
	}
	return c.until(ctx, bound, "the end of its producers", func(i int) bool {
		p := c.progress[i]
		return p != nil && p.ProducersDone
	})
}

// unfinished is one drain check: every shard writes its ledger marks, and
// the union says how many acknowledged records no shard finished.
func (c *coord) unfinished(ctx context.Context) (int64, error) {
	seq := int(c.seq.Add(1))
	if err := c.bus.Send(ctx, shard.Msg{Type: shard.TypeDrainCheck, Shard: shard.All, Seq: seq}); err != nil {
		return 0, err
	}
	if err := c.until(ctx, drainCheckWait, fmt.Sprintf("drain check %d", seq), func(i int) bool {
		_, ok := c.marks[seq][i]
		return ok
	}); err != nil {
		return 0, err
	}
	c.mu.Lock()
	all := make([]results.LedgerMarks, 0, c.n)
	for i := range c.n {
		all = append(all, c.marks[seq][i])
	}
	delete(c.marks, seq)
	c.mu.Unlock()
	_, unfinished, err := results.Unfinished(all...)
	return int64(unfinished), err
}

// counts are the sum of every shard's latest counters.
func (c *coord) counts() results.Counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out results.Counts
	for _, p := range c.progress {
		if p != nil {
			out.Add(p.Counts)
		}
	}
	return out
}

func (c *coord) exited() chan error { return c.exitErr }

// stop stops every shard's load, reads each shard's results and absorbs
// them into the run's recorder; the shards' own errors are the run's.
func (c *coord) stop(ctx context.Context, _ error) ([]error, error) {
	if err := c.bus.Send(ctx, shard.Msg{Type: shard.TypeStop, Shard: shard.All}); err != nil {
		return nil, err
	}
	if err := c.until(ctx, resultsTimeout, "its results", func(i int) bool {
		_, ok := c.exports[i]
		_, cok := c.client[i]
		return ok && cok && c.done[i] != nil
	}); err != nil {
		return nil, err
	}
	if err := c.until(ctx, exitTimeout, "its exit after its results", func(i int) bool { return c.gone[i] }); err != nil {
		return nil, err
	}
	began := time.Now()
	defer func() { c.mergeSec = time.Since(began).Seconds() }()
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for i := range c.n {
		e, err := shard.DecodeExport(c.exports[i])
		if err != nil {
			return nil, fmt.Errorf("shard %d: results: %w", i, err)
		}
		if e.Shard != i {
			return nil, fmt.Errorf("shard %d: results labelled shard %d", i, e.Shard)
		}
		if err := c.rec.Absorb(e); err != nil {
			return nil, fmt.Errorf("shard %d: merge results: %w", i, err)
		}
		delete(c.exports, i)
		cs, err := consumers.DecodeClientStats(c.client[i])
		if err != nil {
			return nil, fmt.Errorf("shard %d: %w", i, err)
		}
		c.merged.Merge(cs)
		for _, e := range c.done[i].Errors {
			errs = append(errs, errors.New(e))
		}
	}
	return errs, nil
}

func (c *coord) clientStats() consumers.ClientStats { return c.merged }

func (c *coord) states() *consumers.Fleet { return nil }

// Members is how many members run on every shard together.
func (c *coord) Members() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, ids := range c.live {
		n += len(ids)
	}
	return n
}

// Join starts n members, each on the shard running fewest (the lowest
// index first), with ids drawn here so they are distinct across shards.
func (c *coord) Join(n int) []int {
	c.mu.Lock()
	by := map[int][]int{}
	counts := make([]int, c.n)
	for i, ids := range c.live {
		counts[i] = len(ids)
	}
	for range n {
		i := 0
		for j := range counts {
			if counts[j] < counts[i] {
				i = j
			}
		}
		by[i] = append(by[i], c.nextID)
		c.nextID++
		counts[i]++
	}
	c.mu.Unlock()
	got, err := c.act(context.Background(), by, func(i int) shard.Command { return shard.Command{Action: shard.ActJoin, IDs: by[i]} })
	if err != nil {
		fmt.Fprintf(c.s.log, "  %s: join %d: %v\n", c.s.id, n, err)
	}
	return got
}

// Leave makes the n oldest members leave gracefully, on whichever shards
// they run.
func (c *coord) Leave(ctx context.Context, n int) ([]int, error) {
	return c.remove(ctx, shard.ActLeave, n)
}

// Crash stops the n oldest members dead, on whichever shards they run.
func (c *coord) Crash(ctx context.Context, n int) ([]int, error) {
	return c.remove(ctx, shard.ActCrash, n)
}

// remove takes the run's n oldest members (the lowest ids of those that
// joined first: the order every shard keeps its own in) off their shards.
func (c *coord) remove(ctx context.Context, action string, n int) ([]int, error) {
	c.mu.Lock()
	total := 0
	var all []int
	for _, ids := range c.live {
		total += len(ids)
		all = append(all, ids...)
	}
	if n < 1 || n >= total {
		c.mu.Unlock()
		return nil, fmt.Errorf("consumers: cannot remove %d of %d members: at least one must stay", n, total)
	}
	slices.Sort(all) // ids are drawn in join order: the lowest are the oldest
	chosen := all[:n]
	by := map[int][]int{}
	for i, ids := range c.live {
		for _, id := range ids {
			if slices.Contains(chosen, id) {
				by[i] = append(by[i], id)
			}
		}
	}
	c.mu.Unlock()
	return c.act(ctx, by, func(i int) shard.Command { return shard.Command{Action: action, N: len(by[i])} })
}

// act sends one act to each shard of by and keeps c.live in step with the
// members the shards report.
func (c *coord) act(ctx context.Context, by map[int][]int, cmd func(i int) shard.Command) ([]int, error) {
	shards := make([]int, 0, len(by))
	for i := range by {
		shards = append(shards, i)
	}
	sort.Ints(shards)
	got, err := c.command(ctx, shard.TypeAct, shards, cmd)
	c.mu.Lock()
	defer c.mu.Unlock()
	var ids []int
	for _, i := range shards {
		r, ok := got[i]
		if !ok || r.Error != "" {
			continue
		}
		ids = append(ids, r.IDs...)
		if a := cmd(i).Action; a == shard.ActJoin {
			c.live[i] = append(c.live[i], r.IDs...)
		} else {
			c.live[i] = slices.DeleteFunc(c.live[i], func(id int) bool { return slices.Contains(r.IDs, id) })
		}
	}
	slices.Sort(ids)
	return ids, err
}

// SlowDown slows every shard's processing by factor for d.
func (c *coord) SlowDown(factor float64, d time.Duration) {
	by := map[int][]int{}
	for i := range c.n {
		by[i] = nil
	}
	if _, err := c.act(context.Background(), by, func(int) shard.Command {
		return shard.Command{Action: shard.ActSlow, Factor: factor, DurationNs: int64(d)}
	}); err != nil {
		fmt.Fprintf(c.s.log, "  %s: slow down: %v\n", c.s.id, err)
	}
}

// pump handles the agents' messages, blobs and exits for the run's whole
// length, each under c.mu, and wakes every waiter after each; the first
// failure (an agent's, the bus's, or the run's end) is kept, sent to
// exited (an agent's or the bus's only) and returned by every wait from
// then on.
func (c *coord) pump(ctx context.Context) {
	defer close(c.pumped)
	for !c.handled(c.step(ctx), ctx.Err()) {
	}
}

// handled keeps the outcome of one step (err: a failure; ended: the run's
// context ended, so a wait still under way, an event's join, returns at
// once), wakes every waiter and reports whether pump must stop.
func (c *coord) handled(err, ended error) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil && c.failed == nil && ended == nil {
		c.failed = err
		select {
		case c.exitErr <- err:
		default:
		}
	}
	if c.failed == nil && ended != nil {
		c.failed = ended
	}
	close(c.changed)
	c.changed = make(chan struct{})
	return c.failed != nil
}

// step waits for one event (a message, a blob, an agent's exit) and
// handles it; it fails on an agent's failure or exit before its results.
func (c *coord) step(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case err := <-c.bus.Errs():
		return err
	case e, ok := <-c.exitc:
		c.mu.Lock()
		defer c.mu.Unlock()
		if !ok {
			c.exitc = nil // every agent ended: lateDone watches those without results
			return nil
		}
		c.gone[e.Shard] = true
		if e.Err != nil {
			return shardFailed(e.Shard, e.Err.Error(), e.Output)
		}
		if c.done[e.Shard] == nil {
			// Its done may still be on its way through the control topic.
			c.cleanExit[e.Shard] = cleanExit{at: time.Now(), output: e.Output}
		}
	case <-c.tick.C:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.lateDone()
	case b := <-c.bus.Blobs():
		if err := checkBlob(b, c.n, c.bus.Run(), c.tokens); err != nil {
			return err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		switch b.Kind {
		case shard.KindExport:
			c.exports[b.Shard] = b.Data
		case shard.KindClient:
			c.client[b.Shard] = b.Data
		case shard.KindMarks:
			m, err := results.DecodeLedgerMarks(b.Data)
			if err != nil {
				return fmt.Errorf("shard %d: drain check %d: %w", b.Shard, b.Seq, err)
			}
			if c.marks[b.Seq] == nil {
				c.marks[b.Seq] = map[int]results.LedgerMarks{}
			}
			c.marks[b.Seq][b.Shard] = m
		}
	case m := <-c.bus.Msgs():
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.handle(ctx, m)
	}
	return nil
}

// doneGrace is how long after an agent's clean exit its done message may
// still arrive: the exit is seen at once, the message through the broker.
const doneGrace = 15 * time.Second

type cleanExit struct {
	at     time.Time
	output string
}

// lateDone fails on an agent that exited 0 without its done arriving
// within doneGrace.
func (c *coord) lateDone() error {
	for i, e := range c.cleanExit {
		if c.done[i] == nil && time.Since(e.at) > doneGrace {
			return shardFailed(i, "exited before sending its results", e.output)
		}
	}
	return nil
}

func shardFailed(i int, what, output string) error {
	// what may be an agent's own text: masked and bounded before it is
	// relayed (a 100 KB line holding a password is not printed whole).
	what = redact.Relayed(what, 0)
	if output = strings.TrimSpace(redact.Relayed(output, 0)); output != "" {
		lines := strings.Split(output, "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		what += "; its output ends:\n    " + strings.Join(lines, "\n    ")
	}
	return fmt.Errorf("shard %d failed: %s", i, what)
}

// handle takes one control message.
func (c *coord) handle(ctx context.Context, m shard.Msg) error {
	if !m.FromAgent() {
		return nil // our own
	}
	if m.Shard >= c.n {
		return fmt.Errorf("a message from shard %d of a run split over %d", m.Shard, c.n)
	}
	if c.tokens != nil && !m.SignedBy(c.tokens[m.Shard]) {
		return c.impostor(m)
	}
	switch m.Type {
	case shard.TypeHello:
		if prev, ok := c.hello[m.Shard]; ok && prev.Instance != m.Instance {
			return fmt.Errorf("two agents claim shard %d: %s and %s; refused (one was started twice, or an agent outside this run speaks on its control topic)",
				m.Shard, agentName(prev), agentName(m))
		}
		if m.Version != shard.ProtocolVersion {
			return fmt.Errorf("shard %d speaks control protocol %d, the coordinator %d: run the same sharebench version everywhere",
				m.Shard, m.Version, shard.ProtocolVersion)
		}
		if c.hash != "" && m.ScenarioHash != "" && m.ScenarioHash != c.hash {
			return fmt.Errorf("shard %d read another scenario file (sha256 %s, the coordinator's %s)", m.Shard, m.ScenarioHash, c.hash)
		}
		c.hello[m.Shard] = m
	case shard.TypePing:
		if c.clock == nil {
			return fmt.Errorf("shard %d pinged before its run was sent", m.Shard)
		}
		now := c.clock.Now()
		c.pings[m.Shard] = append(c.pings[m.Shard], pingSeen{seq: m.Seq, sendNs: m.SendNs, replyNs: now})
		return c.bus.Send(ctx, shard.Msg{Type: shard.TypePong, Shard: m.Shard, Seq: m.Seq, SendNs: m.SendNs, RemoteNs: now})
	case shard.TypeReady:
		if err := checkClock(m, c.pings[m.Shard]); err != nil {
			return shardFailed(m.Shard, err.Error(), "")
		}
		c.ready[m.Shard] = m
	case shard.TypeProgress:
		c.progress[m.Shard] = m.Progress
		if m.Progress != nil && m.Progress.Generation > c.gen.Load() {
			c.gen.Store(m.Progress.Generation)
		}
		if m.Progress != nil && len(m.Progress.Delivered) > 0 {
			// The delivery exchange: the shard's delivered words, checked
			// as its (signed) message, go to every other shard.
			return c.bus.Send(ctx, shard.Msg{Type: shard.TypeDelivered, Shard: shard.All, From: m.Shard, Delivered: m.Progress.Delivered})
		}
	case shard.TypeDone:
		if m.Progress == nil {
			m.Progress = &shard.Progress{}
		}
		c.done[m.Shard] = m.Progress
		c.progress[m.Shard] = m.Progress
	case shard.TypeReply:
		if c.replies[m.Reply.Seq] == nil {
			c.replies[m.Reply.Seq] = map[int]shard.Reply{}
		}
		c.replies[m.Reply.Seq][m.Shard] = *m.Reply
	case shard.TypeFailed:
		return shardFailed(m.Shard, m.Error, "")
	}
	return nil
}

// agentName is an agent as its hello names it.
func agentName(m shard.Msg) string {
	return fmt.Sprintf("pid %d on host %q (instance %s)", m.PID, m.Host, m.Instance)
}

// checkBlob refuses a results blob of run from a shard outside the n of
// the run, or, with tokens, one not signed by the token of the shard it
// names: a forged export or ledger marks would change the run's figures.
func checkBlob(b shard.Blob, n int, run string, tokens []string) error {
	if b.Shard >= n {
		return fmt.Errorf("results (%s) from shard %d of a run split over %d", b.Kind, b.Shard, n)
	}
	if tokens == nil || b.SignedBy(run, tokens[b.Shard]) {
		return nil
	}
	sender := "unsigned"
	if b.Mac != "" {
		sender = "signed with another token"
	}
	return fmt.Errorf("results (%s %d, %d bytes) claim to be shard %d's but are %s: refused (an agent writes as another shard, "+
		"or a process outside this run writes to its results topic)", b.Kind, b.Seq, len(b.Data), b.Shard, sender)
}

// impostor is the error for a message not signed with the token of the
// shard it names: it names the shard claimed, the sender as far as the
// message says, and the agent that did say hello as that shard.
func (c *coord) impostor(m shard.Msg) error {
	sender := "an unsigned message"
	if m.Mac != "" {
		sender = "a message signed with another token"
	}
	if m.Type == shard.TypeHello {
		sender += " from " + agentName(m)
	}
	genuine := "no agent has said hello as that shard yet"
	if h, ok := c.hello[m.Shard]; ok {
		genuine = "shard " + strconv.Itoa(m.Shard) + " is " + agentName(h)
	}
	return fmt.Errorf("a %s message claims to be shard %d but is not signed with the token the launcher gave shard %d: %s; %s. "+
		"Refused: an agent speaks as another shard, or a process outside this run writes to its control topic",
		m.Type, m.Shard, m.Shard, sender, genuine)
}

// pingSeen is one clock ping as the coordinator saw it: the agent's send
// time (its own clock) and the coordinator's clock when it replied.
type pingSeen struct {
	seq             int
	sendNs, replyNs int64
}

// clockSlackNs allows for the rounding of the agent's estimate.
const clockSlackNs = 1000

// checkClock refuses a ready whose clock offset no physical timing of
// the shard's pings allows. With θ the coordinator's clock minus the
// agent's: the reply to ping k came after its send, θ ≤ reply_k − send_k;
// ping k+1 was sent after the reply to ping k arrived, θ ≥ reply_k −
// send_{k+1}. The claimed offset ± uncertainty must meet that interval;
// the uncertainty is ≥ 0; the pings counted were sent, in order.
func checkClock(ready shard.Msg, pings []pingSeen) error {
	off, unc := ready.OffsetNs, ready.UncertaintyNs
	switch {
	case unc < 0:
		return fmt.Errorf("its clock offset %+d ns has a negative uncertainty (%d ns): a round trip shorter than zero", off, unc)
	case ready.Pings < 1 || ready.Pings > len(pings):
		return fmt.Errorf("its clock offset rests on %d pings; the coordinator answered %d", ready.Pings, len(pings))
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	for k, p := range pings {
		hi = min(hi, p.replyNs-p.sendNs)
		if k+1 < len(pings) {
			next := pings[k+1]
			if next.sendNs < p.sendNs || next.seq <= p.seq {
				return fmt.Errorf("its ping %d was sent at %d ns, before its ping %d (%d ns): its clock ran backwards, a reply before its send",
					next.seq, next.sendNs, p.seq, p.sendNs)
			}
			lo = max(lo, p.replyNs-next.sendNs)
		}
	}
	if lo > hi+clockSlackNs {
		return fmt.Errorf("its pings allow no clock offset (at least %d ns, at most %d ns): a reply before its send", lo, hi)
	}
	if off-unc > hi+clockSlackNs || off+unc < lo-clockSlackNs {
		bound := fmt.Sprintf("at most %d ns", hi)
		if lo > math.MinInt64 {
			bound = fmt.Sprintf("between %d and %d ns", lo, hi)
		}
		return fmt.Errorf("its clock offset %+d ns ± %d ns is outside what its %d round trips allow (%s)", off, unc, len(pings), bound)
	}
	return nil
}

// until steps until cond holds, or fails naming the shards lacking after
// timeout.
// record is the run's shards record.
func (c *coord) record() *runs.Shards {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := &runs.Shards{Count: c.n, Launcher: c.s.shards.Launcher.Name(), LimitMs: runs.ClockSkewLimitMs, MergeSec: c.mergeSec}
	for i := range c.n {
		rd, p := c.ready[i], c.done[i]
		st := runs.ShardStats{Shard: i, OffsetMs: float64(rd.OffsetNs) / 1e6, UncertaintyMs: float64(rd.UncertaintyNs) / 1e6,
			Pings: rd.Pings, Producers: producer.Indices(c.s.spec.Producers, i, c.n), Members: producer.Indices(c.s.spec.Members, i, c.n)}
		if p != nil {
			st.Acked, st.Completed, st.CPUSec, st.MaxRSSMiB = p.Counts.Acked, p.Counts.Completed, p.CPUSec, float64(p.MaxRSSBytes)/(1<<20)
		}
		out.MaxUncertaintyMs = max(out.MaxUncertaintyMs, st.UncertaintyMs)
		out.PerShard = append(out.PerShard, st)
	}
	sort.Slice(out.PerShard, func(a, b int) bool { return out.PerShard[a].Shard < out.PerShard[b].Shard })
	return out
}
