package sharebench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * A member told to stop in the middle of a batch ends at once: its workers
 * are interrupted, and the records still queued for a worker come back to
 * the poll thread as abandoned (the poll thread waits for an outcome of
 * every record, so one dropped by the pool's shutdown held it, and the
 * client's close, forever: the runner was then killed by the harness).
 */
class StopTest {
    /** A member whose batch is 100 records of 10 s each on one worker. */
    static final class SlowMember extends Member {
        final CountDownLatch working = new CountDownLatch(1);
        final AtomicInteger finished = new AtomicInteger(), abandoned = new AtomicInteger();

        SlowMember(Main main) {
            super(main, 0);
        }

        @Override
        void run() throws Exception {
            List<Handled> batch = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                batch.add(new Handled(new ConsumerRecord<>("t", 0, i, new byte[0], new byte[0])));
            }
            processBatch(batch);
        }

        @Override
        void wakeup() {
        }

        @Override
        void handle(Handled h, SplittableRandom rng) {
            working.countDown();
            h.outcome = sleepNs(TimeUnit.SECONDS.toNanos(10)) ? ACCEPTED : ABANDONED;
        }

        @Override
        void finished(Handled h) {
            finished.incrementAndGet();
            if (h.outcome == ABANDONED) {
                abandoned.incrementAndGet();
            }
        }
    }

    @Test
    void stopEndsABatchWithRecordsQueued() throws Exception {
        RunnerConfig cfg = GroupPropertiesTest.config("type", "share");
        SlowMember m = new SlowMember(new Main(cfg, new Frames(new ByteArrayOutputStream(), 0)));
        m.start();
        assertTrue(m.working.await(10, TimeUnit.SECONDS));
        long t0 = System.nanoTime();
        m.stop();
        assertTrue(m.join(t0 + TimeUnit.SECONDS.toNanos(3)), "the member did not end within 3 s of stop");
        assertEquals(100, m.finished.get(), "records with an outcome");
        assertEquals(100, m.abandoned.get(), "records abandoned");
    }
}
