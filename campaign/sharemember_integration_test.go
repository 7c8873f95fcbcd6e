//go:build integration

package campaign

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// newShareMember is a franz-go share-group client of group on topic.
func newShareMember(t *testing.T, seeds []string, group, topic string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ShareGroup(group), kgo.ConsumeTopics(topic)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// pollShare polls once, waiting up to wait for records.
func pollShare(ctx context.Context, t *testing.T, cl *kgo.Client, wait time.Duration) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	fs := cl.PollRecords(ctx, -1)
	for _, e := range fs.Errors() {
		if e.Err != context.DeadlineExceeded {
			t.Logf("poll: topic %q partition %d: %v", e.Topic, e.Partition, e.Err)
		}
	}
	return fs.Records()
}
