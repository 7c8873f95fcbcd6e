package sharebench.runner;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The fleet's configuration, written by the Go harness as a properties
 * file (consumers/java_fleet.go, runnerProperties): the same fields as
 * consumers.Config. Durations are nanoseconds.
 */
public final class RunnerConfig {
    public final String bootstrap, topic, group, type, acquireMode, ackMode;
    /** The client the members run on: java (KafkaShareConsumer, KafkaConsumer) or spring (Spring for Apache Kafka's containers). */
    public final String client;
    /** Consumer-group knobs (consumers.GroupKnobs). */
    public final String groupProtocol, remoteAssignor, assignor;
    public final boolean staticMembership, autoCommit;
    public final long autoCommitIntervalNs;
    public final int workers, maxPollRecords, deliveryLimit;
    public final double transientRate, poisonRate;
    /** The share of records that wedge their worker until the member stops (consumers.Config.StuckRate). */
    public final double stuckRate;
    public final boolean renew;
    public final long closeTimeoutNs, sessionTimeoutNs, run;
    public final Processing processing;
    /** Fetch settings (consumers.Fetch; 0: the client's default). */
    public final long fetchMaxWaitNs;
    public final int fetchMinBytes, fetchMaxBytes, fetchMaxPartitionBytes;
    /** Where the first member writes the client settings it resolved (ClientSettings); "" for none. */
    public final String settingsFile;
    /** The run's destination, written to after processing (Destination); null when it has none. */
    public final Destination destination;

    public RunnerConfig(Properties p) {
        bootstrap = req(p, "bootstrap");
        topic = req(p, "topic");
        group = req(p, "group");
        type = req(p, "type");
        client = p.getProperty("client", "java");
        acquireMode = p.getProperty("acquire_mode", "batch_optimized");
        ackMode = p.getProperty("ack_mode", "explicit");
        workers = Integer.parseInt(req(p, "workers"));
        maxPollRecords = Integer.parseInt(req(p, "max_poll_records"));
        deliveryLimit = Integer.parseInt(p.getProperty("delivery_limit", "5"));
        transientRate = Double.parseDouble(p.getProperty("transient_rate", "0"));
        poisonRate = Double.parseDouble(p.getProperty("poison_rate", "0"));
        stuckRate = Double.parseDouble(p.getProperty("stuck_rate", "0"));
        renew = Boolean.parseBoolean(p.getProperty("renew", "false"));
        closeTimeoutNs = Long.parseLong(p.getProperty("close_timeout_ns", "10000000000"));
        sessionTimeoutNs = Long.parseLong(p.getProperty("session_timeout_ns", "0"));
        run = Long.parseUnsignedLong(req(p, "run"));
        groupProtocol = p.getProperty("group_protocol", "classic");
        remoteAssignor = p.getProperty("remote_assignor", "uniform");
        assignor = p.getProperty("assignor", "cooperative-sticky");
        staticMembership = Boolean.parseBoolean(p.getProperty("static_membership", "false"));
        autoCommit = Boolean.parseBoolean(p.getProperty("auto_commit", "false"));
        autoCommitIntervalNs = Long.parseLong(p.getProperty("auto_commit_interval_ns", "5000000000"));
        fetchMaxWaitNs = ns(p, "fetch_max_wait_ns");
        fetchMinBytes = Integer.parseInt(p.getProperty("fetch_min_bytes", "0"));
        fetchMaxBytes = Integer.parseInt(p.getProperty("fetch_max_bytes", "0"));
        fetchMaxPartitionBytes = Integer.parseInt(p.getProperty("fetch_max_partition_bytes", "0"));
        settingsFile = p.getProperty("settings_file", "");
        destination = Destination.of(p);
        processing = new Processing(p.getProperty("processing.model", "none"), ns(p, "processing.time"), ns(p, "processing.min"),
                ns(p, "processing.max"), ns(p, "processing.mean"), ns(p, "processing.median"), ns(p, "processing.p99"));
        if (!type.equals("share") && !type.equals("consumer")) {
            throw new IllegalArgumentException("type: expected share or consumer, got " + type);
        }
        if (!client.equals("java") && !client.equals("spring")) {
            throw new IllegalArgumentException("client: expected java or spring, got " + client);
        }
        if (!groupProtocol.equals("classic") && !groupProtocol.equals("consumer")) {
            throw new IllegalArgumentException("group_protocol: expected classic or consumer, got " + groupProtocol);
        }
    }

    public static RunnerConfig load(String path) throws IOException {
        Properties p = new Properties();
        try (InputStream in = new FileInputStream(path)) {
            p.load(in);
        }
        return new RunnerConfig(p);
    }

    public boolean share() {
        return type.equals("share");
    }

    public boolean spring() {
        return client.equals("spring");
    }

    public boolean explicit() {
        return ackMode.equals("explicit");
    }

    private static String req(Properties p, String key) {
        String v = p.getProperty(key);
        if (v == null) {
            throw new IllegalArgumentException("config: missing " + key);
        }
        return v;
    }

    private static long ns(Properties p, String key) {
        return Long.parseLong(p.getProperty(key, "0"));
    }
}
