package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/vocab"
)

// maxKeysLimit bounds keys (key_mode hashed): the ordering table holds one
// slot per producer and key.
const maxKeysLimit = 1_000_000

// hotKeysKeys are the keys of a hot_keys map.
var hotKeysKeys = []string{"share", "keys"}

// toBool converts a YAML boolean (or the strings "true"/"false").
func toBool(v any) (any, error) {
	switch b := v.(type) {
	case bool:
		return b, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(b)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return nil, fmt.Errorf("expected true or false, got %s", show(v))
}

// normalizeHotKeys checks a hot_keys map ({share: 0.2, keys: 3}, either
// entry may be a list to sweep it) or a list of such maps with single
// values.
func normalizeHotKeys(v any) (any, error) {
	if list, ok := v.([]any); ok {
		if len(list) == 0 {
			return nil, fmt.Errorf("hot_keys: empty list; give at least one map like {share: 0.2, keys: 3}")
		}
		out := make([]any, len(list))
		for i, e := range list {
			m, err := hotKeysMap(e, false)
			if err != nil {
				return nil, fmt.Errorf("hot_keys: list entry %d: %w", i+1, err)
			}
			out[i] = m
		}
		return out, nil
	}
	m, err := hotKeysMap(v, true)
	if err != nil {
		return nil, fmt.Errorf("hot_keys: %w", err)
	}
	return m, nil
}

func hotKeysMap(v any, lists bool) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected a map like {share: 0.2, keys: 3}, got %s", show(v))
	}
	out := map[string]any{"share": 0.0, "keys": 0}
	for k, e := range m {
		if !slices.Contains(hotKeysKeys, k) {
			return nil, fmt.Errorf("unknown key %q (valid keys: share, keys)", k)
		}
		kd := kindFloat
		if k == "keys" {
			kd = kindInt
		}
		conv := func(x any) (any, error) { return scalar(kd, x) }
		var (
			c   any
			err error
		)
		if lists {
			c, err = normalizeList(k, e, conv)
		} else {
			c, err = conv(e)
			if err != nil {
				err = fmt.Errorf("%s: %w", k, err)
			}
		}
		if err != nil {
			return nil, err
		}
		out[k] = c
	}
	return out, nil
}

// checkKeys checks key_mode hashed's cardinality and skew.
func (r RunSpec) checkKeys(p *problems) {
	if r.KeyMode == "hashed" {
		if r.Keys < 1 {
			p.addf("key_mode", "hashed needs keys: the key cardinality, an integer ≥ 1, got keys %d", r.Keys)
		}
		atMost(p, "keys", r.Keys, maxKeysLimit, "")
		if n := r.Keys * r.Producers; r.Keys <= maxKeysLimit && r.Producers <= maxProducersLimit && n > 10*maxKeysLimit {
			p.addf("keys", "keys × producers is %d; the ordering table's limit is %d: lower keys or producers", n, 10*maxKeysLimit)
		}
	} else if r.Keys < 0 {
		p.addf("keys", "must be ≥ 0, got %d", r.Keys)
	}
	h := r.HotKeys
	if !(h.Share >= 0 && h.Share <= 1) {
		p.addf("hot_keys.share", "must be in [0, 1] (the share of records sent to the hot keys), got %s", formatScalar(h.Share))
	}
	if h.Keys < 0 {
		p.addf("hot_keys.keys", "must be ≥ 0, got %d", h.Keys)
	}
	if h.Share > 0 || h.Keys > 0 {
		switch {
		case r.KeyMode != "hashed":
			p.addf("hot_keys", "skews key_mode hashed only, got key_mode %q; use key_mode hashed with keys: N", r.KeyMode)
		case h.Share == 0 || h.Keys == 0:
			p.addf("hot_keys", "give both share > 0 and keys ≥ 1 (or neither), got {share: %s, keys: %d}", formatScalar(h.Share), h.Keys)
		case r.Keys >= 1 && h.Keys > r.Keys:
			p.addf("hot_keys.keys", "%d hot keys exceed keys (%d)", h.Keys, r.Keys)
		}
	}
	switch s := r.PartitionSkew; {
	case !(s >= 0 && s <= maxPartitionSkew):
		p.addf("partition_skew", "must be a Zipf exponent from 0 (no skew) to %d, got %s", maxPartitionSkew, formatScalar(s))
	case s > 0 && r.KeyMode == "hashed":
		p.addf("partition_skew", "key_mode hashed partitions records by their key; skew it with hot_keys, or use key_mode round-robin with partition_skew")
	}
}

// maxPartitionSkew bounds partition_skew: at 10 partition 0 takes 99.9 %
// of the records.
const maxPartitionSkew = 10

// checkGroupKnobs checks the consumer-group knobs: their values, what they
// need of each other, and the one client java cannot take (rebalance_timeout).
func (r RunSpec) checkGroupKnobs(p *problems) {
	isOne(p, "group_protocol", r.GroupProtocol, vocab.GroupProtocols)
	oneOf(p, "remote_assignor", r.RemoteAssignor, "uniform", "range")
	oneOf(p, "assignor", r.Assignor, "cooperative-sticky", "sticky", "range", "roundrobin")
	isOne(p, "commit", r.Commit, vocab.Commits)
	if r.AutoCommitInterval <= 0 {
		p.addf("auto_commit_interval", "must be > 0, got %v", r.AutoCommitInterval)
	}
	if r.SessionTimeout < 0 {
		p.addf("session_timeout", "must be ≥ 0 (0: the harness's choice), got %v", r.SessionTimeout)
	} else if r.SessionTimeout > 0 && r.SessionTimeout < 1e9 {
		p.addf("session_timeout", "must be 0 or ≥ 1s (Kafka's group.min.session.timeout.ms is 6s by default), got %v", r.SessionTimeout)
	}
	if r.RebalanceTimeout < 0 {
		p.addf("rebalance_timeout", "must be ≥ 0 (0: franz-go's 60s), got %v", r.RebalanceTimeout)
	}
	if r.GroupProtocol == vocab.ProtocolConsumer {
		if r.Assignor != "cooperative-sticky" {
			p.addf("assignor", "%q is a classic-protocol (client-side) assignor; group_protocol consumer assigns on the broker: "+
				"use remote_assignor (uniform or range) and leave assignor out", r.Assignor)
		}
		if r.SessionTimeout > 0 {
			p.addf("session_timeout", "group_protocol consumer takes the session timeout from the broker: "+
				"set broker_config group.consumer.session.timeout.ms (45000 by default) instead, got %v", r.SessionTimeout)
		}
	}
	if r.Commit == vocab.CommitAuto && r.Style == vocab.StyleContinuous {
		p.addf("commit", "auto commits what earlier polls returned, which a continuous member may not have processed yet; "+
			"use commit after_processing with style continuous")
	}
	if r.Client == vocab.ClientLibrdkafka && r.RebalanceTimeout > 0 {
		p.addf("rebalance_timeout", "client librdkafka has no rebalance timeout of its own (librdkafka sends max.poll.interval.ms): "+
			"use client franz-go or leave rebalance_timeout out (default 0s)")
	}
	if r.Client == vocab.ClientJava && r.RebalanceTimeout > 0 {
		p.addf("rebalance_timeout", "client java has no rebalance timeout of its own (KafkaConsumer sends max.poll.interval.ms, "+
			"which the runner bounds by the session timeout): use client franz-go or leave rebalance_timeout out (default 0s)")
	}
}

// IsEager reports whether the run's consumer group rebalances eagerly (every
// member revokes every partition at every rebalance): classic protocol with
// an eager assignor.
func (r RunSpec) IsEager() bool {
	return r.ConsumerType == vocab.ConsumerGroup && r.GroupProtocol == vocab.ProtocolClassic && r.Assignor != "cooperative-sticky"
}

// GroupProtocolLabel names the rebalance protocol of a run: "share",
// "classic eager (range)", "classic cooperative", "consumer (KIP-848,
// uniform)".
func (r RunSpec) GroupProtocolLabel() string {
	switch {
	case r.ConsumerType == vocab.ShareGroup:
		return "share"
	case r.GroupProtocol == vocab.ProtocolConsumer:
		return "consumer (KIP-848, " + r.RemoteAssignor + ")"
	case r.IsEager():
		return "classic eager (" + r.Assignor + ")"
	}
	return "classic cooperative"
}

// hotKeys accepts one hot_keys map (whose entries may be lists) or a list
// of maps with single values, noting lines for errors.
func (c *fileChecker) hotKeys(v *yaml.Node) {
	one := func(m *yaml.Node, lists bool) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, e := m.Content[i], resolve(m.Content[i+1])
			if !slices.Contains(hotKeysKeys, k.Value) {
				c.errorf(k.Line, "unknown key %q in hot_keys (valid keys: share, keys)", k.Value)
				continue
			}
			path := "hot_keys." + k.Value
			if lists {
				c.info.sub["hot_keys"] = append(c.info.sub["hot_keys"], k.Value)
				c.info.lines[path] = k.Line
				c.scalarOrList(path, e)
			} else if e.Kind != yaml.ScalarNode || isNull(e) {
				c.errorf(e.Line, "%s: entries of a hot_keys list take single values", path)
			}
		}
	}
	switch v.Kind {
	case yaml.MappingNode:
		one(v, true)
	case yaml.SequenceNode:
		if len(v.Content) == 0 {
			c.errorf(v.Line, "hot_keys: empty list; give at least one map like {share: 0.2, keys: 3}")
		}
		if c.longList("hot_keys", v, MaxRuns, "each map is a run, and a scenario expands to at most that many") {
			return
		}
		for _, e := range v.Content {
			if e = resolve(e); e.Kind != yaml.MappingNode {
				c.errorf(e.Line, "hot_keys: a list of maps like {share: 0.2, keys: 3}, got %s in the list", nodeKind(e))
				continue
			}
			one(e, false)
		}
	default:
		c.errorf(v.Line, "hot_keys: expected a map like {share: 0.2, keys: 3} or a list of them, got %s", nodeKind(v))
	}
}
