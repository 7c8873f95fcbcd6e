package infra

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// roundTrip is what checkCluster measured.
type roundTrip struct {
	brokers      int           // brokers listed in metadata
	shareConsume time.Duration // from share consumer creation to the record
}

// checkCluster proves a cluster works for what sharebench needs: it lists
// the expected brokers, a record produced to a fresh topic (replicated on
// every broker) is read back by a plain consumer, and a share group with
// share.auto.offset.reset=earliest consumes and acknowledges it.
func checkCluster(t *testing.T, c Cluster, wantBrokers int) roundTrip {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var rt roundTrip

	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	// A raw request: kadm.ListBrokers may answer from kgo's cache.
	mreq := kmsg.NewPtrMetadataRequest()
	mreq.Topics = []kmsg.MetadataRequestTopic{}
	md, err := mreq.RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("metadata: %v", err)
	}
	rt.brokers = len(md.Brokers)
	if rt.brokers != wantBrokers {
		t.Fatalf("metadata lists %d brokers, want %d", rt.brokers, wantBrokers)
	}

	topic := "t-" + randomHex(3)
	if _, err := adm.CreateTopic(ctx, 1, int16(wantBrokers), nil, topic); err != nil {
		t.Fatalf("create topic %q: %v", topic, err)
	}
	value := []byte("hello " + randomHex(4))
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: value}).FirstErr(); err != nil {
		t.Fatalf("produce to %q: %v", topic, err)
	}

	plain, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if got := pollOne(ctx, t, plain); string(got.Value) != string(value) {
		t.Fatalf("plain consumer read %q, want %q", got.Value, value)
	}

	group := "g-" + randomHex(3)
	if err := setGroupConfig(ctx, cl, group, "share.auto.offset.reset", "earliest"); err != nil {
		t.Fatalf("group %q: set share.auto.offset.reset: %v", group, err)
	}
	began := time.Now()
	share, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...), kgo.ShareGroup(group), kgo.ConsumeTopics(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer share.Close()
	rec := pollOne(ctx, t, share)
	rt.shareConsume = time.Since(began)
	if string(rec.Value) != string(value) {
		t.Fatalf("share consumer read %q, want %q", rec.Value, value)
	}
	if n := rec.DeliveryCount(); n != 1 {
		t.Errorf("share record delivery count %d, want 1", n)
	}
	rec.Ack(kgo.AckAccept)
	if err := share.FlushAcks(ctx); err != nil {
		t.Fatalf("share group %q: flush acks: %v", group, err)
	}
	return rt
}

// pollOne polls cl until it returns a record or ctx ends.
func pollOne(ctx context.Context, t *testing.T, cl *kgo.Client) *kgo.Record {
	t.Helper()
	for {
		fs := cl.PollRecords(ctx, 1)
		if ctx.Err() != nil {
			t.Fatalf("no record before timeout: %v", ctx.Err())
		}
		for _, e := range fs.Errors() {
			t.Logf("poll: topic %q partition %d: %v", e.Topic, e.Partition, e.Err)
		}
		if recs := fs.Records(); len(recs) > 0 {
			return recs[0]
		}
	}
}

// setGroupConfig sets a dynamic group-level config (resource type GROUP) the
// way kafka-configs --entity-type groups does; kadm has no helper for it.
func setGroupConfig(ctx context.Context, cl *kgo.Client, group, key, value string) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig // 32
	res.ResourceName = group
	cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cfg.Name = key
	cfg.Op = kmsg.IncrementalAlterConfigOpSet
	cfg.Value = kmsg.StringPtr(value)
	res.Configs = append(res.Configs, cfg)
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	for _, r := range resp.Resources {
		if err := kerrOrNil(r.ErrorCode, r.ErrorMessage); err != nil {
			return err
		}
	}
	return nil
}

func kerrOrNil(code int16, msg *string) error {
	if code == 0 {
		return nil
	}
	m := ""
	if msg != nil {
		m = *msg
	}
	return fmt.Errorf("error code %d: %s", code, m)
}
