package infra

import (
	"slices"
	"testing"

	"github.com/sharebench/sharebench/internal/envvars"
)

// Kafka 4.1 is formatted with share.version=1 (its share groups are off
// otherwise); later releases finalize share.version by themselves.
func TestFormatFeatures(t *testing.T) {
	for v, want := range map[string][]string{
		"4.1.0": {"--feature", "share.version=1"},
		"4.1.2": {"--feature", "share.version=1"},
		"4.2.2": nil,
		"4.4.0": nil,
	} {
		if got := formatArgs(v); !slices.Equal(got, want) {
			t.Errorf("formatArgs(%s) = %q, want %q", v, got, want)
		}
	}
}

// The container provider hands the same feature levels to its start script.
func TestContainerEnvFormatFeatures(t *testing.T) {
	c41 := &containerCluster{spec: ClusterSpec{KafkaVersion: "4.1.2"}}
	if env := c41.containerEnv("id"); env[envvars.FormatFeatures] != "share.version=1" || env[envvars.ClusterID] != "id" {
		t.Errorf("4.1.2 container env %v", env)
	}
	c42 := &containerCluster{spec: ClusterSpec{KafkaVersion: "4.2.2"}}
	if env := c42.containerEnv("id"); len(env) != 1 {
		t.Errorf("4.2.2 container env %v: want the cluster id only", env)
	}
}
