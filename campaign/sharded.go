package campaign

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
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
	readyTimeout   = time.Minute     // run sent → every ready (pings, members joined)
	startLead      = 500 * time.Millisecond
	resultsTimeout = 2 * time.Minute // stop → every shard's results and done
	exitTimeout    = 30 * time.Second
	drainCheckWait = 30 * time.Second // drain_check → every shard's marks
	// drainCheckEvery is the pause between drain checks: the single run's
	// drain poll interval, so drain_s has the same resolution.
	drainCheckEvery = 250 * time.Millisecond
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
	if spec.Client == consumers.ClientLibrdkafka {
		needs = "python3 (with venv) to install confluent-kafka for the librdkafka runner"
	}
	return fmt.Errorf("shards %d with client %s: agents launched by %s have no %s (the agent image carries the sharebench "+
		"binary only); use --distribute local or client franz-go", spec.ShardCount(), spec.Client, launcher, needs)
}

// sharded runs spec split over spec.Shards agents (docs/distributed-runs.md):
// the coordinator sets up the topic and group as for a single run, starts
// the agents through the launcher, forms the group from the broker's side,
// announces the start, follows the progress, checks the drain on the union
// of the agents' ledgers, collects every shard's results and absorbs them
// into its own recorder, from which the record is made as for a single run.
func (rn runner) sharded(ctx context.Context, spec scenarios.RunSpec, runID string) (*Measured, error) {
	if rn.shards.Launcher == nil {
		return nil, fmt.Errorf("shards %d: no agent launcher (sharebench run --distribute local or k8s)", spec.ShardCount())
	}
	s, err := newRunSetup(rn, spec, runID)
	if err != nil {
		return nil, err
	}
	defer s.adm.close()
	if s.conn.conn.Secured() && rn.shards.ConnectionFile == "" {
		return nil, fmt.Errorf("shards %d: the cluster's connection (%s) must reach the agents as a file: give it with --connection FILE",
			spec.ShardCount(), s.conn.conn.Describe())
	}
	if err := runnerAgents(spec, rn.shards.Launcher.Name()); err != nil {
		return nil, err
	}
	// Local agents share this host's cache: build the Java runner once,
	// here, rather than in every agent within its ready bound (checkClients
	// installed the librdkafka runner before the campaign started).
	if spec.Client == consumers.ClientJava {
		if _, err := consumers.JavaRunnerDir(ctx, spec.KafkaVersion, s.log); err != nil {
			return nil, err
		}
	}
	s.progress.phase(PhaseSetup, groupReadyTimeout, nil)
	if err := s.createTopicAndGroup(ctx); err != nil {
		return nil, err
	}
	cleanup := context.WithoutCancel(ctx)
	defer s.dropTopic(cleanup, s.topic)
	defer s.deleteDeadLetterTopic(cleanup)
	control, resultsTopic := s.topic+"-control", s.topic+"-results"
	for _, t := range []string{control, resultsTopic} {
		if err := s.adm.createTopic(ctx, t, 1, min(s.cl.Nodes(), 3)); err != nil {
			return nil, err
		}
		defer s.dropTopic(cleanup, t)
	}
	bus, err := shard.NewBus(ctx, s.cl.Bootstrap(), control, resultsTopic, s.conn.opts...)
	if err != nil {
		return nil, err
	}
	defer bus.Close()
	n := spec.ShardCount()
	var tokens []string // one per shard, when the launcher hands each agent its own
	if tc, ok := rn.shards.Launcher.(shard.TokenCarrier); ok && tc.CarriesTokens() {
		for range n {
			t, err := shard.NewToken()
			if err != nil {
				return nil, err
			}
			tokens = append(tokens, t)
		}
	}
	fmt.Fprintf(s.log, "  %s: starting %d agents (%s)\n", runID, n, rn.shards.Launcher.Name())
	agents, err := rn.shards.Launcher.Start(ctx, shard.AgentArgs{Bootstrap: s.cl.Bootstrap(), ControlTopic: control,
		ResultsTopic: resultsTopic, Shards: n, ConnectionFile: rn.shards.ConnectionFile,
		ScenarioFile: rn.shards.ScenarioFile, Campaign: runID, Tokens: tokens})
	if err != nil {
		return nil, fmt.Errorf("start agents: %w", err)
	}
	defer func() {
		sctx, cancel := context.WithTimeout(cleanup, time.Minute)
		defer cancel()
		if err := agents.Stop(sctx); err != nil {
			fmt.Fprintf(s.log, "  %s: stop agents: %v\n", runID, err)
		}
	}()
	c := &coord{s: s, bus: bus, agents: agents, n: n, hash: rn.shards.scenarioHash, tokens: tokens, pings: map[int][]pingSeen{},
		hello: map[int]shard.Msg{}, ready: map[int]shard.Msg{}, progress: map[int]*shard.Progress{},
		done: map[int]*shard.Progress{}, exited: map[int]bool{}, marks: map[int]map[int]results.LedgerMarks{},
		exports: map[int][]byte{}, client: map[int][]byte{}, exitc: agents.Exited(), cleanExit: map[int]cleanExit{},
		tick: time.NewTicker(time.Second)}
	defer c.tick.Stop()
	return c.run(ctx)
}

// coord is the coordinator's side of one sharded run.
type coord struct {
	s      *runSetup
	bus    *shard.Bus
	agents shard.Agents
	n      int
	hash   string
	clock  *results.Clock // the recording's, once made (pongs read it)
	// tokens are the shards' tokens (nil: the launcher carries none, and
	// agents are told apart by their hello only); pings are the pings
	// each shard sent, with the coordinator's reply time, against which
	// its ready's clock offset is checked (checkClock).
	tokens []string
	pings  map[int][]pingSeen

	hello, ready map[int]shard.Msg
	progress     map[int]*shard.Progress
	done         map[int]*shard.Progress
	exited       map[int]bool
	marks        map[int]map[int]results.LedgerMarks // drain check seq → shard → marks
	exports      map[int][]byte
	client       map[int][]byte    // client statistics, by shard
	exitc        <-chan shard.Exit // nil once closed
	cleanExit    map[int]cleanExit // exited 0, done not seen yet
	tick         *time.Ticker
	generation   atomic.Int32 // the highest consumer-group generation an agent reported
	// mergeSec is collect's time to decode and absorb every shard's
	// results (run.json shards.merge_s).
	mergeSec float64
}

// step waits for one event (a message, a blob, an agent's exit) and
// handles it; it fails on an agent's failure or exit before its results.
func (c *coord) step(ctx context.Context, wait <-chan time.Time) (timedOut bool, err error) {
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-wait:
		return true, nil
	case err := <-c.bus.Errs():
		return false, err
	case e, ok := <-c.exitc:
		if !ok {
			c.exitc = nil // every agent ended: lateDone watches those without results
			return false, nil
		}
		c.exited[e.Shard] = true
		if e.Err != nil {
			return false, shardFailed(e.Shard, e.Err.Error(), e.Output)
		}
		if c.done[e.Shard] == nil {
			// Its done may still be on its way through the control topic.
			c.cleanExit[e.Shard] = cleanExit{at: time.Now(), output: e.Output}
		}
	case <-c.tick.C:
		return false, c.lateDone()
	case b := <-c.bus.Blobs():
		if err := checkBlob(b, c.n, c.bus.Run(), c.tokens); err != nil {
			return false, err
		}
		switch b.Kind {
		case shard.KindExport:
			c.exports[b.Shard] = b.Data
		case shard.KindClient:
			c.client[b.Shard] = b.Data
		case shard.KindMarks:
			m, err := results.DecodeLedgerMarks(b.Data)
			if err != nil {
				return false, fmt.Errorf("shard %d: drain check %d: %w", b.Shard, b.Seq, err)
			}
			if c.marks[b.Seq] == nil {
				c.marks[b.Seq] = map[int]results.LedgerMarks{}
			}
			c.marks[b.Seq][b.Shard] = m
		}
	case m := <-c.bus.Msgs():
		return false, c.handle(ctx, m)
	}
	return false, nil
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
		if m.Progress != nil && m.Progress.Generation > c.generation.Load() {
			c.generation.Store(m.Progress.Generation)
		}
	case shard.TypeDone:
		if m.Progress == nil {
			m.Progress = &shard.Progress{}
		}
		c.done[m.Shard] = m.Progress
		c.progress[m.Shard] = m.Progress
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
func (c *coord) until(ctx context.Context, timeout time.Duration, what string, have func(i int) bool) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		var lacking []int
		for i := range c.n {
			if !have(i) {
				lacking = append(lacking, i)
			}
		}
		if len(lacking) == 0 {
			return nil
		}
		timedOut, err := c.step(ctx, t.C)
		if err != nil {
			return err
		}
		if timedOut {
			return fmt.Errorf("shard(s) %v missed %s within %v", lacking, what, timeout)
		}
	}
}

func (c *coord) run(ctx context.Context) (*Measured, error) {
	s := c.s
	if err := c.until(ctx, helloTimeout, "hello", func(i int) bool { _, ok := c.hello[i]; return ok }); err != nil {
		return nil, err
	}
	rc, pcfg, err := newRecording(s)
	if err != nil {
		return nil, err
	}
	c.clock = rc.clock
	rc.procs.Start(ctx)
	defer rc.procs.Stop()
	specJSON, err := json.Marshal(s.spec)
	if err != nil {
		return nil, err
	}
	perProducer, seconds, err := runSizes(s.spec)
	if err != nil {
		return nil, err
	}
	setup := &shard.Setup{Spec: specJSON, RunID: s.id, Topic: s.topic, Group: s.group, RunTag: rc.rec.Run,
		SeriesStartNs: rc.series.Start(), SeriesSeconds: seconds, Producers: s.spec.Producers, PerProducer: perProducer}
	for i := range c.n {
		if err := c.bus.Send(ctx, shard.Msg{Type: shard.TypeRun, Shard: i, Setup: setup}); err != nil {
			return nil, err
		}
	}
	if err := c.until(ctx, readyTimeout, "ready", func(i int) bool { _, ok := c.ready[i]; return ok }); err != nil {
		return nil, err
	}
	r := &run{setup: s, rc: rc, fleet: &fleet{errc: make(chan error, 1), merged: consumers.NewClientStats()}}
	if r.times.form, err = c.formGroup(ctx); err != nil {
		return nil, err
	}
	start := rc.clock.Now() + int64(startLead)
	openWindowAt(ctx, s, rc, &pcfg, start)
	defer rc.scraper.Stop()
	defer rc.lag.Stop()
	if err := c.bus.Send(ctx, shard.Msg{Type: shard.TypeStart, Shard: shard.All, StartNs: start,
		WindowStartNs: rc.window.Start, WindowEndNs: rc.window.End}); err != nil {
		return nil, err
	}
	produceFor := time.Duration(start-rc.clock.Now()) + s.spec.Warmup + s.spec.Duration + time.Minute // + flush
	if err := c.until(ctx, produceFor, "the end of its producers", func(i int) bool {
		p := c.progress[i]
		return p != nil && p.ProducersDone
	}); err != nil {
		return nil, err
	}
	if err := c.drain(ctx, r); err != nil {
		return nil, err
	}
	if err := c.collect(ctx, r); err != nil {
		return nil, err
	}
	rc.lag.Stop()
	rc.scraper.Stop()
	rc.procs.Stop()
	for i := range c.n {
		r.fleet.errs = append(r.fleet.errs, c.done[i].Errors...)
	}
	r.reconcileDeadLetters(ctx) // deadletter.go
	r.checkUndelivered(ctx)     // undelivered.go: lost or still deliverable
	m := r.measured(c.record())
	fmt.Fprintf(s.log, "  %s: sharded over %d agents (%s); largest clock uncertainty ±%.1f ms\n",
		s.id, c.n, s.shardsLauncher(), m.Record.Shards.MaxUncertaintyMs)
	return m, nil
}

func (s *runSetup) shardsLauncher() string { return s.shards.Launcher.Name() }

// formGroup waits for the agents' members to form the group, read from
// the broker's side, while it keeps answering the control topic.
func (c *coord) formGroup(ctx context.Context) (formation, error) {
	fctx, stop := context.WithCancel(ctx)
	errc := make(chan error, 1)
	pumped := make(chan struct{})
	go func() {
		defer close(pumped)
		for {
			if _, err := c.step(fctx, nil); err != nil {
				if fctx.Err() == nil {
					errc <- err
				}
				return
			}
		}
	}()
	f, err := c.s.formGroup(ctx, errc, c.generation.Load)
	stop()
	<-pumped
	return f, err
}

// drain ends when the union of the agents' ledgers shows every acknowledged
// record finished (a drain check every drainCheckEvery), or the drain
// timeout.
func (c *coord) drain(ctx context.Context, r *run) error {
	s := r.setup
	s.progress.phase(PhaseDrain, s.spec.DrainTimeout, r.rc.rec)
	fmt.Fprintf(s.log, "  %s: producers done; draining (timeout %v)\n", s.id, s.spec.DrainTimeout)
	began := time.Now()
	deadline := time.NewTimer(s.spec.DrainTimeout)
	defer deadline.Stop()
	for seq := 1; ; seq++ {
		if err := c.bus.Send(ctx, shard.Msg{Type: shard.TypeDrainCheck, Shard: shard.All, Seq: seq}); err != nil {
			return err
		}
		if err := c.until(ctx, drainCheckWait, fmt.Sprintf("drain check %d", seq), func(i int) bool {
			_, ok := c.marks[seq][i]
			return ok
		}); err != nil {
			return err
		}
		all := make([]results.LedgerMarks, 0, c.n)
		for i := range c.n {
			all = append(all, c.marks[seq][i])
		}
		delete(c.marks, seq)
		_, unfinished, err := results.Unfinished(all...)
		if err != nil {
			return err
		}
		if unfinished == 0 {
			break
		}
		wait := time.NewTimer(drainCheckEvery)
		timedOut := false
		for !timedOut {
			var err error
			select {
			case <-deadline.C:
				r.fleet.drainErr = errDrainTimeout
				wait.Stop()
				r.times.drain = time.Since(began).Seconds()
				return nil
			default:
			}
			if timedOut, err = c.step(ctx, wait.C); err != nil {
				wait.Stop()
				return err
			}
		}
	}
	r.times.drain = time.Since(began).Seconds()
	return nil
}

// collect stops the agents' load, reads every shard's results and absorbs
// them into the coordinator's recorder.
func (c *coord) collect(ctx context.Context, r *run) error {
	rc := r.rc
	if err := c.bus.Send(ctx, shard.Msg{Type: shard.TypeStop, Shard: shard.All}); err != nil {
		return err
	}
	if err := c.until(ctx, resultsTimeout, "its results", func(i int) bool {
		_, ok := c.exports[i]
		_, cok := c.client[i]
		return ok && cok && c.done[i] != nil
	}); err != nil {
		return err
	}
	if err := c.until(ctx, exitTimeout, "its exit after its results", func(i int) bool { return c.exited[i] }); err != nil {
		return err
	}
	began := time.Now()
	defer func() { c.mergeSec = time.Since(began).Seconds() }()
	for i := range c.n {
		e, err := results.DecodeShardExport(c.exports[i])
		if err != nil {
			return fmt.Errorf("shard %d: results: %w", i, err)
		}
		if e.Shard != i {
			return fmt.Errorf("shard %d: results labelled shard %d", i, e.Shard)
		}
		if err := rc.rec.Absorb(e); err != nil {
			return fmt.Errorf("shard %d: merge results: %w", i, err)
		}
		delete(c.exports, i)
		cs, err := consumers.DecodeClientStats(c.client[i])
		if err != nil {
			return fmt.Errorf("shard %d: %w", i, err)
		}
		r.fleet.merged.Merge(cs)
	}
	return nil
}

// record is the run's shards record.
func (c *coord) record() *runs.Shards {
	out := &runs.Shards{Count: c.n, Launcher: c.s.shardsLauncher(), LimitMs: runs.ClockSkewLimitMs, MergeSec: c.mergeSec}
	for i := range c.n {
		rd, p := c.ready[i], c.done[i]
		st := runs.ShardStats{Shard: i, OffsetMs: float64(rd.OffsetNs) / 1e6, UncertaintyMs: float64(rd.UncertaintyNs) / 1e6,
			Pings: rd.Pings, Producers: producer.Indices(c.s.spec.Producers, i, c.n), Members: producer.Indices(c.s.spec.Members, i, c.n)}
		if p != nil {
			st.Acked, st.Completed, st.CPUSec, st.MaxRSSMiB = p.Acked, p.Completed, p.CPUSec, float64(p.MaxRSSBytes)/(1<<20)
		}
		out.MaxUncertaintyMs = max(out.MaxUncertaintyMs, st.UncertaintyMs)
		out.PerShard = append(out.PerShard, st)
	}
	sort.Slice(out.PerShard, func(a, b int) bool { return out.PerShard[a].Shard < out.PerShard[b].Shard })
	return out
}
