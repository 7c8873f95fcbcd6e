package infra

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
	"time"
)

// The process provider's fault injection (Faults). Each broker JVM leads its
// own process group, so signals go to the group: the JVM and anything it
// forked. A broker started again runs the same command as at cluster start
// (startJVM): same data directory, server.properties, ports and JMX
// exporter port, its output appended to the same log; it keeps the
// parent-death signal and its own process group, so Stop and a harness
// killed hard still end it.
//
// Brokers on loopback share the host's network: there is no link of their
// own to cut, so DisconnectBroker and ReconnectBroker are unsupported here
// (the container provider has them).

var _ Faults = (*processCluster)(nil)

// KillBroker sends SIGKILL to the broker's process group and returns once
// the JVM has been reaped. A paused broker can be killed.
func (c *processCluster) KillBroker(ctx context.Context, node int) error {
	c.faultMu.Lock()
	defer c.faultMu.Unlock()
	b, err := c.faultTarget(node, "kill", brokerRunning, brokerPaused)
	if err != nil {
		return err
	}
	return c.kill(ctx, b)
}

// kill SIGKILLs b's JVM and waits until it has been reaped.
func (c *processCluster) kill(ctx context.Context, b *broker) error {
	c.mu.Lock()
	// Marked before the signal: Stop must not report this exit as a crash.
	b.state, b.exitReported = brokerKilled, true
	p := b.proc
	err := p.signal(syscall.SIGKILL)
	c.mu.Unlock()
	if err != nil {
		return fmt.Errorf("broker %d: kill: %w", b.addr.ID, err)
	}
	ctx, cancel := context.WithTimeout(ctx, killWait)
	defer cancel()
	select {
	case <-p.done:
		progress(c.spec.Log, "broker %d: killed (pid %d)", b.addr.ID, p.pid())
		return nil
	case <-ctx.Done():
		return fmt.Errorf("broker %d: pid %d not reaped after SIGKILL: %w", b.addr.ID, p.pid(), context.Cause(ctx))
	}
}

// StartBroker starts a killed broker again (same data directory,
// properties, ports, agent port; log appended) and returns once it serves
// clients (waitServing on that broker). If one of its ports was taken while
// it was down, it fails with an error naming the port: the cluster's
// addresses are fixed, so the broker cannot move.
func (c *processCluster) StartBroker(ctx context.Context, node int) error {
	c.faultMu.Lock()
	defer c.faultMu.Unlock()
	b, err := c.faultTarget(node, "start", brokerKilled)
	if err != nil {
		return err
	}
	return c.start(ctx, b)
}

func (c *processCluster) start(ctx context.Context, b *broker) error {
	if err := c.portsFree(b); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.spec.StartTimeout,
		fmt.Errorf("broker %d: not serving within the start timeout (%v)", b.addr.ID, c.spec.StartTimeout))
	defer cancel()
	began := time.Now()
	c.mu.Lock()
	if c.stopping {
		c.mu.Unlock()
		return fmt.Errorf("broker %d: start: the cluster is stopping", b.addr.ID)
	}
	p, err := c.startJVM(b.addr, b.index, b.jars)
	if err == nil {
		b.proc, b.state, b.exitReported = p, brokerRunning, false
	}
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := c.brokersServing(ctx, []*broker{b}); err != nil {
		if exit, ok := errors.AsType[*brokerExitError](err); ok {
			c.mu.Lock()
			b.state, b.exitReported = brokerKilled, true // it told why; it may be started again
			c.mu.Unlock()
			if exit.PortClash {
				return fmt.Errorf("broker %d: start again: a port of this broker (client %d, controller %d, metrics %d) was taken by another process while it was down; free it and start the broker again: %w",
					b.addr.ID, b.addr.BrokerPort, b.addr.ControllerPort, c.metricsPorts[b.index], err)
			}
		}
		return err
	}
	progress(c.spec.Log, "broker %d: serving again in %v (pid %d)", b.addr.ID, time.Since(began).Round(10*time.Millisecond), p.pid())
	return nil
}

// portsFree checks that b's client, controller and metrics ports can be
// bound, so that a clash is reported by port rather than by a dead JVM.
func (c *processCluster) portsFree(b *broker) error {
	ports := []struct {
		what string
		port int
	}{{"client", b.addr.BrokerPort}, {"controller", b.addr.ControllerPort}, {"metrics", c.metricsPorts[b.index]}}
	for _, p := range ports {
		ln, err := net.Listen("tcp", net.JoinHostPort(loopback, strconv.Itoa(p.port)))
		if err != nil {
			return fmt.Errorf("broker %d: start again: its %s port %d is taken by another process since the broker stopped (%w); the cluster's addresses are fixed, so the broker cannot move: free the port, or stop the cluster", b.addr.ID, p.what, p.port, err)
		}
		ln.Close()
	}
	return nil
}

// RestartBroker stops the broker gracefully (SIGTERM: controlled shutdown),
// waits up to 20 s or until ctx ends, kills it if it is still running, and
// starts it again as StartBroker does. A paused broker is resumed first.
func (c *processCluster) RestartBroker(ctx context.Context, node int) error {
	_, err := c.RestartBrokerOn(ctx, node, "", 0)
	return err
}

var _ Rolling = (*processCluster)(nil)

// BrokerVersions returns the Kafka release each broker's JVM runs, in node
// order (1..Nodes).
func (c *processCluster) BrokerVersions() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, len(c.brokers))
	for i, b := range c.brokers {
		out[i] = b.version
	}
	return out
}

// RestartBrokerOn is RestartBroker with the broker started again on the jars
// of Kafka version ("": the ones it runs), and SIGKILL after grace (0:
// stopGrace). The jars are resolved (from the cache, or with Maven the first
// time) before the broker is stopped, so a release that cannot be fetched
// leaves the broker running.
func (c *processCluster) RestartBrokerOn(ctx context.Context, node int, version string, grace time.Duration) (RestartTimes, error) {
	if grace <= 0 {
		grace = stopGrace
	}
	var t RestartTimes
	jars := ""
	if version != "" {
		var err error
		if jars, err = ResolveJars(ctx, version, c.spec.Log); err != nil {
			return t, fmt.Errorf("broker %d: restart on Kafka %s: %w", node, version, err)
		}
	}
	c.faultMu.Lock()
	defer c.faultMu.Unlock()
	b, err := c.faultTarget(node, "restart", brokerRunning, brokerPaused)
	if err != nil {
		return t, err
	}
	c.mu.Lock()
	p := b.proc
	if b.state == brokerPaused {
		err = p.signal(syscall.SIGCONT)
	}
	if err == nil {
		err = p.signal(syscall.SIGTERM)
		// From the signal on it is on its way out: not a crash.
		b.state, b.exitReported = brokerKilled, true
	}
	c.mu.Unlock()
	if err != nil {
		return t, fmt.Errorf("broker %d: restart: %w", b.addr.ID, err)
	}
	began := time.Now()
	graceCtx, cancel := context.WithTimeout(ctx, grace)
	defer cancel()
	select {
	case <-p.done:
		progress(c.spec.Log, "broker %d: shut down in %v", b.addr.ID, time.Since(began).Round(10*time.Millisecond))
	case <-graceCtx.Done():
		progress(c.spec.Log, "broker %d: still running %v after SIGTERM; killing pid %d", b.addr.ID, time.Since(began).Round(time.Second), p.pid())
		t.Killed = true
		if err := c.kill(context.WithoutCancel(ctx), b); err != nil {
			return t, err
		}
	}
	t.Shutdown = time.Since(began)
	if ctx.Err() != nil {
		return t, fmt.Errorf("broker %d: restart: stopped, not started again: %w", b.addr.ID, context.Cause(ctx))
	}
	if jars != "" {
		c.mu.Lock()
		if jars != b.jars {
			progress(c.spec.Log, "broker %d: starting on Kafka %s (was %s)", b.addr.ID, version, b.version)
		}
		b.jars, b.version = jars, version
		c.mu.Unlock()
	}
	began = time.Now()
	err = c.start(ctx, b)
	t.Start = time.Since(began)
	return t, err
}

// PauseBroker freezes the broker's process group (SIGSTOP): it keeps its
// sockets but answers nothing, as a JVM stuck in a long GC pause would.
func (c *processCluster) PauseBroker(_ context.Context, node int) error {
	return c.signalState(node, "pause", syscall.SIGSTOP, brokerRunning, brokerPaused)
}

// ResumeBroker thaws a paused broker (SIGCONT).
func (c *processCluster) ResumeBroker(_ context.Context, node int) error {
	return c.signalState(node, "resume", syscall.SIGCONT, brokerPaused, brokerRunning)
}

// signalState sends sig to a broker in state from and records state to.
func (c *processCluster) signalState(node int, action string, sig syscall.Signal, from, to brokerState) error {
	c.faultMu.Lock()
	defer c.faultMu.Unlock()
	b, err := c.faultTarget(node, action, from)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := b.proc.signal(sig); err != nil {
		return fmt.Errorf("broker %d: %s: %w", node, action, err)
	}
	b.state = to
	progress(c.spec.Log, "broker %d: %s (pid %d, %v)", node, to, b.proc.pid(), sig)
	return nil
}

// DisconnectBroker is not supported: brokers on loopback have no network
// link of their own to cut.
func (c *processCluster) DisconnectBroker(context.Context, int) error {
	return errNoNetworkFault("disconnect")
}

// ReconnectBroker is not supported (see DisconnectBroker).
func (c *processCluster) ReconnectBroker(context.Context, int) error {
	return errNoNetworkFault("reconnect")
}

func errNoNetworkFault(action string) error {
	return fmt.Errorf("process provider: %s: brokers run on the host's loopback interface with no network of their own to cut (use the container provider for network faults): %w", action, ErrFaultUnsupported)
}

// faultTarget returns broker node if the cluster is not stopping and the
// broker is in one of the states the action applies to.
func (c *processCluster) faultTarget(node int, action string, states ...brokerState) (*broker, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping {
		return nil, fmt.Errorf("broker %d: %s: the cluster is stopping", node, action)
	}
	if node < 1 || node > len(c.brokers) {
		return nil, fmt.Errorf("broker %d: %s: no such node; the cluster has nodes 1..%d", node, action, len(c.brokers))
	}
	b := c.brokers[node-1]
	if b.state == brokerRunning && b.proc.exited() {
		// It died on its own: it can only be started again.
		b.state = brokerKilled
	}
	for _, s := range states {
		if b.state == s {
			return b, nil
		}
	}
	return nil, fmt.Errorf("broker %d: %s: the broker is %v", node, action, b.state)
}
