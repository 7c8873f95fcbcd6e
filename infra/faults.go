package infra

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Faults is implemented by clusters whose brokers can be disturbed during a
// run (fault injection). Brokers are named by their Kafka node id (1..Nodes,
// the broker.id / node.id every provider assigns in node order). Every
// method returns once the action has taken effect: Kill once the process or
// container is gone, Start and Restart once the broker serves clients
// again, Pause once it is frozen, Disconnect once it is off the network.
// A provider without the mechanism returns an error wrapping
// ErrFaultUnsupported.
type Faults interface {
	// KillBroker stops the broker at once (SIGKILL / docker kill): no
	// controlled shutdown, no flush.
	KillBroker(ctx context.Context, node int) error
	// StartBroker starts a killed broker again on its own data directory,
	// configuration and ports, and waits until it serves.
	StartBroker(ctx context.Context, node int) error
	// RestartBroker stops the broker gracefully (SIGTERM: controlled
	// shutdown) and starts it again.
	RestartBroker(ctx context.Context, node int) error
	// PauseBroker freezes the broker (SIGSTOP / docker pause);
	// ResumeBroker thaws it.
	PauseBroker(ctx context.Context, node int) error
	ResumeBroker(ctx context.Context, node int) error
	// DisconnectBroker cuts the broker off the network (clients and the
	// other brokers); ReconnectBroker restores it.
	DisconnectBroker(ctx context.Context, node int) error
	ReconnectBroker(ctx context.Context, node int) error
}

// Rolling is implemented by clusters that can restart a broker on another
// Kafka release (the process provider: another version's jars on the same
// data directory and configuration), and say which release each broker
// runs. A rolling restart needs Faults only; a rolling upgrade needs this.
type Rolling interface {
	// BrokerVersions is the release each broker runs, in node order.
	BrokerVersions() []string
	// RestartBrokerOn stops the broker gracefully (SIGTERM: controlled
	// shutdown; killed when it has not exited after grace, 0: the
	// provider's stop grace) and starts it again on version ("": the
	// release it runs), returning once it serves clients. The data
	// directory, configuration and ports stay; metadata.version is not
	// changed.
	RestartBrokerOn(ctx context.Context, node int, version string, grace time.Duration) (RestartTimes, error)
}

// RestartTimes is how one restart went: the time from SIGTERM until the
// old JVM was gone (Killed: the stop grace passed and it was SIGKILLed),
// and from the new JVM's start until it served clients.
type RestartTimes struct {
	Shutdown, Start time.Duration
	Killed          bool
}

// RollingOf returns the cluster's Rolling, or an error naming the provider
// when it cannot restart brokers on another release.
func RollingOf(c Cluster) (Rolling, error) {
	if r, ok := c.(Rolling); ok {
		return r, nil
	}
	return nil, fmt.Errorf("provider %q cannot restart a broker on another Kafka release (only the process provider can; "+
		"the container provider would need a broker image per release, which it does not build): %w", c.Provider(), ErrFaultUnsupported)
}

// ErrFaultUnsupported is wrapped by Faults methods a provider cannot do.
var ErrFaultUnsupported = errors.New("fault not supported by this provider")

// FaultsOf returns the cluster's fault injector, or an error naming the
// provider when it has none (kfake, external).
func FaultsOf(c Cluster) (Faults, error) {
	if f, ok := c.(Faults); ok {
		return f, nil
	}
	return nil, fmt.Errorf("provider %q cannot inject broker faults: %w", c.Provider(), ErrFaultUnsupported)
}
