package sharebench.runner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * <p>Renewal (renew auto, explicit mode; processRenewing): kafka-clients 4.2
 * moves a record acknowledged RENEW out of the batch until a later poll hands
 * it back, and only then can it be acknowledged again. A poll in explicit
 * mode throws unless every record it handed out is acknowledged. So while a
 * batch is being processed, the poll thread renews every record whose worker
 * is still busy, all at once, sends them with commitSync and then polls:
 * that poll hands back the renewed records and fetches nothing new (a poll
 * that finds a renewal outstanding returns only renewed records, but asks
 * the background thread for more, which would then wait in the buffer with
 * their locks running). A worker that finishes a record still
 * out for renewal waits on the poll thread, which acknowledges it once it
 * is back.
 */
final class ShareMember extends Member {
    static final long MIN_RENEW_GAP = 5_000_000L;
    static final long RENEW_TIMEOUT_NS = 1_000_000_000L;
    /** A renewal poll's timeout: it returns as soon as a renewed record is back. */
    static final Duration RENEW_POLL = Duration.ofMillis(10);
    /** Bounds the wait for the broker's answer to a round's RENEWs. */
    static final Duration RENEW_COMMIT = Duration.ofSeconds(5);
    /** After a stop, how long the poll thread waits for records out for renewal. */
    static final long STOP_RENEW_WAIT_NS = 1_000_000_000L;

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
        ClientSettings.fetch(p, cfg);
        RequestMetrics.configure(p);
        ClientSecurity.apply(p);
        c = new KafkaShareConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        ClientSettings.report(main, p, true);
        c.setAcknowledgementCommitCallback((offsets, ex) -> {
            if (ex != null && !crashed) {
                frames.write(Frames.ACK_ERROR, 0, id, 1, null, clock.now(), 0);
            }
        });
        c.subscribe(List.of(cfg.topic));
        try {
            loop();
        } finally {
            reportRequests(c::metrics);
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
            if (renewing()) {
                processRenewing(batch);
            } else {
                processBatch(batch);
            }
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
        if (h.st.isStuck(cfg.stuckRate)) {
            wedge(h);
            return;
        }
        boolean poison = h.st.isPoison(cfg.poisonRate);
        if (!process(h, processingTime(rng))) {
            h.outcome = ABANDONED;
            return;
        }
        h.outcome = verdict(poison, rng);
        if (!write(h)) {
            // Handed back, never dropped: explicit mode RELEASEs it in finished;
            // in implicit mode it stays unaccepted.
            h.outcome = cfg.explicit() && !crashed ? RELEASED : ABANDONED;
        }
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

    /**
     * The blocking loop with renewal: serves the workers until every record
     * of the batch is finished and acknowledged. A worker's renewal request
     * starts a renewal round (renewRound) once the done queue is empty; a
     * finished record that is out for renewal waits for a round to hand it
     * back.
     */
    private void processRenewing(List<Handled> batch) throws InterruptedException {
        Map<Long, Handled> byKey = new HashMap<>();
        for (Handled h : batch) {
            byKey.put(key(h.r.partition(), h.r.offset()), h);
        }
        int pending = submit(batch);
        List<Renew> asked = new ArrayList<>();
        List<Handled> waiting = new ArrayList<>(); // finished, out for renewal
        long stoppedAt = 0;
        while (pending > 0 || !waiting.isEmpty()) {
            boolean needPoll = !asked.isEmpty() || !waiting.isEmpty();
            Object o = needPoll ? done.poll() : done.take();
            if (o instanceof Renew q) {
                if (crashed || stopNow) {
                    q.served.countDown();
                } else {
                    asked.add(q);
                }
                continue;
            }
            if (o instanceof Handled h) {
                pending--;
                h.workerDone = true;
                if (h.renewing) {
                    waiting.add(h);
                } else {
                    finished(h);
                }
                continue;
            }
            if (crashed) {
                return; // nothing more reaches the broker
            }
            if (stopNow) {
                for (Renew q : asked) {
                    q.served.countDown();
                }
                asked.clear();
                if (stoppedAt == 0) {
                    stoppedAt = clock.now();
                } else if (clock.now() - stoppedAt > STOP_RENEW_WAIT_NS) {
                    return; // the rest come back when their locks expire, or on close
                }
            }
            if (!renewRound(batch, byKey, asked)) {
                return; // woken for a stop
            }
            asked.clear();
            for (var it = waiting.iterator(); it.hasNext(); ) {
                Handled h = it.next();
                if (!h.renewing) {
                    finished(h);
                    it.remove();
                }
            }
        }
    }

    private static long key(int partition, long offset) {
        return ((long) partition << 48) ^ offset;
    }

    /**
     * One renewal round: acknowledges RENEW on every record of the batch
     * whose worker is still busy and that is not out for renewal already
     * (a poll needs every handed-out record acknowledged), serves the
     * workers' requests, and polls once, which sends the RENEWs and hands
     * back the records whose renewal completed. Returns false when a stop
     * woke the poll.
     */
    private boolean renewRound(List<Handled> batch, Map<Long, Handled> byKey, List<Renew> asked) {
        long now = clock.now();
        for (Handled h : batch) {
            if (h.workerDone || h.renewing) {
                continue;
            }
            try {
                c.acknowledge(h.r, AcknowledgeType.RENEW);
                h.renewing = true;
                frames.write(Frames.RENEWAL, 0, id, 0, null, now, 0);
            } catch (RuntimeException e) {
                System.err.println("java runner: member " + id + ": renew: " + e);
            }
        }
        boolean out = false;
        for (Handled h : batch) {
            out |= h.renewing;
        }
        for (Renew q : asked) {
            q.ok = q.h.renewing;
            q.served.countDown();
        }
        if (!out) {
            return true; // nothing out for renewal: a poll now would hand out new records
        }
        ConsumerRecords<byte[], byte[]> back;
        try {
            // Send the RENEWs and wait for the broker first: a poll that finds
            // a renewal still outstanding also asks the background thread for
            // more records, which would then sit in the buffer, their locks
            // running, until this batch is done (prefetch).
            c.commitSync(RENEW_COMMIT);
            back = c.poll(RENEW_POLL);
        } catch (WakeupException | InterruptException e) {
            return !stopNow;
        } catch (KafkaException e) {
            frames.write(Frames.POLL_ERROR, 0, id, 0, null, clock.now(), 0);
            return true;
        }
        long at = clock.now();
        Optional<Integer> lock = c.acquisitionLockTimeoutMs();
        lock.ifPresent(ms -> lockNs = TimeUnit.MILLISECONDS.toNanos(ms));
        for (ConsumerRecord<byte[], byte[]> r : back) {
            Handled h = byKey.get(key(r.partition(), r.offset()));
            if (h == null || !h.renewing) {
                // Not one this member renewed: give it back rather than hold it unseen.
                System.err.println("java runner: member " + id + ": a renewal poll handed out partition " + r.partition()
                        + " offset " + r.offset() + ", not a renewed record; released");
                c.acknowledge(r, AcknowledgeType.RELEASE);
                continue;
            }
            h.r = r;
            h.renewing = false;
            h.deadline = lockNs > 0 ? at + lockNs : 0;
        }
        return true;
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
