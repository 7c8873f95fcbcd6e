package campaign

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/internal/retry"
)

// admin wraps the Kafka admin calls a run needs.
type admin struct {
	cl  *kgo.Client
	adm *kadm.Client
}

func newAdmin(brokers []string, conn ...kgo.Opt) (*admin, error) {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...)}, conn...)...)
	if err != nil {
		return nil, fmt.Errorf("admin client: %w", err)
	}
	return &admin{cl: cl, adm: kadm.NewClient(cl)}, nil
}

func (a *admin) close() { a.cl.Close() }

// topicConfigs are the topic settings of every topic the harness creates
// (run.json topic_config). message.timestamp.type LogAppendTime makes a
// fetched record's timestamp the broker's log-append time, so
// latency.queue_ms (handed to a worker − log-append time) is measured
// from the broker's append, as docs/explanation/measurement.md defines it, not from
// the producer's CreateTime.
var topicConfigs = map[string]string{"message.timestamp.type": "LogAppendTime"}

// createTopic creates a topic with topicConfigs and waits until every
// partition has a leader.
func (a *admin) createTopic(ctx context.Context, topic string, partitions, rf int) error {
	cfg := map[string]*string{}
	for k, v := range topicConfigs {
		cfg[k] = kmsg.StringPtr(v)
	}
	resp, err := a.adm.CreateTopic(ctx, int32(partitions), int16(rf), cfg, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		return fmt.Errorf("topic %q: create: %w", topic, explainDenied(err, "CREATE", "topic", topic))
	}
	return poll(ctx, 30*time.Second, func() (bool, error) {
		md, err := a.adm.Metadata(ctx, topic)
		if err != nil {
			return false, nil
		}
		t, ok := md.Topics[topic]
		if !ok || t.Err != nil || len(t.Partitions) != partitions {
			return false, nil
		}
		for _, p := range t.Partitions {
			if p.Leader < 0 || p.Err != nil {
				return false, nil
			}
		}
		return true, nil
	}, fmt.Sprintf("topic %q: partitions never got leaders", topic))
}

// deleteTopic deletes topic, trying again for up to topicDeleteTimeout
// while the broker answers with an error; a topic that is already gone
// counts as deleted.
func (a *admin) deleteTopic(ctx context.Context, topic string) error {
	ctx, cancel := context.WithTimeout(ctx, topicDeleteTimeout)
	defer cancel()
	var last error
	for {
		resp, err := a.adm.DeleteTopics(ctx, topic)
		if err == nil {
			err = resp[topic].Err
		}
		if err == nil || errors.Is(err, kerr.UnknownTopicOrPartition) {
			return nil
		}
		last = err
		if !retry.Sleep(ctx, time.Second) {
			return fmt.Errorf("delete topic %s: %w", topic, last)
		}
	}
}

// topicDeleteTimeout bounds deleteTopic.
const topicDeleteTimeout = 30 * time.Second

// dropTopic deletes one of the run's topics and says so in the log when it
// could not: the topic is then left on the cluster, named for deletion by
// hand.
func (s *runSetup) dropTopic(ctx context.Context, topic string) {
	if err := s.adm.deleteTopic(ctx, topic); err != nil {
		fmt.Fprintf(s.log, "  %s: warning: %v; it is left on the cluster (delete it by hand)\n", s.id, err)
	}
}

// setGroupConfig sets dynamic group-level configs (resource type GROUP),
// e.g. share.auto.offset.reset, which franz-go has no typed call for.
func (a *admin) setGroupConfig(ctx context.Context, group string, kv map[string]string) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = group
	for k, v := range kv {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name = k
		c.Value = kmsg.StringPtr(v)
		c.Op = kmsg.IncrementalAlterConfigOpSet
		res.Configs = append(res.Configs, c)
	}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, a.cl)
	if err != nil {
		return fmt.Errorf("group %q: set configs: %w", group, err)
	}
	for _, r := range resp.Resources {
		if r.ErrorCode != 0 && isDenied(kerr.ErrorForCode(r.ErrorCode)) {
			return fmt.Errorf("group %q: set configs: %w", group, explainDenied(kerr.ErrorForCode(r.ErrorCode), "ALTER_CONFIGS", "group", group))
		}
		if r.ErrorCode != 0 {
			msg := ""
			if r.ErrorMessage != nil {
				msg = *r.ErrorMessage
			}
			return fmt.Errorf("group %q: set configs: error code %d %s", group, r.ErrorCode, msg)
		}
	}
	return nil
}

// poll calls f every 200ms until it is done, fails, ctx ends or timeout.
func poll(ctx context.Context, timeout time.Duration, f func() (bool, error), what string) error {
	errNotDone := errors.New(what)
	err := retry.Do(ctx, retry.Policy{Wait: 200 * time.Millisecond, Timeout: timeout}, func(context.Context) error {
		done, err := f()
		if err != nil {
			return retry.Permanent(err)
		}
		if !done {
			return errNotDone
		}
		return nil
	})
	if errors.Is(err, retry.ErrTimeout) {
		return fmt.Errorf("%s (waited %v)", what, timeout)
	}
	if _, ok := errors.AsType[*retry.GiveUpError](err); ok {
		return ctx.Err()
	}
	return err
}

// sortedPartitions lists a member's assigned partitions in order.
func sortedPartitions[V any](assigned map[int32]V) []int32 {
	ps := slices.Collect(maps.Keys(assigned))
	slices.Sort(ps)
	return ps
}

// assignment describes which partitions each member holds, e.g.
// "member sharebench-0: [0 1]; member sharebench-1: [2]", for the run log.
func (a *admin) assignment(ctx context.Context, group, topic string, share, kip848 bool) string {
	var parts []string
	if share {
		d, err := a.adm.DescribeShareGroups(ctx, group)
		if err != nil {
			return err.Error()
		}
		for _, m := range d[group].Members {
			parts = append(parts, fmt.Sprintf("%s: %v", m.ClientID, sortedPartitions(m.Assignment[topic])))
		}
	} else if kip848 {
		// DescribeGroups does not describe KIP-848 groups.
		d, err := a.adm.DescribeConsumerGroups(ctx, group)
		if err != nil {
			return err.Error()
		}
		for _, m := range d[group].Members {
			parts = append(parts, fmt.Sprintf("%s: %v", m.ClientID, sortedPartitions(m.Assignment[topic])))
		}
	} else {
		d, err := a.adm.DescribeGroups(ctx, group)
		if err != nil {
			return err.Error()
		}
		for _, m := range d[group].Members {
			if c, ok := m.Assigned.AsConsumer(); ok {
				for _, t := range c.Topics {
					parts = append(parts, fmt.Sprintf("%s: %v", m.ClientID, t.Partitions))
				}
			}
		}
	}
	return joinAssignment(parts)
}

// maxAssignmentShown bounds the members the formation line lists: a group
// of 1,500 members printed a 60 KB line (issue 27).
const maxAssignmentShown = 24

// joinAssignment sorts the members' assignments and joins the first
// maxAssignmentShown of them, saying how many more there are.
func joinAssignment(parts []string) string {
	sort.Strings(parts)
	if n := len(parts); n > maxAssignmentShown {
		parts = append(parts[:maxAssignmentShown:maxAssignmentShown], fmt.Sprintf("and %d more members", n-maxAssignmentShown))
	}
	return strings.Join(parts, "; ")
}

// snapshot describes the group's members and their partitions of topic.
func (a *admin) snapshot(ctx context.Context, group, topic string, share, kip848 bool) (groupSnapshot, error) {
	g := groupSnapshot{members: map[string][]int32{}}
	if kip848 {
		return a.consumerProtocolSnapshot(ctx, group, topic)
	}
	if share {
		d, err := a.adm.DescribeShareGroups(ctx, group)
		if err != nil {
			return g, err
		}
		sg := d[group]
		if sg.Err != nil {
			return g, sg.Err
		}
		g.state, g.epoch = sg.GroupState, sg.GroupEpoch
		for _, m := range sg.Members {
			var ps []int32
			for p := range m.Assignment[topic] {
				ps = append(ps, p)
			}
			g.members[m.MemberID] = ps
		}
		return g, nil
	}
	d, err := a.adm.DescribeGroups(ctx, group)
	if err != nil {
		return g, err
	}
	cg := d[group]
	if cg.Err != nil {
		return g, cg.Err
	}
	g.state = cg.State
	for _, m := range cg.Members {
		var ps []int32
		if c, ok := m.Assigned.AsConsumer(); ok {
			for _, t := range c.Topics {
				if t.Topic == topic {
					ps = append(ps, t.Partitions...)
				}
			}
		}
		g.members[m.MemberID] = ps
	}
	return g, nil
}

// consumerProtocolSnapshot is snapshot for a KIP-848 consumer group, which
// the classic DescribeGroups does not describe: ConsumerGroupDescribe gives
// each member's current assignment and says Stable once every member
// reconciled its target.
func (a *admin) consumerProtocolSnapshot(ctx context.Context, group, topic string) (groupSnapshot, error) {
	g := groupSnapshot{members: map[string][]int32{}}
	d, err := a.adm.DescribeConsumerGroups(ctx, group)
	if err != nil {
		return g, err
	}
	cg, ok := d[group]
	if !ok {
		return g, fmt.Errorf("group %q: not described", group)
	}
	if cg.Err != nil {
		return g, cg.Err
	}
	g.state = cg.State
	for _, m := range cg.Members {
		var ps []int32
		for p := range m.Assignment[topic] {
			ps = append(ps, p)
		}
		g.members[m.MemberID] = ps
	}
	return g, nil
}
