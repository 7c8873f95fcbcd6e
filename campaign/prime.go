package campaign

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// primeCluster consumes one record through a consumer group and a share group
// on a throwaway topic before the first run, so Kafka creates its internal
// topics (__consumer_offsets, __share_group_state) and loads the
// coordinators outside any measurement: otherwise the first run of a
// campaign pays seconds of one-time set-up inside its warm-up or window.
func primeCluster(ctx context.Context, brokers []string, nodes int, conn ...kgo.Opt) error {
	adm, err := newAdmin(brokers, conn...)
	if err != nil {
		return err
	}
	defer adm.close()
	topic := "sharebench-prime-" + randomSuffix()
	if err := adm.createTopic(ctx, topic, 1, min(nodes, 3)); err != nil {
		return err
	}
	defer func() { _ = adm.deleteTopic(context.WithoutCancel(ctx), topic) }() // a priming topic left behind holds one record
	p, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic)}, conn...)...)
	if err != nil {
		return err
	}
	defer p.Close()
	if err := p.ProduceSync(ctx, kgo.StringRecord("prime")).FirstErr(); err != nil {
		return fmt.Errorf("prime: produce: %w", err)
	}
	shareGroup := topic + "-share"
	if err := adm.setGroupConfig(ctx, shareGroup, map[string]string{"share.auto.offset.reset": "earliest"}); err != nil {
		return err
	}
	for _, opt := range []kgo.Opt{
		kgo.ConsumerGroup(topic + "-consumer"),
		kgo.ShareGroup(shareGroup),
	} {
		if err := consumeOne(ctx, brokers, topic, opt, conn...); err != nil {
			return err
		}
	}
	return nil
}

func consumeOne(ctx context.Context, brokers []string, topic string, group kgo.Opt, conn ...kgo.Opt) error {
	opts := append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic), group,
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, conn...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	for {
		fs := cl.PollRecords(ctx, 10)
		if ctx.Err() != nil {
			return fmt.Errorf("prime: no record consumed from %s within 90s", topic)
		}
		if len(fs.Records()) > 0 {
			if err := cl.FlushAcks(ctx); err != nil {
				return fmt.Errorf("prime: flush acks: %w", err)
			}
			return nil
		}
	}
}
