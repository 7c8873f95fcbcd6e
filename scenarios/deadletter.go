package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/vocab"
)

// DeadLetter is the dead_letter: block (KIP-1191, Kafka 4.4+, share.version
// 2): the share group's dead-letter queue. Records a member REJECTs and
// records archived at the delivery count limit are written to Topic; the
// harness reads the topic back after the drain and the audit reconciles
// it with the ledger (audit.dead_lettered, audit.dead_letter_missing,
// audit.dead_letter_duplicates, audit.dead_letter_unmatched). The same for
// every run; not a sweep dimension. Share runs only (a consumer-group run
// of a scenario that sweeps consumer_type ignores it).
//
//	dead_letter:
//	  topic: dlq.orders     # required; starts with the broker's DLQ prefix ("dlq.")
//	  copy_record: true     # copy key and value into the DLQ record [false]
//
// Each run gets its own DLQ topic, Topic + "." + the run's topic name
// (one partition, topic setting errors.deadletterqueue.group.enable=true,
// without which the broker archives instead of writing the DLQ), deleted
// after the run. With copy_record the audit matches each DLQ record to a
// produced record by the stamp in its copied value; without it the
// harness, which does not track offsets, can only count the distinct
// (topic, partition, offset) headers against audit.archived.
type DeadLetter struct {
	// Topic is the DLQ topic (errors.deadletterqueue.topic.name). It must
	// start with the broker's errors.deadletterqueue.topic.name.prefix
	// ("dlq." by default); the harness creates it fresh for every run,
	// with the run's name appended, and deletes it after.
	Topic string `json:"topic"`
	// CopyRecord is errors.deadletterqueue.copy.record.enable: copy the
	// original record's key and value into the DLQ record (false: a record
	// with the context headers only). [false]
	CopyRecord bool `json:"copy_record"`
}

// deadLetterKeys are the keys of the dead_letter: block.
var deadLetterKeys = []string{"topic", "copy_record"}

// DeadLetterTopicPrefix is the broker's default
// errors.deadletterqueue.topic.name.prefix; a DLQ topic must start with
// the prefix in force (broker_config may change it).
const DeadLetterTopicPrefix = "dlq."

// KeyDLQTopicPrefix is the broker setting of the DLQ topic name prefix.
const KeyDLQTopicPrefix = "errors.deadletterqueue.topic.name.prefix"

// DeadLetterSince is the first Kafka release with share-group dead-letter
// queues (KIP-1191, share.version 2).
const DeadLetterSince = "4.4.0"

var dlqTopicRE = regexp.MustCompile(`^[a-zA-Z0-9._-]{1,180}$`)

// deadLetter reads the dead_letter: block.
func (c *fileChecker) deadLetter(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		c.errorf(v.Line, "dead_letter: expected a map like {topic: dlq.orders, copy_record: true}, got %s", nodeKind(v))
		return
	}
	d := DeadLetter{}
	bad := false
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], resolve(v.Content[i+1])
		if !slices.Contains(deadLetterKeys, k.Value) {
			c.errorf(k.Line, "unknown key %q in dead_letter%s", k.Value, suggest(k.Value, deadLetterKeys))
			bad = true
			continue
		}
		if val.Kind != yaml.ScalarNode || isNull(val) {
			c.errorf(val.Line, "dead_letter.%s: expected a single value, got %s (dead_letter is not swept)", k.Value, nodeKind(val))
			bad = true
			continue
		}
		switch k.Value {
		case "topic":
			d.Topic = val.Value
			if !dlqTopicRE.MatchString(d.Topic) {
				c.errorf(val.Line, "dead_letter.topic: a topic name of letters, digits, '.', '_' and '-' (at most 180 characters: the harness appends the run's name), got %q", d.Topic)
				bad = true
			}
		case "copy_record":
			b, err := strconv.ParseBool(val.Value)
			if err != nil {
				c.errorf(val.Line, "dead_letter.copy_record: expected true or false, got %q", val.Value)
				bad = true
			}
			d.CopyRecord = b
		}
	}
	if d.Topic == "" && !bad {
		c.errorf(v.Line, "dead_letter.topic: required: the DLQ topic name, starting with %q (the broker's %s)", DeadLetterTopicPrefix, KeyDLQTopicPrefix)
		bad = true
	}
	if !bad {
		c.info.deadLetter = &d
	}
}

// checkDeadLetter checks the dead_letter: block against a share run's
// release and the broker's DLQ topic prefix. Consumer-group runs of a
// scenario that sweeps consumer_type ignore the block (checkDeadLetterUse
// refuses a scenario with no share run).
func (r RunSpec) checkDeadLetter(p *problems) {
	d := r.DeadLetter
	if d == nil || r.ConsumerType != vocab.ShareGroup {
		return
	}
	if !VersionAtLeast(r.KafkaVersion, DeadLetterSince) {
		p.addf("dead_letter", "Kafka %s has no share-group dead-letter queue (KIP-1191, share.version 2): it needs kafka_version %s or newer",
			r.KafkaVersion, DeadLetterSince)
		return
	}
	prefix := DeadLetterTopicPrefix
	if v, ok := r.BrokerConfig[KeyDLQTopicPrefix]; ok {
		prefix = strings.TrimSpace(v)
	}
	if !strings.HasPrefix(d.Topic, prefix) {
		p.addf("dead_letter.topic", "%q must start with %q, the broker's %s (set it in broker_config to use another prefix)",
			d.Topic, prefix, KeyDLQTopicPrefix)
	}
}

// checkDeadLetterUse refuses a dead_letter: block no run uses.
func (s *Scenario) checkDeadLetterUse(d *DeadLetter) error {
	if d != nil && !slices.ContainsFunc(s.Runs, func(r RunSpec) bool { return r.ConsumerType == vocab.ShareGroup }) {
		return fmt.Errorf("dead_letter: given, but no run has consumer_type share (dead-letter queues are a share-group feature, Kafka %s+); add consumer_type: share or remove the block", DeadLetterSince)
	}
	return nil
}

// RunTopic is the DLQ topic of one run: Topic with the run's topic name
// appended, so runs never share a DLQ.
func (d DeadLetter) RunTopic(runTopic string) string {
	return d.Topic + "." + runTopic
}
