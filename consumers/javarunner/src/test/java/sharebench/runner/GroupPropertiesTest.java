package sharebench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Properties;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * The consumer-group knobs reach KafkaConsumer's settings, and KafkaConsumer
 * accepts them: under group.protocol consumer it refuses a client-side
 * assignor, session.timeout.ms and heartbeat.interval.ms, so none is set.
 */
class GroupPropertiesTest {
    static RunnerConfig config(String... kv) {
        Properties p = new Properties();
        p.setProperty("bootstrap", "127.0.0.1:1");
        p.setProperty("topic", "t");
        p.setProperty("group", "g");
        p.setProperty("type", "consumer");
        p.setProperty("workers", "1");
        p.setProperty("max_poll_records", "10");
        p.setProperty("run", "1");
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return new RunnerConfig(p);
    }

    /** Builds (and closes) a KafkaConsumer on the settings: it validates them without connecting. */
    static void accepted(Properties p) {
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer()).close();
    }

    @Test
    void classicDefaults() {
        Properties p = GroupMember.consumerProperties(config(), 3);
        assertEquals("classic", p.get("group.protocol"));
        assertEquals("org.apache.kafka.clients.consumer.CooperativeStickyAssignor", p.get("partition.assignment.strategy"));
        assertEquals("false", p.get("enable.auto.commit"));
        assertFalse(p.containsKey("group.instance.id"));
        accepted(p);
    }

    @Test
    void classicEagerStaticAutoCommit() {
        Properties p = GroupMember.consumerProperties(config("assignor", "range", "static_membership", "true", "auto_commit", "true",
                "auto_commit_interval_ns", "1500000000", "session_timeout_ns", "6000000000"), 3);
        assertEquals("org.apache.kafka.clients.consumer.RangeAssignor", p.get("partition.assignment.strategy"));
        assertEquals("sharebench-3", p.get("group.instance.id"));
        assertEquals("true", p.get("enable.auto.commit"));
        assertEquals("1500", p.get("auto.commit.interval.ms"));
        assertEquals("6000", p.get("session.timeout.ms"));
        assertEquals("2000", p.get("heartbeat.interval.ms"));
        accepted(p);
    }

    @Test
    void kip848() {
        Properties p = GroupMember.consumerProperties(config("group_protocol", "consumer", "remote_assignor", "range",
                "session_timeout_ns", "6000000000"), 0);
        assertEquals("consumer", p.get("group.protocol"));
        assertEquals("range", p.get("group.remote.assignor"));
        assertFalse(p.containsKey("partition.assignment.strategy"));
        assertFalse(p.containsKey("session.timeout.ms"));
        assertFalse(p.containsKey("heartbeat.interval.ms"));
        assertEquals("6000", p.get("max.poll.interval.ms"));
        accepted(p);
    }

    /** Why kip848() leaves them out: KafkaConsumer refuses each under group.protocol consumer. */
    @Test
    void kip848RefusesClientSideGroupSettings() {
        for (String[] kv : new String[][] {{"session.timeout.ms", "6000"}, {"heartbeat.interval.ms", "2000"},
                {"partition.assignment.strategy", "org.apache.kafka.clients.consumer.RangeAssignor"}}) {
            Properties p = GroupMember.consumerProperties(config("group_protocol", "consumer"), 0);
            p.put(kv[0], kv[1]);
            assertThrows(KafkaException.class, () -> accepted(p), kv[0]);
        }
    }

    @Test
    void badValues() {
        assertThrows(IllegalArgumentException.class, () -> config("group_protocol", "eager"));
        assertThrows(IllegalArgumentException.class, () -> GroupMember.assignorClass("sticki"));
    }
}
