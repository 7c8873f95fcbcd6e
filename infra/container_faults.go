package infra

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/sharebench/sharebench/internal/retry"
)

// The container cluster implements Faults with the Docker engine's own
// operations on one broker's container.
var _ Faults = (*containerCluster)(nil)

func (c *containerCluster) node(id int) (*ctrNode, error) {
	if id < 1 || id > len(c.nodes) || c.nodes[id-1].containerID == "" {
		return nil, fmt.Errorf("broker %d: no such broker (nodes 1..%d)", id, len(c.nodes))
	}
	return c.nodes[id-1], nil
}

// KillBroker kills the broker's container (docker kill, SIGKILL) and
// returns once it has stopped.
func (c *containerCluster) KillBroker(ctx context.Context, id int) error {
	n, err := c.node(id)
	if err != nil {
		return err
	}
	c.setDown(n, true)
	if _, err := c.dc.ContainerKill(ctx, n.containerID, client.ContainerKillOptions{Signal: "SIGKILL"}); err != nil {
		return fmt.Errorf("broker %d: docker kill: %w", id, err)
	}
	return c.waitState(ctx, n, "stopped", func(st ctrState) bool { return !st.Running })
}

// StartBroker starts the broker's container again: the start script finds
// its storage formatted and the broker runs on its own data, configuration
// and ports. It returns once the cluster serves clients with every broker.
func (c *containerCluster) StartBroker(ctx context.Context, id int) error {
	n, err := c.node(id)
	if err != nil {
		return err
	}
	if _, err := c.dc.ContainerStart(ctx, n.containerID, client.ContainerStartOptions{}); err != nil {
		return fmt.Errorf("broker %d: docker start: %w", id, err)
	}
	c.setDown(n, false)
	return c.waitServes(ctx, id)
}

// RestartBroker stops the broker's container gracefully (docker stop:
// SIGTERM, a controlled shutdown of up to 20 s, then SIGKILL) and starts it
// again, returning once the cluster serves with every broker.
func (c *containerCluster) RestartBroker(ctx context.Context, id int) error {
	n, err := c.node(id)
	if err != nil {
		return err
	}
	c.setDown(n, true)
	secs := int(stopGrace.Seconds())
	if _, err := c.dc.ContainerStop(ctx, n.containerID, client.ContainerStopOptions{Timeout: &secs}); err != nil {
		return fmt.Errorf("broker %d: docker stop: %w", id, err)
	}
	return c.StartBroker(ctx, id)
}

// PauseBroker freezes the broker's container (docker pause: the cgroup
// freezer) and returns once Docker reports it paused.
func (c *containerCluster) PauseBroker(ctx context.Context, id int) error {
	n, err := c.node(id)
	if err != nil {
		return err
	}
	if _, err := c.dc.ContainerPause(ctx, n.containerID, client.ContainerPauseOptions{}); err != nil {
		return fmt.Errorf("broker %d: docker pause: %w", id, err)
	}
	return c.waitState(ctx, n, "paused", func(st ctrState) bool { return st.Paused })
}

// ResumeBroker thaws a paused broker (docker unpause).
func (c *containerCluster) ResumeBroker(ctx context.Context, id int) error {
	n, err := c.node(id)
	if err != nil {
		return err
	}
	if _, err := c.dc.ContainerUnpause(ctx, n.containerID, client.ContainerUnpauseOptions{}); err != nil {
		return fmt.Errorf("broker %d: docker unpause: %w", id, err)
	}
	return c.waitState(ctx, n, "running", func(st ctrState) bool { return st.Running && !st.Paused })
}

// DisconnectBroker disconnects the broker's container from the cluster
// network: the other brokers cannot reach it, and neither can clients (its
// published ports go through that network).
func (c *containerCluster) DisconnectBroker(ctx context.Context, id int) error {
	n, err := c.node(id)
	if err != nil {
		return err
	}
	if _, err := c.dc.NetworkDisconnect(ctx, c.network, client.NetworkDisconnectOptions{Container: n.containerID, Force: true}); err != nil {
		return fmt.Errorf("broker %d: docker network disconnect: %w", id, err)
	}
	return c.waitState(ctx, n, "off network "+c.network, func(st ctrState) bool { return !slices.Contains(st.Networks, c.network) })
}

// ReconnectBroker connects the broker's container to the cluster network
// again under its alias, and returns once the cluster serves with every
// broker.
func (c *containerCluster) ReconnectBroker(ctx context.Context, id int) error {
	n, err := c.node(id)
	if err != nil {
		return err
	}
	_, err = c.dc.NetworkConnect(ctx, c.network, client.NetworkConnectOptions{
		Container:      n.containerID,
		EndpointConfig: &network.EndpointSettings{Aliases: []string{c.alias(n)}},
	})
	if err != nil {
		return fmt.Errorf("broker %d: docker network connect: %w", id, err)
	}
	return c.waitServes(ctx, id)
}

func (c *containerCluster) setDown(n *ctrNode, down bool) {
	c.mu.Lock()
	n.down = down
	c.mu.Unlock()
}

// waitServes waits until the cluster serves clients with all its brokers,
// the restored one included (waitServing: metadata lists every broker, a
// topic replicated on all of them takes a record).
func (c *containerCluster) waitServes(ctx context.Context, id int) error {
	if err := waitServing(ctx, c.Bootstrap(), allNodes(len(c.nodes)), c.spec.KafkaVersion, nil); err != nil {
		return fmt.Errorf("broker %d: %w", id, err)
	}
	return nil
}

// waitState polls the container every 100 ms until ok holds or ctx ends.
func (c *containerCluster) waitState(ctx context.Context, n *ctrNode, what string, ok func(ctrState) bool) error {
	var st ctrState
	err := retry.Do(ctx, retry.Policy{Wait: 100 * time.Millisecond}, func(ctx context.Context) error {
		var err error
		if st, err = c.state(ctx, n); err != nil {
			return err
		}
		if !ok(st) {
			return errNotYet
		}
		return nil
	})
	if g, isGiveUp := errors.AsType[*retry.GiveUpError](err); isGiveUp {
		last := g.Last
		if last == errNotYet {
			last = nil
		}
		return fmt.Errorf("broker %d: not %s: %w (last: %+v, %v)", n.id, what, g.Cause, st, last)
	}
	return err
}
