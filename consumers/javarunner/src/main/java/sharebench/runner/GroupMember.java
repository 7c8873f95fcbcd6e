package sharebench.runner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A consumer-group member on KafkaConsumer, as consumers/group_member.go:
 * the group protocol, assignor, membership and commit mode of
 * consumers.GroupKnobs (consumerProperties); transient failures retried in place, poison records
 * dead-lettered (skipped); after each batch the contiguous completed prefix
 * of each partition is committed asynchronously, and synchronously on close.
 * Rebalances happen inside poll, so at a batch boundary, as franz-go's
 * BlockRebalanceOnPoll.
 */
final class GroupMember extends Member {
    private volatile KafkaConsumer<byte[], byte[]> c;
    private final Map<TopicPartition, OffsetAndMetadata> latest = new HashMap<>();

    GroupMember(Main main, int id) {
        super(main, id);
    }

    @Override
    void run() throws Exception {
        Properties p = consumerProperties(cfg, id);
        c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        ClientSettings.report(main, p, false);
        c.subscribe(List.of(cfg.topic), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> parts) {
                for (TopicPartition tp : parts) {
                    frames.write(Frames.ASSIGNED, 0, id, tp.partition(), null, clock.now(), 0);
                }
            }

            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> parts) {
                gone(parts);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> parts) {
                gone(parts);
            }
        });
        try {
            loop();
        } finally {
            reportRequests(c::metrics);
            if (!crashed) {
                close();
            }
        }
    }

    /**
     * The KafkaConsumer settings of member id: the group protocol (classic
     * with partition.assignment.strategy, or KIP-848's consumer with
     * group.remote.assignor: the Java client refuses a client-side
     * assignor, session.timeout.ms and heartbeat.interval.ms there, the
     * broker owns them), static membership (group.instance.id
     * sharebench-ID, as franz-go's members), and the commit mode.
     */
    static Properties consumerProperties(RunnerConfig cfg, int id) {
        Properties p = new Properties();
        p.put("bootstrap.servers", cfg.bootstrap);
        p.put("group.id", cfg.group);
        p.put("client.id", "sharebench-java-" + id);
        p.put("group.protocol", cfg.groupProtocol);
        boolean kip848 = cfg.groupProtocol.equals("consumer");
        if (kip848) {
            p.put("group.remote.assignor", cfg.remoteAssignor);
        } else {
            p.put("partition.assignment.strategy", assignorClass(cfg.assignor));
        }
        if (cfg.staticMembership) {
            p.put("group.instance.id", "sharebench-" + id);
        }
        p.put("enable.auto.commit", Boolean.toString(cfg.autoCommit));
        if (cfg.autoCommit) {
            p.put("auto.commit.interval.ms", Long.toString(Math.max(1, TimeUnit.NANOSECONDS.toMillis(cfg.autoCommitIntervalNs))));
        }
        p.put("auto.offset.reset", "earliest");
        p.put("max.poll.records", Integer.toString(cfg.maxPollRecords));
        ClientSettings.fetch(p, cfg);
        RequestMetrics.configure(p);
        ClientSecurity.apply(p);
        if (cfg.sessionTimeoutNs > 0) {
            long ms = TimeUnit.NANOSECONDS.toMillis(cfg.sessionTimeoutNs);
            if (!kip848) {
                p.put("session.timeout.ms", Long.toString(ms));
                p.put("heartbeat.interval.ms", Long.toString(ms / 3));
            }
            // A crashed Java member stops polling but its heartbeat thread
            // lives on: it leaves after max.poll.interval.ms, so that is
            // bounded by the session timeout too (see docs/how-to/compare-clients.md).
            p.put("max.poll.interval.ms", Long.toString(ms));
        }
        return p;
    }

    /** The classic assignor's class, as franz-go's balancers. */
    static String assignorClass(String name) {
        switch (name) {
            case "cooperative-sticky":
                return "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
            case "sticky":
                return "org.apache.kafka.clients.consumer.StickyAssignor";
            case "range":
                return "org.apache.kafka.clients.consumer.RangeAssignor";
            case "roundrobin":
                return "org.apache.kafka.clients.consumer.RoundRobinAssignor";
            default:
                throw new IllegalArgumentException("assignor: expected cooperative-sticky, sticky, range or roundrobin, got " + name);
        }
    }

    private void gone(Collection<TopicPartition> parts) {
        for (TopicPartition tp : parts) {
            if (!crashed) {
                frames.write(Frames.REVOKED, 0, id, tp.partition(), null, clock.now(), 0);
            }
            latest.remove(tp);
        }
    }

    private void loop() throws InterruptedException {
        while (!stopPolling) {
            ConsumerRecords<byte[], byte[]> recs;
            try {
                recs = c.poll(POLL_TIMEOUT);
            } catch (WakeupException | InterruptException e) {
                break;
            } catch (KafkaException e) {
                if (stopPolling) {
                    break;
                }
                frames.write(Frames.POLL_ERROR, 0, id, 0, null, clock.now(), 0);
                sleepNs(100_000_000L);
                continue;
            }
            int n = recs.count();
            frames.write(Frames.POLL, 0, id, n, null, clock.now(), 0);
            if (n == 0) {
                continue;
            }
            List<Handled> batch = new ArrayList<>(n);
            for (ConsumerRecord<byte[], byte[]> r : recs) {
                batch.add(new Handled(r));
            }
            processBatch(batch);
            settle(batch);
        }
    }

    @Override
    void wakeup() {
        KafkaConsumer<byte[], byte[]> cc = c;
        if (cc != null) {
            cc.wakeup();
        }
    }

    @Override
    void handle(Handled h, SplittableRandom rng) {
        if (!begin(h)) {
            return;
        }
        if (h.st.isStuck(cfg.stuckRate)) {
            wedge(h); // unfinished: the committed prefix stops before it
            return;
        }
        boolean poison = h.st.isPoison(cfg.poisonRate);
        while (true) {
            if (!sleepNs(processingTime(rng))) {
                h.outcome = ABANDONED; // unfinished: the committed prefix stops before it
                return;
            }
            h.outcome = verdict(poison, rng);
            if (!write(h)) {
                if (crashed) {
                    h.outcome = ABANDONED; // a crashed member writes nothing more
                    return;
                }
                h.outcome = RELEASED; // a failed write is retried in place, as a transient failure
            }
            if (h.outcome != RELEASED) {
                return;
            }
            frames.write(Frames.RETRY, 0, id, 0, null, clock.now(), 0);
        }
    }

    @Override
    void finished(Handled h) {
    }

    /**
     * Records the batch's completions (and dead letters) now and commits
     * each partition's contiguous finished prefix, in delivery order.
     */
    private void settle(List<Handled> batch) {
        if (crashed) {
            return;
        }
        long now = clock.now();
        Map<TopicPartition, OffsetAndMetadata> offs = new HashMap<>();
        Set<TopicPartition> stopped = new HashSet<>();
        for (Handled h : batch) {
            TopicPartition tp = new TopicPartition(h.r.topic(), h.r.partition());
            if (h.outcome == ABANDONED) {
                stopped.add(tp);
                continue;
            }
            if (!h.foreign) {
                if (h.outcome == ACCEPTED) {
                    frames.write(Frames.COMPLETION, 0, id, 0, h.st, now, h.delivered);
                } else if (h.outcome == REJECTED) {
                    frames.write(Frames.REJECT, 0, id, 0, h.st, now, 0); // dead letter
                }
            }
            if (!stopped.contains(tp)) {
                offs.put(tp, new OffsetAndMetadata(h.r.offset() + 1, h.r.leaderEpoch(), ""));
            }
        }
        if (offs.isEmpty()) {
            return;
        }
        latest.putAll(offs);
        if (cfg.autoCommit) {
            return; // KafkaConsumer commits what earlier polls returned (processed) every auto.commit.interval.ms
        }
        c.commitAsync(offs, (o, ex) -> {
            if (ex != null && !crashed && !stopNow) {
                frames.write(Frames.ACK_ERROR, 0, id, 1, null, clock.now(), 0);
            }
        });
    }

    /** Commits what is complete and closes the client, both within one close timeout. */
    private void close() {
        long end = System.nanoTime() + cfg.closeTimeoutNs;
        try {
            if (!latest.isEmpty()) {
                c.commitSync(latest, Duration.ofNanos(cfg.closeTimeoutNs));
            }
        } catch (RuntimeException e) {
            frames.write(Frames.ACK_ERROR, 0, id, 1, null, clock.now(), 0);
        }
        try {
            c.close(Duration.ofNanos(Math.max(0, end - System.nanoTime())));
        } catch (RuntimeException e) {
            System.err.println("java runner: member " + id + ": close: " + e);
        }
        if (leaving) {
            frames.control(Frames.LEFT, id, 0, clock.now());
        }
    }
}
