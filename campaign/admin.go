package campaign

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/internal/retry"
)

// admin wraps the Kafka admin calls a run needs.
type admin struct {
	cl  *kgo.Client
	adm *kadm.Client
}

func newAdmin(brokers []string) (*admin, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return nil, fmt.Errorf("admin client: %w", err)
	}
	return &admin{cl: cl, adm: kadm.NewClient(cl)}, nil
}

func (a *admin) close() { a.cl.Close() }

// createTopic creates a topic and waits until every partition has a leader.
func (a *admin) createTopic(ctx context.Context, topic string, partitions, rf int) error {
	resp, err := a.adm.CreateTopic(ctx, int32(partitions), int16(rf), nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		return fmt.Errorf("topic %q: create: %w", topic, err)
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

func (a *admin) deleteTopic(ctx context.Context, topic string) {
	_, _ = a.adm.DeleteTopics(ctx, topic)
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

// groupReady reports whether the group has all its members with an
// assignment: a stable group (consumer group) or an assigned partition for
// every member (share group; the member learns it on its next heartbeat).
func (a *admin) groupReady(ctx context.Context, group string, share bool, members int) (bool, error) {
	if share {
		d, err := a.adm.DescribeShareGroups(ctx, group)
		if err != nil {
			return false, nil
		}
		g := d[group]
		if g.Err != nil || len(g.Members) < members {
			return false, nil
		}
		for _, m := range g.Members {
			if len(m.Assignment) == 0 {
				return false, nil
			}
		}
		return true, nil
	}
	d, err := a.adm.DescribeGroups(ctx, group)
	if err != nil {
		return false, nil
	}
	g := d[group]
	if g.Err == nil && g.State == "Stable" && len(g.Members) >= members {
		return true, nil
	}
	return a.consumerGroupReady(ctx, group, members), nil // KIP-848 (group_protocol.go)
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

// assignment describes which partitions each member holds, e.g.
// "member sharebench-0: [0 1]; member sharebench-1: [2]", for the run log.
func (a *admin) assignment(ctx context.Context, group, topic string, share bool) string {
	var parts []string
	if share {
		d, err := a.adm.DescribeShareGroups(ctx, group)
		if err != nil {
			return err.Error()
		}
		for _, m := range d[group].Members {
			var ps []int32
			for p := range m.Assignment[topic] {
				ps = append(ps, p)
			}
			slices.Sort(ps)
			parts = append(parts, fmt.Sprintf("%s: %v", m.ClientID, ps))
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
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}
