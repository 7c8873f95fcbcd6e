package scenarios

import (
	"strings"
	"testing"
)

func TestGroupConfigByVersion(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want       []string // substrings of the error; none: loads
	}{
		{"lock duration is a group setting on 4.2", "kafka_version: 4.2.2\ngroup_config: {share.record.lock.duration.ms: 20000}", nil},
		{"delivery limit needs 4.3", "kafka_version: 4.2.2\ngroup_config: {share.delivery.count.limit: 3}",
			[]string{"group_config.share.delivery.count.limit: Kafka 4.2.2 has no group setting share.delivery.count.limit",
				"from Kafka 4.3.0 on", "use broker_config group.share.delivery.count.limit", "or kafka_version 4.3.0"}},
		{"delivery limit on 4.3", "kafka_version: 4.3.1\ngroup_config: {share.delivery.count.limit: 3}", nil},
		{"record locks bound", "kafka_version: 4.3.1\ngroup_config: {share.partition.max.record.locks: 5000}",
			[]string{"5000 is outside the broker's bounds 100–4000"}},
		{"bound widened by broker_config", "kafka_version: 4.3.1\nbroker_config: {group.share.max.partition.max.record.locks: 8000}\ngroup_config: {share.partition.max.record.locks: 5000}", nil},
		{"lock below the floor", "kafka_version: 4.3.1\ngroup_config: {share.record.lock.duration.ms: 2000}",
			[]string{"2000 is outside the broker's bounds 15000–60000"}},
		{"broker key in group_config", "group_config: {group.share.delivery.count.limit: 3}",
			[]string{`"group.share.delivery.count.limit" is a broker setting`}},
		{"harness-owned", "group_config: {share.auto.offset.reset: latest}", []string{"the harness sets it to earliest"}},
		{"dlq key needs the block", "kafka_version: 4.4.0\ngroup_config: {errors.deadletterqueue.topic.name: dlq.x}", []string{"dead_letter"}},
		{"assignment interval needs 4.3", "group_config: {share.assignment.interval.ms: 500}", []string{"4.3.0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadBytes("s.yaml", []byte("name: x\nconsumer_type: share\n"+c.yaml+"\n"), nil, nil)
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
		})
	}
}

// A group_config sweep is a sweep dimension that keeps one cluster: the
// cluster key ignores group settings.
func TestGroupConfigSweepSharesCluster(t *testing.T) {
	s, err := LoadBytes("s.yaml", []byte("name: x\nconsumer_type: share\nkafka_version: 4.3.1\n"+
		"group_config: {share.delivery.count.limit: [2, 4]}\n"), nil, []string{"group_config.share.record.lock.duration.ms=20000"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 2 || s.Runs[0].ClusterKey() != s.Runs[1].ClusterKey() {
		t.Fatalf("runs %d, cluster keys differ", len(s.Runs))
	}
	if got := s.RunName(1); !strings.Contains(got, "gdcl4") {
		t.Errorf("run name %q lacks gdcl4", got)
	}
	r := s.Runs[1]
	if r.DeliveryCountLimit() != 4 || r.RecordLockDuration().Milliseconds() != 20000 || r.Value("group_config.share.delivery.count.limit") != "4" {
		t.Errorf("effective: dcl %d lock %v", r.DeliveryCountLimit(), r.RecordLockDuration())
	}
	if got := r.ShareGroupConfig(); got["share.delivery.count.limit"] != "4" || got["share.record.lock.duration.ms"] != "20000" {
		t.Errorf("ShareGroupConfig %v", got)
	}
}

func TestVersionAtLeast(t *testing.T) {
	for _, c := range []struct {
		v, min string
		want   bool
	}{{"4.2.2", "4.3.0", false}, {"4.3.0", "4.3.0", true}, {"4.10.0", "4.4.0", true}, {"5.0.0", "4.4.0", true}, {"x", "4.2.0", false}} {
		if got := VersionAtLeast(c.v, c.min); got != c.want {
			t.Errorf("VersionAtLeast(%s, %s) = %v", c.v, c.min, got)
		}
	}
}
