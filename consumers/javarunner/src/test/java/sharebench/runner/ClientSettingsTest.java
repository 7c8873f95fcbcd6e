package sharebench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fetch settings reach the client's properties, and the settings
 * reported are the client's resolution of them: the values set, and Kafka's
 * documented defaults (fetch.max.wait.ms 500, fetch.min.bytes 1,
 * fetch.max.bytes 52428800, max.partition.fetch.bytes 1048576,
 * session.timeout.ms 45000, heartbeat.interval.ms 3000,
 * max.poll.interval.ms 300000) where none was set.
 */
class ClientSettingsTest {
    /** A share member's properties as ShareMember builds them. */
    static Properties shareProperties(RunnerConfig cfg) {
        Properties p = new Properties();
        p.put("bootstrap.servers", cfg.bootstrap);
        p.put("group.id", cfg.group);
        p.put("share.acknowledgement.mode", cfg.ackMode);
        p.put("share.acquire.mode", cfg.acquireMode);
        p.put("max.poll.records", Integer.toString(cfg.maxPollRecords));
        ClientSettings.fetch(p, cfg);
        return p;
    }

    @Test
    void shareFetchSettingsSetAndResolved() {
        RunnerConfig cfg = GroupPropertiesTest.config("type", "share", "acquire_mode", "record_limit", "fetch_max_wait_ns", "100000000",
                "fetch_min_bytes", "10", "fetch_max_bytes", "2097152", "fetch_max_partition_bytes", "65536");
        Properties p = shareProperties(cfg);
        assertEquals("100", p.get("fetch.max.wait.ms"));
        assertEquals("10", p.get("fetch.min.bytes"));
        assertEquals("2097152", p.get("fetch.max.bytes"));
        assertEquals("65536", p.get("max.partition.fetch.bytes"));
        new KafkaShareConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer()).close(); // the client takes them
        assertEquals("{\"source\":\"kafka-clients ConsumerConfig\",\"fetch_max_wait_ms\":100,\"fetch_min_bytes\":10,"
                + "\"fetch_max_bytes\":2097152,\"fetch_max_partition_bytes\":65536,\"max_poll_records\":10,"
                + "\"share_acquire_mode\":\"record_limit\"}", ClientSettings.json(p, true));
    }

    @Test
    void shareDefaults() {
        Properties p = shareProperties(GroupPropertiesTest.config("type", "share"));
        assertFalse(p.containsKey("fetch.max.wait.ms"));
        assertEquals("{\"source\":\"kafka-clients ConsumerConfig\",\"fetch_max_wait_ms\":500,\"fetch_min_bytes\":1,"
                + "\"fetch_max_bytes\":52428800,\"fetch_max_partition_bytes\":1048576,\"max_poll_records\":10,"
                + "\"share_acquire_mode\":\"batch_optimized\"}", ClientSettings.json(p, true));
    }

    @Test
    void consumerGroupSettings() {
        Properties p = GroupMember.consumerProperties(GroupPropertiesTest.config("fetch_max_wait_ns", "100000000",
                "session_timeout_ns", "6000000000"), 0);
        assertEquals("{\"source\":\"kafka-clients ConsumerConfig\",\"fetch_max_wait_ms\":100,\"fetch_min_bytes\":1,"
                + "\"fetch_max_bytes\":52428800,\"fetch_max_partition_bytes\":1048576,\"max_poll_records\":10,"
                + "\"session_timeout_ms\":6000,\"heartbeat_interval_ms\":2000,\"max_poll_interval_ms\":6000}", ClientSettings.json(p, false));
        p = GroupMember.consumerProperties(GroupPropertiesTest.config(), 0);
        assertTrue(ClientSettings.json(p, false).endsWith(
                ",\"session_timeout_ms\":45000,\"heartbeat_interval_ms\":3000,\"max_poll_interval_ms\":300000}"));
        // KIP-848: the broker owns session and heartbeat, none is reported.
        p = GroupMember.consumerProperties(GroupPropertiesTest.config("group_protocol", "consumer"), 0);
        assertFalse(ClientSettings.json(p, false).contains("session_timeout_ms"));
    }

    /** The first member's settings are written; later members' are not. */
    @Test
    void reportWritesOnce(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("settings.json");
        RunnerConfig cfg = GroupPropertiesTest.config("type", "share", "settings_file", f.toString(), "fetch_max_wait_ns", "100000000");
        Main main = new Main(cfg, new Frames(new ByteArrayOutputStream(), 0));
        ClientSettings.report(main, shareProperties(cfg), true);
        String first = Files.readString(f);
        assertTrue(first.contains("\"fetch_max_wait_ms\":100"), first);
        ClientSettings.report(main, shareProperties(GroupPropertiesTest.config("type", "share")), true);
        assertEquals(first, Files.readString(f));
    }
}
