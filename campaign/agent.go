package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sharebench/sharebench/campaign/shard"
	"github.com/sharebench/sharebench/connection"
	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/destination"
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// AgentOptions are one agent's settings (sharebench agent): where the
// coordinator's control and results topics are and which shard it is. The
// run itself arrives over the control topic.
type AgentOptions struct {
	Bootstrap                  []string
	ControlTopic, ResultsTopic string
	Shard, Shards              int
	// Connection are the connection settings (TLS, SASL) of the agent's
	// clients; the zero value is plaintext.
	Connection connection.Settings
	// ScenarioHash is the sha256 of the agent's scenario file ("" without
	// one); the coordinator refuses an agent whose hash differs from its.
	ScenarioHash string
	Log          io.Writer
	// ClockSkew shifts the agent's raw clock, before the offset to the
	// coordinator is measured: for tests only (SHAREBENCH_AGENT_CLOCK_SKEW),
	// to check that the measured offset recovers it.
	ClockSkew time.Duration
	// Token is the shard's token from its launcher (shard.TokenEnv): every
	// message the agent sends is signed with it. "" sends unsigned (a
	// launcher that carries no tokens).
	Token string
	// DestinationDSN is the run's destination database (shard.DSNEnv from
	// its launcher); "" when the run has no destination: block.
	DestinationDSN string
	// tamper, in tests, rewrites every message before it is signed and
	// sent: an agent that lies (speaks as another shard, claims a clock
	// offset its pings do not allow).
	tamper func(*shard.Msg)
}

// Agent timeouts: each wait for the coordinator is bounded, so an agent
// whose coordinator vanished ends on its own.
const (
	agentRunTimeout   = 2 * time.Minute  // hello → run
	agentPongTimeout  = 10 * time.Second // one ping's reply
	agentStartTimeout = 5 * time.Minute  // ready → the producers' end, beyond the drain timeout (a backlog's fill)
	agentStopMargin   = 5 * time.Minute  // producers done → stop, beyond the drain timeout (formation, the drain)
	pingRounds        = 12
	progressEvery     = 500 * time.Millisecond
)

// Agent runs one shard of one sharded run and returns once its results are
// written to the results topic. On an error it sends failed with the
// message before returning it.
func Agent(ctx context.Context, o AgentOptions) (err error) {
	if o.Shards < 1 || o.Shard < 0 || o.Shard >= o.Shards {
		return fmt.Errorf("agent: shard %d of %d: expected 0 ≤ shard < shards", o.Shard, o.Shards)
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	connOpts, err := o.Connection.ClientOpts()
	if err != nil {
		return fmt.Errorf("agent: connection: %w", err)
	}
	bus, err := shard.NewBus(ctx, o.Bootstrap, o.ControlTopic, o.ResultsTopic, connOpts...)
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	defer bus.Close()
	if o.Token != "" {
		bus.SignWith(o.Token)
	}
	a := &agent{o: o, bus: bus, log: log, raw: results.NewClockOffset(int64(o.ClockSkew))}
	defer func() {
		if err != nil {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = a.send(sctx, shard.Msg{Type: shard.TypeFailed, Shard: o.Shard, Error: err.Error()})
		}
	}()
	return a.run(ctx)
}

// agent is one agent's run in progress.
type agent struct {
	o     AgentOptions
	bus   *shard.Bus
	log   io.Writer
	raw   *results.Clock // the agent's own clock (with ClockSkew)
	setup shard.Setup
	spec  scenarios.RunSpec
	conn  clientConn
	clock *results.Clock // corrected to the coordinator's
	rec   *results.Recorder
	sink  *destination.Sink // the run's table, created by the coordinator (nil: no destination)
}

// send signs (the bus does) and sends one of the agent's messages.
func (a *agent) send(ctx context.Context, m shard.Msg) error {
	if a.o.tamper != nil {
		a.o.tamper(&m)
	}
	return a.bus.Send(ctx, m)
}

// next waits for the next coordinator message for this shard.
func (a *agent) next(ctx context.Context, timeout time.Duration, what string) (shard.Msg, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return shard.Msg{}, ctx.Err()
		case err := <-a.bus.Errs():
			return shard.Msg{}, err
		case <-t.C:
			return shard.Msg{}, fmt.Errorf("agent: no %s from the coordinator within %v", what, timeout)
		case m := <-a.bus.Msgs():
			if !m.FromAgent() && m.For(a.o.Shard) {
				return m, nil
			}
		}
	}
}

func (a *agent) run(ctx context.Context) error {
	host, _ := os.Hostname()
	instance, err := shard.NewToken()
	if err != nil {
		return err
	}
	if err := a.send(ctx, shard.Msg{Type: shard.TypeHello, Shard: a.o.Shard, Version: shard.ProtocolVersion,
		ScenarioHash: a.o.ScenarioHash, PID: os.Getpid(), Host: host, Instance: instance[:16]}); err != nil {
		return err
	}
	m, err := a.next(ctx, agentRunTimeout, "run")
	if err != nil {
		return err
	}
	if m.Type != shard.TypeRun {
		return fmt.Errorf("agent: expected run from the coordinator, got %s", m.Type)
	}
	if err := a.prepare(*m.Setup); err != nil {
		return err
	}
	if err := a.attachDestination(ctx); err != nil {
		return err
	}
	if a.sink != nil {
		defer a.sink.Close()
	}
	fmt.Fprintf(a.log, "shard %d/%d: run %s on topic %s\n", a.o.Shard, a.o.Shards, a.setup.RunID, a.setup.Topic)
	offset, unc, pings, err := a.measureOffset(ctx)
	if err != nil {
		return err
	}
	a.clock = results.NewClockOffset(int64(a.o.ClockSkew) + offset)
	a.rec = results.NewRecorder(a.clock, a.setup.RunTag, results.NewLedger(a.setup.Producers, a.setup.PerProducer),
		results.NewSeries(a.setup.SeriesStartNs, a.setup.SeriesSeconds))
	fmt.Fprintf(a.log, "shard %d: clock offset %+v ± %v (%d pings)\n", a.o.Shard, time.Duration(offset), time.Duration(unc), pings)
	return a.serve(ctx, shard.Msg{Type: shard.TypeReady, Shard: a.o.Shard, OffsetNs: offset, UncertaintyNs: unc, Pings: pings})
}

// prepare reads the run's setup.
func (a *agent) prepare(s shard.Setup) error {
	a.setup = s
	if err := json.Unmarshal(s.Spec, &a.spec); err != nil {
		return fmt.Errorf("agent: run spec: %w", err)
	}
	if a.spec.ShardCount() != a.o.Shards {
		return fmt.Errorf("agent: the run is split over %d shards, this agent was started as one of %d", a.spec.ShardCount(), a.o.Shards)
	}
	var err error
	a.conn, err = connFrom(a.o.Connection, a.spec)
	return err
}

// attachDestination reaches the table the coordinator created for the
// run, with this shard's part of the connections.
func (a *agent) attachDestination(ctx context.Context) error {
	if a.setup.DestinationTable == "" {
		return nil
	}
	if a.spec.Destination == nil {
		return errors.New("agent: a destination table without a destination: block in the run's spec")
	}
	if a.o.DestinationDSN == "" {
		return fmt.Errorf("agent: the run writes to a destination, and this agent's environment has no %s", shard.DSNEnv)
	}
	cfg := sinkConfig(a.spec.Destination, a.o.DestinationDSN, a.setup.DestinationTable, a.setup.Topic)
	cfg.Connections = a.setup.DestinationConnections
	sink, err := destination.Attach(ctx, cfg)
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	a.sink = sink
	return nil
}

// measureOffset pings the coordinator pingRounds times and estimates the
// offset of its clock from the sample with the smallest round trip.
func (a *agent) measureOffset(ctx context.Context) (offset, unc int64, n int, err error) {
	samples := make([]results.OffsetSample, 0, pingRounds)
	for seq := 1; seq <= pingRounds; seq++ {
		send := a.raw.Now()
		if err := a.send(ctx, shard.Msg{Type: shard.TypePing, Shard: a.o.Shard, Seq: seq, SendNs: send}); err != nil {
			return 0, 0, 0, err
		}
		for {
			m, err := a.next(ctx, agentPongTimeout, "pong")
			if err != nil {
				return 0, 0, 0, err
			}
			if m.Type == shard.TypePong && m.Seq == seq && m.SendNs == send {
				samples = append(samples, results.OffsetSample{SendNs: send, RemoteNs: m.RemoteNs, RecvNs: a.raw.Now()})
				break
			}
		}
	}
	offset, unc, err = results.EstimateOffset(samples)
	return offset, unc, len(samples), err
}

// serve carries out the coordinator's commands on this shard's load (its
// producers and members, in this process) until stop: it reports ready,
// then progress every progressEvery, replies to every command, answers
// drain checks with its ledger marks, and on stop writes its results.
func (a *agent) serve(ctx context.Context, ready shard.Msg) error {
	sp := a.spec
	prods := producer.Indices(sp.Producers, a.o.Shard, a.o.Shards)
	members := producer.Indices(sp.Members, a.o.Shard, a.o.Shards)
	ccfg := consumerConfig(sp, a.o.Bootstrap, a.setup.Topic, a.setup.Group)
	ccfg.Conn, ccfg.TLS, ccfg.Connection = a.conn.noTLS, a.conn.tls, a.conn.conn
	ccfg.Members, ccfg.IDs, ccfg.OneOfSeveral = len(members), members, true
	if a.sink != nil {
		ccfg.Destination = func(ctx context.Context) (consumers.RecordWriter, error) { return a.sink.Writer(ctx) }
	}
	ld := newLocalLoad(ctx, ccfg, a.rec)
	defer ld.stopMembers()
	var prodDone atomic.Bool
	// The delivery exchange (results/ledgerelsewhere.go): a consumer
	// group's members on other shards re-read records this shard's
	// delivered, which their ledgers could not tell from first deliveries.
	exchange := sp.ConsumerType == vocab.ConsumerGroup && a.o.Shards > 1
	var sent results.DeliveredCursor
	if exchange {
		a.rec.Ledger.TrackDeliveredElsewhere()
	}
	progress := func() *shard.Progress {
		p := &shard.Progress{Counts: a.rec.Counts(), ProducersDone: prodDone.Load(), Producers: prods, Members: members,
			Live: ld.Members(), Generation: ld.generation()}
		if exchange {
			p.Delivered = results.EncodeDeliveredWords(a.rec.Ledger.DeliveredSince(&sent, shard.MaxDeliveredWords))
		}
		return p
	}
	if err := a.send(ctx, ready); err != nil {
		return err
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	// Until the producers run, the coordinator forms the group and fills a
	// backlog; once they end, it drains.
	wait := time.NewTimer(agentStartTimeout + sp.DrainTimeout)
	defer wait.Stop()
	prodc := make(chan error, 1)
	replies := make(chan shard.Reply, 16)
	var acts sync.WaitGroup
	defer acts.Wait()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-ld.exited():
			return consumersStopped(ctx, "during the run", err)
		case err := <-prodc:
			if err != nil {
				return fmt.Errorf("producers: %w", err)
			}
			prodDone.Store(true)
			wait.Reset(sp.DrainTimeout + agentStopMargin)
			if err := a.send(ctx, shard.Msg{Type: shard.TypeProgress, Shard: a.o.Shard, Progress: progress()}); err != nil {
				return err
			}
		case <-wait.C:
			return fmt.Errorf("agent: the coordinator went quiet: no stop within %v", sp.DrainTimeout+agentStopMargin)
		case r := <-replies:
			if err := a.send(ctx, shard.Msg{Type: shard.TypeReply, Shard: a.o.Shard, Reply: &r}); err != nil {
				return err
			}
		case <-tick.C:
			if err := a.send(ctx, shard.Msg{Type: shard.TypeProgress, Shard: a.o.Shard, Progress: progress()}); err != nil {
				return err
			}
		case m := <-a.bus.Msgs():
			if m.FromAgent() || !m.For(a.o.Shard) {
				continue
			}
			switch m.Type {
			case shard.TypeMembers:
				r := shard.Reply{Seq: m.Cmd.Seq}
				if err := ld.startMembers(ctx, m.Cmd.Hold); err != nil {
					r.Error = err.Error()
				}
				replies <- r
			case shard.TypeRelease:
				at, _ := ld.release(ctx)
				replies <- shard.Reply{Seq: m.Cmd.Seq, AtNs: at}
			case shard.TypeProduce:
				a.produce(ctx, ld, *m.Cmd, prods, prodc)
				replies <- shard.Reply{Seq: m.Cmd.Seq}
			case shard.TypeAct:
				acts.Add(1)
				go func() { // a leave waits for its members: the loop goes on meanwhile
					defer acts.Done()
					r := act(ctx, ld, *m.Cmd)
					select {
					case replies <- r:
					case <-ctx.Done():
					}
				}()
			case shard.TypeDelivered:
				if m.From == a.o.Shard || !exchange {
					continue
				}
				words, err := results.DecodeDeliveredWords(m.Delivered)
				if err != nil {
					return fmt.Errorf("agent: shard %d's delivered words: %w", m.From, err)
				}
				if n := a.rec.Ledger.MarkDeliveredElsewhere(words); n > 0 {
					return fmt.Errorf("agent: shard %d's delivered words: %d of %d outside the run's ledger", m.From, n, len(words))
				}
			case shard.TypeDrainCheck:
				if err := a.bus.SendBlob(ctx, a.o.Shard, shard.KindMarks, m.Seq, a.rec.Ledger.Marks().Encode()); err != nil {
					return err
				}
			case shard.TypeStop:
				return a.finish(ctx, ld, progress())
			default:
				return fmt.Errorf("agent: unexpected %s from the coordinator during the run", m.Type)
			}
		}
	}
}

// produce starts this shard's producers as the coordinator's produce
// command says: the window on its recorder, the schedule's start, the
// flush and fill bounds. A shard without producers is done at once.
func (a *agent) produce(ctx context.Context, ld *localLoad, cmd shard.Command, prods []int, done chan<- error) {
	w := results.Window{Start: cmd.WindowStartNs, End: cmd.WindowEndNs}
	a.rec.SetWindow(w)
	if len(prods) == 0 {
		done <- nil
		return
	}
	sz, err := modeSizing(a.spec)
	if err != nil {
		done <- err
		return
	}
	pcfg := producerConfig(a.spec, a.o.Bootstrap, a.setup.Topic)
	pcfg.Conn, pcfg.Start, pcfg.Only, pcfg.Backlog = a.conn.opts, cmd.StartNs, prods, sz.Backlog
	pcfg.FlushTimeout = time.Duration(cmd.FlushNs)
	go func() {
		pctx, cancel := ctx, context.CancelFunc(func() {})
		if cmd.UntilNs != 0 {
			pctx, cancel = context.WithTimeout(ctx, time.Duration(cmd.UntilNs-a.clock.Now()))
		}
		defer cancel()
		err := ld.produce(pctx, pcfg, w)
		if pctx.Err() != nil && ctx.Err() == nil {
			err = nil // the fill's bound: the coordinator names how much was acknowledged
		}
		done <- err
	}()
}

// act carries out one act command on this shard's members.
func act(ctx context.Context, ld *localLoad, cmd shard.Command) shard.Reply {
	r := shard.Reply{Seq: cmd.Seq}
	var err error
	switch cmd.Action {
	case shard.ActJoin:
		r.IDs, err = ld.joinIDs(cmd.IDs)
	case shard.ActLeave:
		r.IDs, err = ld.Leave(ctx, cmd.N)
	case shard.ActCrash:
		r.IDs, err = ld.Crash(ctx, cmd.N)
	case shard.ActSlow:
		ld.SlowDown(cmd.Factor, time.Duration(cmd.DurationNs))
	}
	if err != nil {
		r.Error = err.Error()
	}
	return r
}

// finish stops the members, exports the recorder and writes it to the
// results topic, then reports done with its final figures.
func (a *agent) finish(ctx context.Context, ld *localLoad, p *shard.Progress) error {
	cerrs, _ := ld.stop(ctx, nil)
	for _, err := range cerrs {
		p.Errors = append(p.Errors, fmt.Sprintf("shard %d: %v", a.o.Shard, err))
	}
	csData, err := ld.clientStats().Encode()
	if err != nil {
		return err
	}
	if err := a.bus.SendBlob(ctx, a.o.Shard, shard.KindClient, 0, csData); err != nil {
		return err
	}
	p.Counts = a.rec.Counts()
	exp, err := a.rec.Export()
	if err != nil {
		return fmt.Errorf("agent: export: %w", err)
	}
	exp.Shard = a.o.Shard
	data, err := shard.EncodeExport(exp)
	if err != nil {
		return fmt.Errorf("agent: encode results: %w", err)
	}
	if err := a.bus.SendBlob(ctx, a.o.Shard, shard.KindExport, 0, data); err != nil {
		return err
	}
	p.CPUSec, p.MaxRSSBytes = selfUsage()
	fmt.Fprintf(a.log, "shard %d: done: %d acked, %d completed, %d bytes of results\n", a.o.Shard, p.Counts.Acked, p.Counts.Completed, len(data))
	return a.send(ctx, shard.Msg{Type: shard.TypeDone, Shard: a.o.Shard, Progress: p})
}
