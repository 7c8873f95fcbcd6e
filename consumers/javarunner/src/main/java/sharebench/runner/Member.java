package sharebench.runner;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * What both group types share, as consumers/member.go: a poll thread that
 * owns the client (Kafka clients are single-threaded), a pool of workers, the
 * blocking poll loop's batch handling, outcome draws and delivery frames.
 *
 * <p>Workers never touch the client: they hand finished records, and renewal
 * requests, back to the poll thread through a queue, and the poll thread
 * acknowledges (or commits) them.
 */
abstract class Member {
    static final Duration POLL_TIMEOUT = Duration.ofSeconds(1);
    static final int ABANDONED = 0, ACCEPTED = 1, RELEASED = 2, REJECTED = 3;

    final Main main;
    final int id;
    final RunnerConfig cfg;
    final Frames frames;
    final Clock clock;
    final ExecutorService pool;
    final LinkedBlockingQueue<Object> done = new LinkedBlockingQueue<>();
    private final Thread thread;
    private final AtomicInteger workerSeq = new AtomicInteger();
    /** Workers wedged on a stuck record (wedge). */
    final AtomicInteger wedged = new AtomicInteger();
    /** Per-thread outcome draws (a worker's, or a Spring container thread's). */
    final ThreadLocal<SplittableRandom> rng;
    /** The member's writer to the run's destination; null when the run has none. */
    private Destination.Writer writer;

    /** stopPolling: leave or stop; stopNow: abort processing (stop, crash). */
    volatile boolean stopPolling, stopNow, crashed, leaving;

    /** One record of a batch: what its worker made of it. */
    static final class Handled {
        /** The record; a share member swaps in the copy a later poll hands back after a RENEW. */
        volatile ConsumerRecord<byte[], byte[]> r;
        Stamp st;
        long delivered; // runner clock ns
        volatile int outcome = ABANDONED;
        boolean foreign;
        volatile long deadline; // estimated acquisition deadline, runner clock ns (share; 0 = none)
        // Poll thread only (share renewal): acknowledged RENEW and not handed
        // back by a poll yet, so not acknowledgeable; its worker is done.
        boolean renewing, workerDone;

        Handled(ConsumerRecord<byte[], byte[]> r) {
            this.r = r;
        }

        boolean lockExpired(long now) {
            return deadline > 0 && now > deadline;
        }
    }

    /** A worker's request to renew a record's lock, served by the poll thread. */
    static final class Renew {
        final Handled h;
        final CountDownLatch served = new CountDownLatch(1);
        volatile boolean ok;

        Renew(Handled h) {
            this.h = h;
        }
    }

    Member(Main main, int id) {
        this.main = main;
        this.id = id;
        this.cfg = main.cfg;
        this.frames = main.frames;
        this.clock = main.clock;
        pool = Executors.newFixedThreadPool(cfg.workers, r -> {
            Thread t = new Thread(r, "member-" + id + "-worker");
            t.setDaemon(true);
            return t;
        });
        rng = ThreadLocal.withInitial(() -> new SplittableRandom(cfg.run ^ ((long) id << 16 | workerSeq.getAndIncrement())));
        thread = new Thread(this::runSafe, "member-" + id);
        thread.setDaemon(true);
    }

    /** The poll loop until the member stops polling; then it closes the client (unless crashed). */
    abstract void run() throws Exception;

    /** Interrupts a blocked poll. */
    abstract void wakeup();

    /**
     * Writes a processed, accepted record to the destination (a worker
     * calls it after processing, before the acknowledgement or commit).
     * Reports false when the write failed (counted; the caller hands the
     * record back) or the member crashed before it could start.
     */
    boolean write(Handled h) {
        if (writer == null || h.outcome != ACCEPTED || h.foreign) {
            return true;
        }
        if (crashed) {
            return false;
        }
        return writer.write(frames, clock, id, h);
    }

    /** Runs one record through processing and the outcome policy (a worker calls it). */
    abstract void handle(Handled h, SplittableRandom rng);

    /** Called on the poll thread as each record finishes (share explicit acknowledges here). */
    abstract void finished(Handled h);

    /** Called on the poll thread for a worker's lock renewal. */
    void renew(Renew q) {
        q.served.countDown();
    }

    void start() {
        thread.start();
    }

    void leave() {
        leaving = true;
        stopPolling = true;
        wakeup();
    }

    void crash() {
        crashed = true;
        stopNow = true;
        stopPolling = true;
        abortWorkers();
        wakeup();
    }

    void stop() {
        stopPolling = true;
        stopNow = true;
        abortWorkers();
        wakeup();
    }

    /**
     * Interrupts the workers and hands every record still queued for one
     * back to the poll thread as abandoned: shutdownNow drops queued tasks
     * unrun, and the poll thread waits for an outcome of every record of its
     * batch, so a dropped record would hold it (and the client's close)
     * forever.
     */
    private void abortWorkers() {
        for (Runnable r : pool.shutdownNow()) {
            if (r instanceof Task t) {
                done.add(t.h);
            }
        }
    }

    /** A worker's job: one record through handle, its outcome back to the poll thread. */
    private final class Task implements Runnable {
        final Handled h;

        Task(Handled h) {
            this.h = h;
        }

        @Override
        public void run() {
            try {
                handle(h, rng.get());
            } catch (RuntimeException e) {
                h.outcome = ABANDONED;
            } finally {
                done.add(h);
            }
        }
    }

    /** Waits until the member's thread ended (crashed members are abandoned) or System.nanoTime() passes deadline; reports whether it ended. */
    boolean join(long deadline) throws InterruptedException {
        if (crashed) {
            return true;
        }
        long left = deadline - System.nanoTime();
        if (left > 0) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
        return !thread.isAlive();
    }

    /**
     * Writes the requests the member's client has sent (RequestMetrics) as
     * REQUESTS frames. The poll thread calls it as the member stops (a
     * stop, a leave or a crash), before the client closes: a closed
     * client's metrics are gone, so what the close itself sends is not
     * counted. A failure is reported on stderr: the run goes on without
     * this member's counts.
     */
    void reportRequests(Supplier<Map<MetricName, ? extends Metric>> metrics) {
        try {
            RequestMetrics.write(frames, id, RequestMetrics.read(metrics.get()), clock.now());
        } catch (RuntimeException e) {
            System.err.println("java runner: member " + id + ": request metrics: " + e);
        }
    }

    /** The member thread's stack, for a member that does not end. */
    StackTraceElement[] stack() {
        return thread.getStackTrace();
    }

    private void runSafe() {
        try {
            if (cfg.destination != null) {
                writer = cfg.destination.writer();
            }
            run();
        } catch (Throwable t) {
            if (!stopNow) {
                main.fail(id, t);
            }
        } finally {
            pool.shutdownNow();
            if (writer != null) {
                writer.close();
            }
            frames.control(Frames.EXITED, id, 0, clock.now());
        }
    }

    /**
     * Hands the batch to the workers and serves them until every record has
     * an outcome (blocking style: the member polls again only then).
     */
    void processBatch(List<Handled> batch) throws InterruptedException {
        int pending = submit(batch);
        while (pending > 0) {
            Object o = done.take();
            if (o instanceof Renew q) {
                renew(q);
                continue;
            }
            pending--;
            finished((Handled) o);
        }
    }

    /**
     * Hands the batch's records to the workers, each ending up on the done
     * queue; a record that cannot be handed over is finished (abandoned) at
     * once. Returns how many were handed over.
     */
    int submit(List<Handled> batch) {
        int pending = 0;
        for (Handled h : batch) {
            if (stopNow) {
                finished(h); // abandoned
                continue;
            }
            try {
                pool.execute(new Task(h));
                pending++;
            } catch (RejectedExecutionException e) {
                finished(h); // abandoned: the pool is shut down
            }
        }
        return pending;
    }

    /**
     * begin decodes the record's stamp and writes its delivery. A record that
     * is not this run's is counted foreign and marked accepted; begin then
     * returns false and the record goes unprocessed.
     */
    boolean begin(Handled h) {
        Stamp st = Stamp.decode(h.r.value());
        if (st == null || st.run != cfg.run) {
            frames.write(Frames.FOREIGN, 0, id, 0, null, clock.now(), 0);
            h.foreign = true;
            h.outcome = ACCEPTED;
            return false;
        }
        h.st = st;
        h.delivered = clock.now();
        int count = h.r.deliveryCount().map(Short::intValue).orElse(0);
        frames.write(Frames.DELIVERY, 0, id, count, st, h.delivered, h.r.timestamp() * 1_000_000L);
        return true;
    }

    /**
     * Holds the worker on a stuck record (stuck_rate) until the member stops
     * (consumers' wedge): the record is abandoned, never acknowledged or
     * completed. A stop interrupts the worker (abortWorkers), so a wedged
     * member still stops; a thread dump of the runner shows the worker here.
     */
    void wedge(Handled h) {
        wedged.incrementAndGet();
        while (!stopNow && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(this, 100_000_000L); // a stop sets stopNow and interrupts
        }
        h.outcome = ABANDONED;
    }

    /** One attempt's processing time, slowed down while a slow-down is in force. */
    long processingTime(SplittableRandom r) {
        return main.scale(cfg.processing.sample(r));
    }

    /** The outcome of a finished attempt: poison is rejected, a transient failure released. */
    int verdict(boolean poison, SplittableRandom r) {
        if (poison) {
            return REJECTED;
        }
        if (cfg.transientRate > 0 && r.nextDouble() < cfg.transientRate) {
            return RELEASED;
        }
        return ACCEPTED;
    }

    /** Sleeps ns unless the member is stopped or the thread interrupted; reports whether it slept fully. */
    boolean sleepNs(long ns) {
        long end = System.nanoTime() + ns;
        while (true) {
            if (stopNow || Thread.currentThread().isInterrupted()) {
                return false;
            }
            long left = end - System.nanoTime();
            if (left <= 0) {
                return true;
            }
            LockSupport.parkNanos(left);
        }
    }
}
