package scenarios

import (
	"strings"
	"testing"
)

func TestDeadLetterBlock(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want       []string // substrings of the error; none: loads
	}{
		{"share on 4.4", "consumer_type: share\nkafka_version: 4.4.0\ndead_letter: {topic: dlq.x, copy_record: true}", nil},
		{"needs 4.4", "consumer_type: share\nkafka_version: 4.3.1\ndead_letter: {topic: dlq.x}",
			[]string{"dead_letter: Kafka 4.3.1 has no share-group dead-letter queue", "kafka_version 4.4.0 or newer"}},
		{"needs a share run", "consumer_type: consumer\nkafka_version: 4.4.0\ndead_letter: {topic: dlq.x}",
			[]string{"no run has consumer_type share"}},
		{"swept type: share runs only", "consumer_type: [consumer, share]\nkafka_version: 4.4.0\ndead_letter: {topic: dlq.x}", nil},
		{"prefix", "consumer_type: share\nkafka_version: 4.4.0\ndead_letter: {topic: orders.dlq}", []string{`must start with "dlq."`}},
		{"prefix from broker_config", "consumer_type: share\nkafka_version: 4.4.0\nbroker_config: {errors.deadletterqueue.topic.name.prefix: dead.}\ndead_letter: {topic: dead.x}", nil},
		{"topic required", "consumer_type: share\nkafka_version: 4.4.0\ndead_letter: {copy_record: true}", []string{"dead_letter.topic: required"}},
		{"unknown key", "consumer_type: share\nkafka_version: 4.4.0\ndead_letter: {topic: dlq.x, copy: true}", []string{`unknown key "copy" in dead_letter`}},
		{"not swept", "consumer_type: share\nkafka_version: 4.4.0\ndead_letter: {topic: [dlq.x, dlq.y]}", []string{"dead_letter is not swept"}},
		{"bad bool", "consumer_type: share\nkafka_version: 4.4.0\ndead_letter: {topic: dlq.x, copy_record: yes please}", []string{"expected true or false"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := LoadBytes("s.yaml", []byte("name: x\n"+c.yaml+"\n"), nil, nil)
			if len(c.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range s.Runs {
					cfg := r.ShareGroupConfig()
					if (r.ConsumerType == "share") != (cfg[GroupKeyDLQTopic] != "") {
						t.Errorf("%s run: group settings %v", r.ConsumerType, cfg)
					}
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
		})
	}
	if _, err := LoadBytes("s.yaml", []byte("name: x\nconsumer_type: share\nkafka_version: 4.4.0\ndead_letter: {topic: dlq.x}\n"), nil,
		[]string{"dead_letter.topic=dlq.y"}); err == nil || !strings.Contains(err.Error(), "not overridden") {
		t.Errorf("--set dead_letter: %v", err)
	}
}
