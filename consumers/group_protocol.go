package consumers

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/vocab"
)

// GroupProtocol is a consumer group's rebalance protocol (vocab's type).
type GroupProtocol = vocab.GroupProtocol

const (
	ProtocolClassic  = vocab.ProtocolClassic
	ProtocolConsumer = vocab.ProtocolConsumer
)

// Classic assignors (Config.Assignor) and KIP-848 remote assignors
// (Config.RemoteAssignor).
const (
	AssignorCooperativeSticky = "cooperative-sticky"
	AssignorSticky            = "sticky"
	AssignorRange             = "range"
	AssignorRoundRobin        = "roundrobin"
	RemoteUniform             = "uniform"
	RemoteRange               = "range"
)

// GroupKnobs are a consumer group's protocol settings. The zero value is
// the classic protocol with cooperative-sticky, dynamic members and commits
// after processing: what the harness ran before these knobs existed.
type GroupKnobs struct {
	Protocol       GroupProtocol // "" = classic
	RemoteAssignor string        // ProtocolConsumer: uniform ("" too) or range
	Assignor       string        // ProtocolClassic: cooperative-sticky ("" too), sticky, range, roundrobin
	// Static gives each member the group.instance.id "sharebench-<id>".
	Static bool
	// AutoCommit commits with franz-go's autocommit every
	// AutoCommitInterval instead of the processed prefix after every
	// batch; a revocation and the member's close still commit the
	// processed prefix (franz-go's default revoke does the same).
	// franz-go's default autocommit commits the polls before the latest
	// one: a poll promotes the previous poll's offsets to committable. A
	// blocking member has processed those, so autocommit never commits a
	// record before it is processed: a crash loses nothing and costs
	// duplicates (what the member completed since the last autocommit).
	AutoCommit         bool
	AutoCommitInterval time.Duration
	// RebalanceTimeout is rebalance.timeout.ms (0: franz-go's 60s).
	RebalanceTimeout time.Duration
}

func (k GroupKnobs) validate() error {
	switch k.Protocol {
	case "", ProtocolClassic:
		switch k.Assignor {
		case "", AssignorCooperativeSticky, AssignorSticky, AssignorRange, AssignorRoundRobin:
		default:
			return fmt.Errorf("consumers: assignor: expected cooperative-sticky, sticky, range or roundrobin, got %q", k.Assignor)
		}
	case ProtocolConsumer:
		if k.RemoteAssignor != "" && k.RemoteAssignor != RemoteUniform && k.RemoteAssignor != RemoteRange {
			return fmt.Errorf("consumers: remote_assignor: expected uniform or range, got %q", k.RemoteAssignor)
		}
		if k.Assignor != "" && k.Assignor != AssignorCooperativeSticky {
			return fmt.Errorf("consumers: assignor %q is a classic assignor; group protocol consumer uses remote_assignor", k.Assignor)
		}
	default:
		return fmt.Errorf("consumers: group_protocol: expected classic or consumer, got %q", k.Protocol)
	}
	if k.AutoCommit && k.AutoCommitInterval <= 0 {
		return fmt.Errorf("consumers: auto_commit_interval: must be > 0 with commit auto, got %v", k.AutoCommitInterval)
	}
	return nil
}

// balancer is the franz-go balancer the knobs ask for. Under KIP-848
// franz-go sends the broker the remote assignor its first balancer stands
// for: StickyBalancer → uniform, RangeBalancer → range.
func (k GroupKnobs) balancer() kgo.GroupBalancer {
	if k.Protocol == ProtocolConsumer {
		if k.RemoteAssignor == RemoteRange {
			return kgo.RangeBalancer()
		}
		return kgo.StickyBalancer()
	}
	switch k.Assignor {
	case AssignorSticky:
		return kgo.StickyBalancer()
	case AssignorRange:
		return kgo.RangeBalancer()
	case AssignorRoundRobin:
		return kgo.RoundRobinBalancer()
	}
	return kgo.CooperativeStickyBalancer()
}

// protocolOptions are the consumer group's protocol, balancer, membership
// and commit options.
func (g *consumerGroupMember) protocolOptions() []kgo.Opt {
	k := g.c.Groups
	opts := []kgo.Opt{kgo.Balancers(k.balancer())}
	if k.Protocol == ProtocolConsumer {
		opts = append(opts, kgo.ServerSideBalancer())
	}
	if k.Static {
		opts = append(opts, kgo.InstanceID(fmt.Sprintf("sharebench-%d", g.id)))
	}
	if k.RebalanceTimeout > 0 {
		opts = append(opts, kgo.RebalanceTimeout(k.RebalanceTimeout))
	}
	if !k.AutoCommit {
		return append(opts, kgo.DisableAutoCommit())
	}
	return append(opts, kgo.AutoCommitInterval(k.AutoCommitInterval),
		kgo.AutoCommitCallback(func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
			g.countCommitErrors(g.pollCtx, resp, err)
		}))
}

// autoCommit reports whether the member leaves commits to franz-go's
// autocommit.
func (g *consumerGroupMember) autoCommit() bool { return g.c.Groups.AutoCommit }

// revokedAuto (commit auto, blocking style) commits the processed prefix of
// the revoked partitions before they go, as franz-go's default revoke
// commits what was polled: a revocation waits for a poll boundary
// (BlockRebalanceOnPoll), so everything polled was processed.
func (g *consumerGroupMember) revokedAuto(ctx context.Context, cl *kgo.Client, revoked map[string][]int32) {
	if !g.crashed.Load() {
		points := g.offsets.latestPoints()
		mine := map[int32]commitPoint{}
		for _, p := range revoked[g.c.Topic] {
			if cp, ok := points[p]; ok {
				mine[p] = cp
			}
		}
		g.commitPoints(context.WithoutCancel(ctx), mine, true)
	}
	g.lost(ctx, cl, revoked)
}
