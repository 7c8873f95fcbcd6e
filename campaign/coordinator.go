package campaign

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Coordinator key types of FindCoordinator (KIP-932 adds share = 2).
const (
	coordinatorKeyGroup int8 = 0
	coordinatorKeyShare int8 = 2
)

// findCoordinator returns the node id of the broker coordinating key.
func findCoordinator(ctx context.Context, cl *kgo.Client, keyType int8, key string) (int32, error) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorType = keyType
	req.CoordinatorKeys = []string{key}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return -1, fmt.Errorf("find coordinator %q: %w", key, err)
	}
	if len(resp.Coordinators) != 1 {
		return -1, fmt.Errorf("find coordinator %q: %d answers, expected 1", key, len(resp.Coordinators))
	}
	c := resp.Coordinators[0]
	if err := kerr.ErrorForCode(c.ErrorCode); err != nil {
		return -1, fmt.Errorf("find coordinator %q: %w", key, err)
	}
	return c.NodeID, nil
}

// ShareCoordinator returns the node id of the share coordinator that holds
// the persisted state (SPSO, delivery counts, acknowledgement state) of one
// share-partition: the leader of the __share_group_state partition for the
// key "group:topicId:partition" (topic id in base64url, as Kafka prints
// Uuids).
func ShareCoordinator(ctx context.Context, cl *kgo.Client, group string, topicID kadm.TopicID, partition int32) (int32, error) {
	key := fmt.Sprintf("%s:%s:%d", group, base64.RawURLEncoding.EncodeToString(topicID[:]), partition)
	return findCoordinator(ctx, cl, coordinatorKeyShare, key)
}

// GroupCoordinator returns the node id of the group coordinator of group
// (consumer and share groups alike).
func GroupCoordinator(ctx context.Context, cl *kgo.Client, group string) (int32, error) {
	return findCoordinator(ctx, cl, coordinatorKeyGroup, group)
}
