package infra

import (
	"slices"
	"testing"
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
