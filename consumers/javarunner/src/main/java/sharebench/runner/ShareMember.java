package sharebench.runner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A share-group member on KafkaShareConsumer, as consumers/share_member.go:
 * share.acquire.mode and share.acknowledgement.mode from the config; explicit
 * mode ACCEPTs, RELEASEs or REJECTs each record as its worker finishes;
 * implicit mode lets the next poll accept the batch.
 *
 * <p>Renewal (process, renew) is not enabled: the harness refuses client java
 * with renew auto. Kafka 4.2's client moves a record acknowledged RENEW out
 * of the batch and hands it back in a later poll, where it must be
 * acknowledged again; this blocking loop does not poll while it holds a
 * batch, so the final ACCEPT of a renewed record fails ("The record cannot
 * be acknowledged").
 */
final class ShareMember extends Member {
    static final long MIN_RENEW_GAP = 5_000_000L;
    static final long RENEW_TIMEOUT_NS = 1_000_000_000L;

    private volatile KafkaShareConsumer<byte[], byte[]> c;
    private volatile long lockNs;

    ShareMember(Main main, int id) {
        super(main, id);
    }

    @Override
    void run() throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", cfg.bootstrap);
        p.put("group.id", cfg.group);
        p.put("client.id", "sharebench-java-" + id);
        p.put("share.acknowledgement.mode", cfg.ackMode);
        p.put("share.acquire.mode", cfg.acquireMode);
        p.put("max.poll.records", Integer.toString(cfg.maxPollRecords));
        ClientSecurity.apply(p);
        c = new KafkaShareConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        c.setAcknowledgementCommitCallback((offsets, ex) -> {
            if (ex != null && !crashed) {
                frames.write(Frames.ACK_ERROR, 0, id, 1, null, clock.now(), 0);
            }
        });
        c.subscribe(List.of(cfg.topic));
        try {
            loop();
        } finally {
            if (!crashed) {
                close();
            }
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
            long now = clock.now();
            Optional<Integer> lock = c.acquisitionLockTimeoutMs();
            lock.ifPresent(ms -> lockNs = TimeUnit.MILLISECONDS.toNanos(ms));
            List<Handled> batch = new ArrayList<>(n);
            for (ConsumerRecord<byte[], byte[]> r : recs) {
                Handled h = new Handled(r);
                h.deadline = lockNs > 0 ? now + lockNs : 0;
                batch.add(h);
            }
            processBatch(batch);
            settle(batch);
        }
    }

    private void close() {
        try {
            c.close(Duration.ofNanos(cfg.closeTimeoutNs));
        } catch (RuntimeException e) {
            System.err.println("java runner: member " + id + ": close: " + e);
        }
        if (leaving) {
            frames.control(Frames.LEFT, id, 0, clock.now());
        }
    }

    @Override
    void wakeup() {
        KafkaShareConsumer<byte[], byte[]> cc = c;
        if (cc != null) {
            cc.wakeup();
        }
    }

    private boolean renewing() {
        return cfg.explicit() && cfg.renew;
    }

    @Override
    void handle(Handled h, SplittableRandom rng) {
        if (!begin(h)) {
            return;
        }
        boolean poison = h.st.isPoison(cfg.poisonRate);
        if (!process(h, processingTime(rng))) {
            h.outcome = ABANDONED;
            return;
        }
        h.outcome = verdict(poison, rng);
    }

    /**
     * One processing attempt of d ns; with renewal it wakes at the renewal
     * points (half of the time left until the deadline) and renews, without
     * lengthening the attempt. Reports whether it finished.
     */
    private boolean process(Handled h, long d) {
        if (!renewing() || h.deadline == 0) {
            return sleepNs(d);
        }
        long end = clock.now() + d;
        while (true) {
            long now = clock.now();
            if (now >= end) {
                return !stopNow;
            }
            long renewAt = now + Math.max((h.deadline - now) / 2, MIN_RENEW_GAP);
            if (renewAt >= end) {
                return sleepNs(end - now);
            }
            if (!sleepNs(renewAt - now)) {
                return false;
            }
            long sent = clock.now();
            Renew q = new Renew(h);
            done.add(q);
            try {
                if (q.served.await(RENEW_TIMEOUT_NS, TimeUnit.NANOSECONDS) && q.ok && lockNs > 0) {
                    h.deadline = Math.max(h.deadline, sent + lockNs);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    @Override
    void renew(Renew q) {
        if (!crashed && !stopNow) {
            try {
                c.acknowledge(q.h.r, AcknowledgeType.RENEW);
                c.commitAsync();
                frames.write(Frames.RENEWAL, 0, id, 0, null, clock.now(), 0);
                q.ok = true;
            } catch (RuntimeException e) {
                System.err.println("java runner: member " + id + ": renew: " + e);
            }
        }
        q.served.countDown();
    }

    /** Explicit mode: acknowledges the record as its worker finishes. */
    @Override
    void finished(Handled h) {
        if (!cfg.explicit() || crashed) {
            return;
        }
        long now = clock.now();
        switch (h.outcome) {
            case ACCEPTED -> {
                c.acknowledge(h.r, AcknowledgeType.ACCEPT);
                if (!h.foreign) {
                    frames.write(Frames.COMPLETION, h.lockExpired(now) ? Frames.FLAG_LOCK_EXPIRED : 0, id, 0, h.st, now, h.delivered);
                }
            }
            case RELEASED -> {
                c.acknowledge(h.r, AcknowledgeType.RELEASE);
                int count = h.r.deliveryCount().map(Short::intValue).orElse(0);
                frames.write(Frames.RELEASE, count >= cfg.deliveryLimit ? Frames.FLAG_ARCHIVED : 0, id, 0, h.st, now, 0);
            }
            case REJECTED -> {
                c.acknowledge(h.r, AcknowledgeType.REJECT);
                frames.write(Frames.REJECT, 0, id, 0, h.st, now, 0);
            }
            default -> c.acknowledge(h.r, AcknowledgeType.RELEASE); // unprocessed: never accept it
        }
    }

    /** Implicit mode: the next poll's ACCEPT completes the batch. */
    private void settle(List<Handled> batch) {
        if (cfg.explicit() || crashed) {
            return;
        }
        long now = clock.now();
        for (Handled h : batch) {
            if (h.foreign) {
                continue;
            }
            switch (h.outcome) {
                case ACCEPTED -> frames.write(Frames.COMPLETION, h.lockExpired(now) ? Frames.FLAG_LOCK_EXPIRED : 0, id, 0, h.st, now, h.delivered);
                case REJECTED -> frames.write(Frames.REJECT, 0, id, 0, h.st, now, 0);
                default -> {
                }
            }
        }
    }
}
