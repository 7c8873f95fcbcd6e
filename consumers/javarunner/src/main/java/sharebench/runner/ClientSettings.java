package sharebench.runner;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.internals.FetchConfig;
import org.apache.kafka.clients.consumer.internals.ShareFetchConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The client settings of the run, both ways: {@link #fetch} puts the
 * scenario's fetch settings on a member's properties (the same knobs
 * franz-go's members get, consumers.Fetch), and {@link #report} writes the
 * values the Java client resolves from those properties to the file the Go
 * harness reads into run.json's client.settings (results.ClientSettings).
 *
 * <p>The values are kafka-clients' own: the properties go through
 * {@code ConsumerConfig} ({@code ShareConsumerConfig} for a share member:
 * its defaults and parsing, as the client's constructor does), and the fetch values
 * are read from the {@code FetchConfig} / {@code ShareFetchConfig} the
 * KafkaConsumer / KafkaShareConsumer builds from that config, so what is
 * recorded is what the client sends in its fetch requests.
 */
final class ClientSettings {
    static final String SOURCE = "kafka-clients ConsumerConfig";

    private ClientSettings() {
    }

    /** Sets the fetch settings the config carries (0: left to the client's default). */
    static void fetch(Properties p, RunnerConfig cfg) {
        if (cfg.fetchMaxWaitNs > 0) {
            p.put("fetch.max.wait.ms", Long.toString(Math.max(1, TimeUnit.NANOSECONDS.toMillis(cfg.fetchMaxWaitNs))));
        }
        if (cfg.fetchMinBytes > 0) {
            p.put("fetch.min.bytes", Integer.toString(cfg.fetchMinBytes));
        }
        if (cfg.fetchMaxBytes > 0) {
            p.put("fetch.max.bytes", Integer.toString(cfg.fetchMaxBytes));
        }
        if (cfg.fetchMaxPartitionBytes > 0) {
            p.put("max.partition.fetch.bytes", Integer.toString(cfg.fetchMaxPartitionBytes));
        }
    }

    /** The settings the client resolves from p, as run.json's client.settings JSON. */
    static String json(Properties p, boolean share) {
        Map<String, Object> m = new HashMap<>();
        p.forEach((k, v) -> m.put((String) k, v));
        m.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        m.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        ConsumerConfig cc = share ? shareConsumerConfig(m) : new ConsumerConfig(m);
        StringBuilder b = new StringBuilder("{\"source\":\"").append(SOURCE).append('"');
        if (share) {
            ShareFetchConfig f = new ShareFetchConfig(cc);
            fetchFields(b, f.maxWaitMs, f.minBytes, f.maxBytes, f.fetchSize, f.maxPollRecords);
            b.append(",\"share_acquire_mode\":\"").append(f.shareAcquireMode.name).append('"');
        } else {
            FetchConfig f = new FetchConfig(cc);
            fetchFields(b, f.maxWaitMs, f.minBytes, f.maxBytes, f.fetchSize, f.maxPollRecords);
            if (!"consumer".equals(cc.getString(ConsumerConfig.GROUP_PROTOCOL_CONFIG))) {
                // KIP-848: the broker owns the session and heartbeat.
                b.append(",\"session_timeout_ms\":").append(cc.getInt(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
                b.append(",\"heartbeat_interval_ms\":").append(cc.getInt(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG));
            }
            b.append(",\"max_poll_interval_ms\":").append(cc.getInt(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG));
        }
        return b.append('}').toString();
    }

    /**
     * The ShareConsumerConfig KafkaShareConsumer builds from its properties
     * (its constructor is not public; ConsumerConfig itself refuses the
     * share.* settings under its default group.protocol classic).
     */
    static ConsumerConfig shareConsumerConfig(Map<String, Object> m) {
        try {
            Constructor<?> c = Class.forName("org.apache.kafka.clients.consumer.ShareConsumerConfig").getDeclaredConstructor(Map.class);
            c.setAccessible(true);
            return (ConsumerConfig) c.newInstance(m);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("kafka-clients has no ShareConsumerConfig(Map): " + e, e);
        }
    }

    private static void fetchFields(StringBuilder b, int maxWaitMs, int minBytes, int maxBytes, int partitionBytes, int maxPollRecords) {
        b.append(",\"fetch_max_wait_ms\":").append(maxWaitMs);
        b.append(",\"fetch_min_bytes\":").append(minBytes);
        b.append(",\"fetch_max_bytes\":").append(maxBytes);
        b.append(",\"fetch_max_partition_bytes\":").append(partitionBytes);
        b.append(",\"max_poll_records\":").append(maxPollRecords);
    }

    /**
     * Writes the settings of the first member that built its client to the
     * config's settings file (every member is configured alike); later calls
     * do nothing. A failure is reported on stderr: the run goes on without
     * them.
     */
    static void report(Main main, Properties p, boolean share) {
        report(main, p, share, "");
    }

    /**
     * As report, with more fields: extra is a JSON object's members
     * ({@code "spring":{...}}, a Spring member's container settings) added
     * after the client's.
     */
    static void report(Main main, Properties p, boolean share, String extra) {
        RunnerConfig cfg = main.cfg;
        if (cfg.settingsFile.isEmpty() || !main.settingsReported.compareAndSet(false, true)) {
            return;
        }
        Path dst = Path.of(cfg.settingsFile);
        try {
            Path tmp = Files.createTempFile(dst.toAbsolutePath().getParent(), "settings", ".tmp");
            String body = json(p, share);
            if (!extra.isEmpty()) {
                body = body.substring(0, body.length() - 1) + "," + extra + "}";
            }
            Files.writeString(tmp, body, StandardCharsets.UTF_8);
            Files.move(tmp, dst, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            System.err.println("java runner: client settings: " + e);
        }
    }
}
