package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sharebench/sharebench/campaign/shard"
	"github.com/sharebench/sharebench/connection"
	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/internal/retry"
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
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
	agentStartTimeout = 5 * time.Minute  // ready → start (group formation)
	agentStopMargin   = 5 * time.Minute  // producers done → stop, beyond the drain timeout
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
	fmt.Fprintf(a.log, "shard %d/%d: run %s on topic %s\n", a.o.Shard, a.o.Shards, a.setup.RunID, a.setup.Topic)
	offset, unc, pings, err := a.measureOffset(ctx)
	if err != nil {
		return err
	}
	a.clock = results.NewClockOffset(int64(a.o.ClockSkew) + offset)
	a.rec = results.NewRecorder(a.clock, a.setup.RunTag, results.NewLedger(a.setup.Producers, a.setup.PerProducer),
		results.NewSeries(a.setup.SeriesStartNs, a.setup.SeriesSeconds))
	fmt.Fprintf(a.log, "shard %d: clock offset %+v ± %v (%d pings)\n", a.o.Shard, time.Duration(offset), time.Duration(unc), pings)
	return a.load(ctx, shard.Msg{Type: shard.TypeReady, Shard: a.o.Shard, OffsetNs: offset, UncertaintyNs: unc, Pings: pings})
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

// load joins this shard's members (held), reports ready, waits for the
// start, runs its producers, reports progress, answers drain checks, and
// on stop writes its results.
func (a *agent) load(ctx context.Context, ready shard.Msg) error {
	sp := a.spec
	prods := producer.Indices(sp.Producers, a.o.Shard, a.o.Shards)
	members := producer.Indices(sp.Members, a.o.Shard, a.o.Shards)
	cctx, stopConsumers := context.WithCancel(ctx)
	defer stopConsumers()
	errc := make(chan error, 1)
	var fl *consumers.Fleet
	if len(members) > 0 {
		ccfg := consumerConfig(sp, a.o.Bootstrap, a.setup.Topic, a.setup.Group)
		ccfg.Conn, ccfg.TLS, ccfg.Connection = a.conn.noTLS, a.conn.tls, a.conn.conn
		ccfg.Members, ccfg.IDs, ccfg.Hold = len(members), members, true
		var err error
		if fl, err = consumers.Start(cctx, ccfg, a.rec); err != nil {
			return err
		}
		go func() { errc <- fl.Wait() }()
	}
	progress := func(done bool) *shard.Progress {
		c := a.rec.Counts()
		return &shard.Progress{Acked: c.Acked, Delivered: c.Delivered, Completed: c.Completed,
			ProducersDone: done, Producers: prods, Members: members, Generation: generation(fl)}
	}
	if err := a.send(ctx, ready); err != nil {
		return err
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	var start shard.Msg
	deadline := time.NewTimer(agentStartTimeout)
	defer deadline.Stop()
	for start.Type != shard.TypeStart {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errc:
			return consumersStopped(ctx, "before the start", err)
		case <-deadline.C:
			return fmt.Errorf("agent: no start from the coordinator within %v", agentStartTimeout)
		case <-tick.C:
			if err := a.send(ctx, shard.Msg{Type: shard.TypeProgress, Shard: a.o.Shard, Progress: progress(false)}); err != nil {
				return err
			}
		case m := <-a.bus.Msgs():
			if !m.FromAgent() && m.For(a.o.Shard) {
				if m.Type != shard.TypeStart {
					return fmt.Errorf("agent: expected start from the coordinator, got %s", m.Type)
				}
				start = m
			}
		}
	}
	a.rec.SetWindow(results.Window{Start: start.WindowStartNs, End: start.WindowEndNs})
	// Release the members when the coordinator's single-process run would:
	// 100 ms before the schedule starts.
	if !retry.Sleep(ctx, time.Duration(start.StartNs-int64(100*time.Millisecond)-a.clock.Now())) {
		return ctx.Err()
	}
	if fl != nil {
		fl.Release()
	}
	pcfg := producerConfig(sp, a.o.Bootstrap, a.setup.Topic)
	pcfg.Conn, pcfg.Start, pcfg.Only = a.conn.opts, start.StartNs, prods
	prodc := make(chan error, 1)
	if len(prods) > 0 {
		go func() { prodc <- producer.Run(ctx, pcfg, a.rec) }()
	} else {
		prodc <- nil
	}
	prodDone := false
	var stopBy <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errc:
			errc <- err
			return consumersStopped(ctx, "during the run", err)
		case err := <-prodc:
			if err != nil {
				return fmt.Errorf("producers: %w", err)
			}
			prodDone = true
			t := time.NewTimer(sp.DrainTimeout + agentStopMargin)
			defer t.Stop()
			stopBy = t.C
			if err := a.send(ctx, shard.Msg{Type: shard.TypeProgress, Shard: a.o.Shard, Progress: progress(true)}); err != nil {
				return err
			}
		case <-stopBy:
			return fmt.Errorf("agent: no stop from the coordinator within %v of the producers' end", sp.DrainTimeout+agentStopMargin)
		case <-tick.C:
			if err := a.send(ctx, shard.Msg{Type: shard.TypeProgress, Shard: a.o.Shard, Progress: progress(prodDone)}); err != nil {
				return err
			}
		case m := <-a.bus.Msgs():
			if m.FromAgent() || !m.For(a.o.Shard) {
				continue
			}
			switch m.Type {
			case shard.TypeDrainCheck:
				if err := a.bus.SendBlob(ctx, a.o.Shard, shard.KindMarks, m.Seq, a.rec.Ledger.Marks().Encode()); err != nil {
					return err
				}
			case shard.TypeStop:
				return a.finish(ctx, stopConsumers, errc, fl, progress(prodDone))
			default:
				return fmt.Errorf("agent: unexpected %s from the coordinator during the run", m.Type)
			}
		}
	}
}

func generation(fl *consumers.Fleet) int32 {
	if fl == nil {
		return 0
	}
	return fl.Generation()
}

// finish stops the members, exports the recorder and writes it to the
// results topic, then reports done with its final figures.
func (a *agent) finish(ctx context.Context, stopConsumers context.CancelFunc, errc chan error, fl *consumers.Fleet, p *shard.Progress) error {
	stopConsumers()
	cs := consumers.NewClientStats()
	if fl != nil {
		if err := waitConsumers(errc, nil); err != nil {
			p.Errors = append(p.Errors, fmt.Sprintf("shard %d: %v", a.o.Shard, err))
		}
		cs = fl.ClientStats()
	}
	csData, err := cs.Encode()
	if err != nil {
		return err
	}
	if err := a.bus.SendBlob(ctx, a.o.Shard, shard.KindClient, 0, csData); err != nil {
		return err
	}
	c := a.rec.Counts()
	p.Acked, p.Delivered, p.Completed = c.Acked, c.Delivered, c.Completed
	exp, err := a.rec.Export()
	if err != nil {
		return fmt.Errorf("agent: export: %w", err)
	}
	exp.Shard = a.o.Shard
	data, err := exp.Encode()
	if err != nil {
		return fmt.Errorf("agent: encode results: %w", err)
	}
	if err := a.bus.SendBlob(ctx, a.o.Shard, shard.KindExport, 0, data); err != nil {
		return err
	}
	p.CPUSec, p.MaxRSSBytes = selfUsage()
	fmt.Fprintf(a.log, "shard %d: done: %d acked, %d completed, %d bytes of results\n", a.o.Shard, p.Acked, p.Completed, len(data))
	return a.send(ctx, shard.Msg{Type: shard.TypeDone, Shard: a.o.Shard, Progress: p})
}
