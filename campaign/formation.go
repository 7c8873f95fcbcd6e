package campaign

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/vocab"
)

// defaultConsumerHeartbeat is franz-go's consumer-group heartbeat interval.
const defaultConsumerHeartbeat = 3 * time.Second

// formation is how the group formed before its members were released.
type formation struct {
	sec float64 // consumers started → formed
	// rounds is the assignment rounds the group went through: the
	// consumer group's generation, the share group's epoch.
	rounds int
	// perPartition is, per partition, the members it is assigned to.
	perPartition []int
	// brokers is, per member, its leader brokers and the busy ones (share
	// members fetching one broker at a time; fetchwait.go).
	brokers    []runs.MemberBrokers
	assignment string // for the run log
}

// groupSnapshot is one look at the group's members and their partitions.
type groupSnapshot struct {
	state   string
	epoch   int32              // share group epoch (0 for consumer groups)
	members map[string][]int32 // member id → partitions of the run's topic
}

// formedAfter reports whether a snapshot shows a formed group of want
// members on partitions partitions: consumer group: stable, every
// partition assigned, and min(members, partitions) members owning
// partitions; share group: every member has an assignment and every
// partition is assigned.
func (g groupSnapshot) formed(share bool, want, partitions int) bool {
	if len(g.members) < want {
		return false
	}
	if !share && g.state != "Stable" {
		return false
	}
	owners := 0
	covered := map[int32]bool{}
	for _, ps := range g.members {
		if len(ps) > 0 {
			owners++
		} else if share {
			return false
		}
		for _, p := range ps {
			covered[p] = true
		}
	}
	if len(covered) < partitions {
		return false
	}
	return share || owners == min(len(g.members), partitions)
}

// key is the snapshot's assignment in a canonical form: two snapshots with
// the same key assign the same partitions to the same members.
func (g groupSnapshot) key() string {
	parts := make([]string, 0, len(g.members))
	for id, ps := range g.members {
		ps = slices.Clone(ps)
		slices.Sort(ps)
		parts = append(parts, fmt.Sprintf("%s:%v", id, ps))
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}

// perPartition counts, per partition, the members it is assigned to.
func (g groupSnapshot) perPartition(partitions int) []int {
	out := make([]int, partitions)
	for _, ps := range g.members {
		for _, p := range ps {
			if int(p) < partitions {
				out[p]++
			}
		}
	}
	return out
}

// stableFor is how long an assignment must stay unchanged before the group
// counts as formed: one heartbeat interval, the time a member may take to
// learn of a new round.
func stableFor(share bool, spec interface {
	ShareHeartbeatInterval() time.Duration
}, session time.Duration) time.Duration {
	if share {
		return spec.ShareHeartbeatInterval()
	}
	if session > 0 {
		return session / 3
	}
	return defaultConsumerHeartbeat
}

// formGroup waits until the held fleet's group is formed (groupSnapshot.
// formed) with an assignment unchanged for one heartbeat interval, and
// reports how it formed. The members consume nothing meanwhile
// (consumers.Config.Hold); the caller releases them. It reads the group
// from the broker's side only, so the members may run in other processes
// (a sharded run's agents: consumerErr then carries their failures);
// generation is the consumer-group generation the members saw.
func (s *runSetup) formGroup(ctx context.Context, consumerErr chan error, generation func() int32) (formation, error) {
	fmt.Fprintf(s.log, "  %s: forming a group of %d %s members (consumption held)\n", s.id, s.spec.Members, s.spec.ConsumerType)
	start := time.Now()
	hold := stableFor(s.share, s.spec, sessionTimeout(s.spec))
	var last groupSnapshot
	var lastKey string
	var since time.Time
	err := poll(ctx, groupReadyTimeout, func() (bool, error) {
		select {
		case err := <-consumerErr:
			return false, consumersStopped(ctx, "before the group formed", err)
		default:
		}
		g, err := s.adm.snapshot(ctx, s.group, s.topic, s.share, s.spec.GroupProtocol == vocab.ProtocolConsumer)
		if err != nil || !g.formed(s.share, s.spec.Members, s.spec.Partitions) {
			lastKey = ""
			return false, nil
		}
		if k := g.key(); k != lastKey {
			lastKey, since, last = k, time.Now(), g
			return false, nil
		}
		return time.Since(since) >= hold, nil
	}, fmt.Sprintf("group %q: %d members never formed a stable assignment", s.group, s.spec.Members))
	if err != nil {
		return formation{}, err
	}
	f := formation{sec: time.Since(start).Seconds(), perPartition: last.perPartition(s.spec.Partitions),
		rounds: int(generation())}
	if s.share {
		f.rounds = int(last.epoch)
	}
	f.brokers = s.memberBrokers(ctx, last)
	f.assignment = s.adm.assignment(ctx, s.group, s.topic, s.share, s.spec.GroupProtocol == vocab.ProtocolConsumer)
	s.groupInfo = s.adm.groupProtocol(ctx, s.group, s.spec) // the protocol the broker runs, read back
	assigned := "assignment " + f.assignment
	if len(assigned) > 48 { // a console line stays within 100 characters: the members per partition
		assigned = fmt.Sprintf("members per partition %v", f.perPartition)
	}
	fmt.Fprintf(s.log, "  %s: group formed in %.1fs (%d rounds, stable for %v); %s\n",
		s.id, f.sec, f.rounds, hold, assigned)
	return f, nil
}
