package scenarios

import (
	"strings"
	"testing"

	"github.com/sharebench/sharebench/vocab"
)

// Kafka 4.1 runs share groups as a preview: what it lacks is refused with
// the file's line, the key and the release that added it; what it has loads.
func TestKafka41Refusals(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want       []string // substrings of the error; none: loads
	}{
		{"share on 4.1.2", "consumer_type: share\nkafka_version: 4.1.2", nil},
		{"share on 4.1.0", "consumer_type: share\nkafka_version: 4.1.0", nil},
		{"4.0 refused", "consumer_type: share\nkafka_version: 4.0.0",
			[]string{"s.yaml:3: kafka_version: share groups need Kafka 4.1.0 or newer", `got "4.0.0"`}},
		{"renew auto", "consumer_type: share\nkafka_version: 4.1.2\nack_mode: explicit\nrenew: auto",
			[]string{"s.yaml:5: renew: auto needs Kafka 4.2.0 (RENEW, KIP-1222); kafka_version is 4.1.2", "use renew none"}},
		{"renew auto on 4.2", "consumer_type: share\nkafka_version: 4.2.0\nack_mode: explicit\nrenew: auto", nil},
		{"record_limit", "consumer_type: share\nkafka_version: 4.1.2\nacquire_mode: record_limit",
			[]string{"s.yaml:4: acquire_mode: record_limit needs Kafka 4.2.0 (share.acquire.mode, KIP-1206); kafka_version is 4.1.2"}},
		{"record_limit on a consumer run", "consumer_type: consumer\nkafka_version: 4.1.2\nacquire_mode: record_limit", nil},
		{"group setting of 4.1", "consumer_type: share\nkafka_version: 4.1.2\ngroup_config: {share.record.lock.duration.ms: 20000}", nil},
		{"group setting of 4.3", "consumer_type: share\nkafka_version: 4.1.2\ngroup_config: {share.delivery.count.limit: 3}",
			[]string{"s.yaml:4: group_config.share.delivery.count.limit: Kafka 4.1.2 has no group setting share.delivery.count.limit (it is a group setting from Kafka 4.3.0 on)",
				"use broker_config group.share.delivery.count.limit"}},
		{"dead letter", "consumer_type: share\nkafka_version: 4.1.2\ndead_letter: {topic: dlq.x}",
			[]string{"dead_letter: Kafka 4.1.2 has no share-group dead-letter queue", "kafka_version 4.4.0 or newer"}},
		{"swept version: only the 4.1 run refused", "consumer_type: share\nkafka_version: [4.1.2, 4.2.2]\nack_mode: explicit\nrenew: auto",
			[]string{"renew: auto needs Kafka 4.2.0", "kafka_version is 4.1.2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadBytes("s.yaml", []byte("name: x\n"+c.yaml+"\n"), nil, nil)
			if len(c.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("loaded; want an error with %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "4.2.2") {
				t.Errorf("error %q names the 4.2.2 run, which has everything", err)
			}
		})
	}
}

// SharePreview marks the share runs of 4.1 only.
func TestRunSpecSharePreview(t *testing.T) {
	s, err := LoadBytes("s.yaml", []byte("name: x\nconsumer_type: [consumer, share]\nkafka_version: [4.1.2, 4.2.2]\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range s.Runs {
		if r.SharePreview() {
			got = append(got, string(r.ConsumerType)+" "+r.KafkaVersion)
		}
	}
	if len(got) != 1 || got[0] != string(vocab.ShareGroup)+" 4.1.2" {
		t.Errorf("preview runs %q, want [share 4.1.2]", got)
	}
}
