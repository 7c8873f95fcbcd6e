package sharebench.runner;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.springframework.kafka.core.DefaultShareConsumerFactory;
import org.springframework.kafka.listener.AcknowledgingShareConsumerAwareMessageListener;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ShareKafkaMessageListenerContainer;
import org.springframework.kafka.support.ShareAcknowledgment;

/**
 * A share-group member on Spring for Apache Kafka (client spring): one
 * ShareKafkaMessageListenerContainer per member, its concurrency the run's
 * workers, so each worker is a container thread with a ShareConsumer of its
 * own that polls and runs the listener on the records it got, one after the
 * other. DefaultShareConsumerFactory makes the clients from the same
 * properties a Java member's KafkaShareConsumer gets.
 *
 * <p>ack_mode explicit runs the container in ShareAckMode.MANUAL: the
 * listener ends each record with ShareAcknowledgment acknowledge (ACCEPT),
 * release (a transient failure, RELEASE) or reject (poison, REJECT); the
 * container applies them before its next poll, which sends them. ack_mode
 * implicit runs ShareAckMode.IMPLICIT: the next poll accepts the batch.
 * renew auto is refused by the harness: the listener runs on the polling
 * thread, and Spring applies a ShareAcknowledgment.renew() only between
 * polls, after the whole batch was processed, so a lock cannot be renewed
 * while its record is being processed.
 */
final class SpringShareMember extends Member {
    private final SpringClients clients = new SpringClients(this);
    private final CountDownLatch woken = new CountDownLatch(1);
    private volatile ShareKafkaMessageListenerContainer<byte[], byte[]> container;

    SpringShareMember(Main main, int id) {
        super(main, id);
    }

    @Override
    void run() throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", cfg.bootstrap);
        p.put("group.id", cfg.group);
        p.put("share.acknowledgement.mode", cfg.ackMode);
        p.put("share.acquire.mode", cfg.acquireMode);
        p.put("max.poll.records", Integer.toString(cfg.maxPollRecords));
        ClientSettings.fetch(p, cfg);
        RequestMetrics.configure(p);
        ClientSecurity.apply(p);
        Map<String, Object> props = new HashMap<>();
        p.forEach((k, v) -> props.put((String) k, v));
        DefaultShareConsumerFactory<byte[], byte[]> factory =
                new DefaultShareConsumerFactory<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer(), false) {
                    @Override
                    protected ShareConsumer<byte[], byte[]> createRawConsumer(String groupId, String clientId, Map<String, Object> overrides) {
                        return clients.wrap(ShareConsumer.class, super.createRawConsumer(groupId, clientId, overrides));
                    }
                };
        ContainerProperties cp = new ContainerProperties(cfg.topic);
        cp.setGroupId(cfg.group);
        cp.setShareAckMode(cfg.explicit() ? ContainerProperties.ShareAckMode.MANUAL : ContainerProperties.ShareAckMode.IMPLICIT);
        cp.setAcknowledgementCommitCallback((offsets, ex) -> {
            if (ex != null && !crashed) {
                frames.write(Frames.ACK_ERROR, 0, id, 1, null, clock.now(), 0);
            }
        });
        cp.setMessageListener((AcknowledgingShareConsumerAwareMessageListener<byte[], byte[]>) this::onRecord);
        ClientSettings.report(main, p, true, SpringClients.settings("ShareKafkaMessageListenerContainer", cfg.workers,
                cp.getShareAckMode().name(), cp.isSyncShareCommits()));
        ShareKafkaMessageListenerContainer<byte[], byte[]> c = new ShareKafkaMessageListenerContainer<>(factory, cp);
        c.setBeanName("member-" + id); // its threads: member-ID-C-N
        c.setClientId("sharebench-spring-" + id);
        c.setConcurrency(cfg.workers);
        container = c;
        c.start();
        woken.await();
        if (crashed) {
            return; // frozen: nothing more reaches the broker from this member
        }
        c.stop(); // the threads finish their batch (stopNow cuts processing short), send what is acknowledged, close
        clients.report();
        if (leaving) {
            frames.control(Frames.LEFT, id, 0, clock.now());
        }
    }

    @Override
    void wakeup() {
        woken.countDown();
    }

    /** The listener: one record on the container thread that polled it. */
    private void onRecord(ConsumerRecord<byte[], byte[]> r, ShareAcknowledgment ack, ShareConsumer<?, ?> consumer) {
        if (crashed) {
            freeze();
            return;
        }
        Handled h = new Handled(r);
        long polled = clients.polledAt();
        long lockNs = consumer.acquisitionLockTimeoutMs().map(ms -> TimeUnit.MILLISECONDS.toNanos(ms)).orElse(0L);
        h.deadline = lockNs > 0 && polled > 0 ? polled + lockNs : 0;
        try {
            handle(h, rng.get());
        } catch (RuntimeException e) {
            h.outcome = ABANDONED;
        }
        if (crashed) {
            freeze();
            return;
        }
        finish(h, ack);
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
        if (!sleepNs(processingTime(rng))) {
            h.outcome = ABANDONED;
            return;
        }
        h.outcome = verdict(poison, rng);
        if (!write(h)) {
            h.outcome = cfg.explicit() && !crashed ? RELEASED : ABANDONED; // handed back, never dropped
        }
    }

    /** Acknowledges the record (explicit) and writes what became of it, as ShareMember.finished and settle. */
    private void finish(Handled h, ShareAcknowledgment ack) {
        long now = clock.now();
        if (!cfg.explicit()) {
            if (h.foreign) {
                return;
            }
            switch (h.outcome) {
                case ACCEPTED -> frames.write(Frames.COMPLETION, h.lockExpired(now) ? Frames.FLAG_LOCK_EXPIRED : 0, id, 0, h.st, now, h.delivered);
                case REJECTED -> frames.write(Frames.REJECT, 0, id, 0, h.st, now, 0);
                default -> {
                }
            }
            return;
        }
        switch (h.outcome) {
            case ACCEPTED -> {
                ack.acknowledge();
                if (!h.foreign) {
                    frames.write(Frames.COMPLETION, h.lockExpired(now) ? Frames.FLAG_LOCK_EXPIRED : 0, id, 0, h.st, now, h.delivered);
                }
            }
            case RELEASED -> {
                ack.release();
                int count = h.r.deliveryCount().map(Short::intValue).orElse(0);
                frames.write(Frames.RELEASE, count >= cfg.deliveryLimit ? Frames.FLAG_ARCHIVED : 0, id, 0, h.st, now, 0);
            }
            case REJECTED -> {
                ack.reject();
                frames.write(Frames.REJECT, 0, id, 0, h.st, now, 0);
            }
            default -> ack.release(); // unprocessed: never accept it
        }
    }

    /** A crashed member's container thread stops here, as a frozen process would, until the runner stops. */
    private void freeze() {
        while (!stopNow) {
            LockSupport.parkNanos(this, 100_000_000L);
        }
    }

    @Override
    void finished(Handled h) {
    }
}
