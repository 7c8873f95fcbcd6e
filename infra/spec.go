package infra

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"time"

	"github.com/sharebench/sharebench/internal/cachedir"
)

const (
	// DefaultHeap is the broker heap of a one-node cluster.
	DefaultHeap = "1g"
	// DefaultHeapMultiNode is the per-broker heap when a cluster has several
	// nodes, so that three JVMs fit a laptop next to the harness.
	DefaultHeapMultiNode = "512m"
	// DefaultStartTimeout bounds a start including jar resolution.
	DefaultStartTimeout = 5 * time.Minute
)

// heapPattern is what -Xmx accepts: a positive size with an optional unit.
var heapPattern = regexp.MustCompile(`^[1-9][0-9]*[kKmMgG]?$`)

// withDefaults returns a copy of s with zero values replaced by the
// documented defaults, or an error naming the field that cannot work.
// BrokerConfig is copied, so the caller may reuse its map.
func (s ClusterSpec) withDefaults() (ClusterSpec, error) {
	if s.Nodes == 0 {
		s.Nodes = 1
	}
	if s.Nodes < 0 {
		return s, fmt.Errorf("cluster spec: nodes %d: must be positive", s.Nodes)
	}
	if s.KafkaVersion == "" {
		s.KafkaVersion = DefaultKafkaVersion
	}
	if !cachedir.ReleaseVersion.MatchString(s.KafkaVersion) {
		return s, fmt.Errorf("cluster spec: kafka version %q: not a release version like %s", s.KafkaVersion, DefaultKafkaVersion)
	}
	if s.Heap == "" {
		s.Heap = DefaultHeap
		if s.Nodes > 1 {
			s.Heap = DefaultHeapMultiNode
		}
	}
	if !heapPattern.MatchString(s.Heap) {
		return s, fmt.Errorf("cluster spec: heap %q: want a JVM size such as 512m or 1g", s.Heap)
	}
	if s.StartTimeout == 0 {
		s.StartTimeout = DefaultStartTimeout
	}
	if s.StartTimeout < 0 {
		return s, fmt.Errorf("cluster spec: start timeout %v: must be positive", s.StartTimeout)
	}
	s.BrokerConfig = maps.Clone(s.BrokerConfig)
	return s, nil
}

// prepare applies the defaults, checks the node count a starting provider
// supports (1 or 3) and returns the effective broker configuration.
func (s ClusterSpec) prepare(provider string) (ClusterSpec, map[string]string, error) {
	s, err := s.withDefaults()
	if err != nil {
		return s, nil, err
	}
	if s.Nodes != 1 && s.Nodes != 3 {
		return s, nil, fmt.Errorf("cluster spec: nodes %d: the %s provider starts 1 or 3 nodes", s.Nodes, provider)
	}
	if s.Security != nil && provider != "process" {
		return s, nil, fmt.Errorf("cluster spec: security %q: only the process provider starts secured brokers", s.Security.Mode)
	}
	cfg, err := EffectiveBrokerConfig(s.Nodes, s.BrokerConfig)
	if err != nil {
		return s, nil, err
	}
	return s, cfg, nil
}

// startContext bounds a start by StartTimeout, with a cause that says so.
func (s ClusterSpec) startContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, s.StartTimeout,
		fmt.Errorf("cluster not ready within the start timeout (%v)", s.StartTimeout))
}
