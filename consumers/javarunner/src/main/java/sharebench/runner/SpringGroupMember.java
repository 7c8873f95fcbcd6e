package sharebench.runner;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.AcknowledgingMessageListener;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ConsumerAwareRebalanceListener;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.support.Acknowledgment;

/**
 * A consumer-group member on Spring for Apache Kafka (client spring): one
 * ConcurrentMessageListenerContainer per member, its concurrency the run's
 * workers, so each worker is a child container with a KafkaConsumer of its
 * own (a group member of its own for the broker) that polls and runs the
 * listener on its records one after the other. The consumer properties are
 * a Java member's (GroupMember.consumerProperties); Spring suffixes the
 * client id and a static group.instance.id with the child's index.
 *
 * <p>commit after_processing runs AckMode.MANUAL: the listener acknowledges
 * a record once it is finished (processed, or dead-lettered), and the
 * container commits the acknowledged offsets after the batch, before its
 * next poll (commitSync, Spring's default), and on stop. commit auto runs
 * the client's enable.auto.commit and a plain listener: Spring commits
 * nothing itself. Transient failures are retried in place and poison
 * records dead-lettered (skipped), as GroupMember does.
 */
final class SpringGroupMember extends Member {
    private final SpringClients clients = new SpringClients(this);
    private final CountDownLatch woken = new CountDownLatch(1);

    SpringGroupMember(Main main, int id) {
        super(main, id);
    }

    @Override
    void run() throws Exception {
        Properties p = GroupMember.consumerProperties(cfg, id);
        p.remove("client.id"); // the container's: sharebench-spring-ID-N
        Map<String, Object> props = new HashMap<>();
        p.forEach((k, v) -> props.put((String) k, v));
        DefaultKafkaConsumerFactory<byte[], byte[]> factory =
                new DefaultKafkaConsumerFactory<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer(), false) {
                    @Override
                    protected Consumer<byte[], byte[]> createRawConsumer(Map<String, Object> configProps) {
                        return clients.wrap(Consumer.class, super.createRawConsumer(configProps));
                    }
                };
        ContainerProperties cp = new ContainerProperties(cfg.topic);
        cp.setGroupId(cfg.group);
        cp.setClientId("sharebench-spring-" + id);
        cp.setConsumerRebalanceListener(new ConsumerAwareRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> parts) {
                for (TopicPartition tp : parts) {
                    frames.write(Frames.ASSIGNED, 0, id, tp.partition(), null, clock.now(), 0);
                }
            }

            @Override
            public void onPartitionsRevokedAfterCommit(Consumer<?, ?> consumer, Collection<TopicPartition> parts) {
                gone(parts);
            }

            @Override
            public void onPartitionsLost(Consumer<?, ?> consumer, Collection<TopicPartition> parts) {
                gone(parts);
            }
        });
        if (cfg.autoCommit) {
            cp.setMessageListener((MessageListener<byte[], byte[]>) r -> onRecord(r, null));
        } else {
            cp.setAckMode(ContainerProperties.AckMode.MANUAL);
            cp.setMessageListener((AcknowledgingMessageListener<byte[], byte[]>) this::onRecord);
        }
        ClientSettings.report(main, p, false, SpringClients.settings("ConcurrentMessageListenerContainer", cfg.workers,
                cfg.autoCommit ? "none (enable.auto.commit)" : cp.getAckMode().name(), cp.isSyncCommits()));
        ConcurrentMessageListenerContainer<byte[], byte[]> c = new ConcurrentMessageListenerContainer<>(factory, cp);
        c.setBeanName("member-" + id); // its threads: member-ID-N-C-1
        c.setConcurrency(cfg.workers);
        c.start();
        woken.await();
        if (crashed) {
            return; // frozen: nothing more reaches the broker from this member
        }
        c.stop(); // the children finish their record (stopNow cuts it short), commit what is acknowledged, close
        clients.report();
        if (leaving) {
            frames.control(Frames.LEFT, id, 0, clock.now());
        }
    }

    private void gone(Collection<TopicPartition> parts) {
        if (crashed) {
            return;
        }
        for (TopicPartition tp : parts) {
            frames.write(Frames.REVOKED, 0, id, tp.partition(), null, clock.now(), 0);
        }
    }

    @Override
    void wakeup() {
        woken.countDown();
    }

    /** The listener: one record on the child container's thread. */
    private void onRecord(ConsumerRecord<byte[], byte[]> r, Acknowledgment ack) {
        if (crashed) {
            freeze();
            return;
        }
        Handled h = new Handled(r);
        try {
            handle(h, rng.get());
        } catch (RuntimeException e) {
            h.outcome = ABANDONED;
        }
        if (crashed) {
            freeze();
            return;
        }
        if (h.outcome == ABANDONED) {
            return; // unfinished: not acknowledged, so not committed (the member is stopping)
        }
        long now = clock.now();
        if (!h.foreign) {
            if (h.outcome == ACCEPTED) {
                frames.write(Frames.COMPLETION, 0, id, 0, h.st, now, h.delivered);
            } else if (h.outcome == REJECTED) {
                frames.write(Frames.REJECT, 0, id, 0, h.st, now, 0); // dead letter
            }
        }
        if (ack != null) {
            ack.acknowledge();
        }
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
        while (true) {
            if (!sleepNs(processingTime(rng))) {
                h.outcome = ABANDONED;
                return;
            }
            h.outcome = verdict(poison, rng);
            if (!write(h)) {
                if (crashed) {
                    h.outcome = ABANDONED;
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
