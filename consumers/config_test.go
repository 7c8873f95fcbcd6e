package consumers

import (
	"context"
	"strings"
	"testing"
)

// A share group cannot run continuous with franz-go: the next poll would
// ACCEPT the records still being processed.
func TestContinuousShareRefused(t *testing.T) {
	c := Config{Type: ShareGroup, Acquire: AcquireBatchOptimized, Ack: AckExplicit, Style: StyleContinuous,
		Processing: Processing{Model: ModelNone}, Members: 1, Workers: 1, MaxPollRecords: 1}
	if err := Run(context.Background(), c, nil); err == nil || !strings.Contains(err.Error(), "ACCEPT") {
		t.Fatalf("err %v", err)
	}
}
