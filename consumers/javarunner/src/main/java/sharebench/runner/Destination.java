package sharebench.runner;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Properties;
import java.util.ArrayDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The write stage (consumers/java_destination.go): a member writes each
 * accepted record into the run's table with pgJDBC after processing and
 * before its acknowledgement or commit, running the harness's statement
 * (destination.Config.Statement) on a connection of its own pool of
 * destination.pool connections, or, under destination.connections, of the
 * runner's one shared pool of that many (taking at most pool of them). Each
 * write is reported in a WRITE frame: failed or not, its time (the wait for
 * a connection included) and the time its statement held the connection.
 */
final class Destination {
    /** One record's write gives up after this (consumers.destinationWriteTimeout). */
    static final int WRITE_TIMEOUT_S = 30;

    private final String url, statement, topic, host;
    private final Properties props = new Properties();
    private final int pool, connections;
    private Lines shared; // under destination.connections, opened by the first writer

    private Destination(Properties p) {
        host = p.getProperty("destination.host") + ":" + p.getProperty("destination.port");
        url = "jdbc:postgresql://" + host + "/" + p.getProperty("destination.database", "");
        props.setProperty("user", p.getProperty("destination.user", ""));
        props.setProperty("password", p.getProperty("destination.password", ""));
        props.setProperty("sslmode", p.getProperty("destination.sslmode", "disable"));
        props.setProperty("connectTimeout", "10");
        statement = p.getProperty("destination.statement").replaceAll("\\$[1-5]", "?");
        topic = p.getProperty("destination.topic");
        pool = Integer.parseInt(p.getProperty("destination.pool", "1"));
        connections = Integer.parseInt(p.getProperty("destination.connections", "0"));
    }

    /** The run's destination in the runner's configuration; null when it has none. */
    static Destination of(Properties p) {
        return p.getProperty("destination.host") == null ? null : new Destination(p);
    }

    /** A member's writer (its own pool, or its share of the shared one), its connections opened. */
    synchronized Writer writer() {
        if (connections > 0) {
            if (shared == null) {
                shared = new Lines(connections);
            }
            return new Writer(shared, pool, false);
        }
        return new Writer(new Lines(pool), pool, true);
    }

    /** One record's write, handed to a line: the record, and what the line made of it. */
    private static final class Job {
        final Member.Handled h;
        final CountDownLatch done = new CountDownLatch(1);
        long held;
        SQLException err;

        Job(Member.Handled h) {
            this.h = h;
        }
    }

    /**
     * A pool of n connections, each run by a thread of its own (a line). A
     * line takes the next waiting write of a writer that has fewer than its
     * pool of statements running, runs the statement and hands the result
     * back, so a connection goes from one statement straight to the next. (A
     * connection passed from worker to worker waits, between two statements,
     * for the next worker to be woken and scheduled: on a busy host that
     * idled the connections.) The connections are opened at once, so the
     * first writes do not pay for it, and again at the next write when one
     * broke.
     */
    private final class Lines {
        private final ArrayDeque<Writer> runnable = new ArrayDeque<>(); // writers with a waiting write and a statement to spare
        private boolean closed;

        Lines(int n) {
            for (int i = 0; i < n; i++) {
                Connection c = null;
                try {
                    c = DriverManager.getConnection(url, props);
                } catch (SQLException e) {
                    System.err.println("java runner: destination: connect to " + host + ": " + e.getMessage());
                }
                Connection first = c;
                Thread t = new Thread(() -> line(first), "destination-line-" + i);
                t.setDaemon(true);
                t.start();
            }
        }

        /** Queues a writer's write; false once the lines are closed. */
        synchronized boolean submit(Writer w, Job job) {
            if (closed) {
                return false;
            }
            w.pending.add(job);
            requeue(w);
            return true;
        }

        /** Takes back a write no line has started; false when one has. */
        synchronized boolean cancel(Writer w, Job job) {
            return w.pending.remove(job);
        }

        /** The lines end once no write waits. */
        synchronized void close() {
            closed = true;
            notifyAll();
        }

        private void requeue(Writer w) {
            if (!w.pending.isEmpty() && !w.queued && w.running < w.pool) {
                w.queued = true;
                runnable.add(w);
                notify();
            }
        }

        /** The next write a line runs, counted running; null once closed with none waiting. */
        private synchronized Job take(Writer[] of) throws InterruptedException {
            while (true) {
                Writer w;
                while ((w = runnable.poll()) != null) {
                    w.queued = false;
                    if (!w.pending.isEmpty() && w.running < w.pool) {
                        w.running++;
                        Job job = w.pending.poll();
                        requeue(w);
                        if (!runnable.isEmpty()) {
                            notify(); // a line may be waiting while writes are
                        }
                        of[0] = w;
                        return job;
                    }
                }
                if (closed) {
                    return null;
                }
                wait();
            }
        }

        private synchronized void finished(Writer w) {
            w.running--;
            requeue(w);
        }

        private void line(Connection c) {
            Writer[] of = new Writer[1];
            try {
                for (Job job; (job = take(of)) != null; ) {
                    c = run(c, job);
                    finished(of[0]);
                    job.done.countDown();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (c != null) {
                    try {
                        c.close();
                    } catch (SQLException e) {
                        // closing anyway
                    }
                }
            }
        }

        /** Runs one statement; returns the connection, or null when it broke. */
        private Connection run(Connection c, Job job) {
            try {
                if (c == null) {
                    c = DriverManager.getConnection(url, props);
                }
                try (PreparedStatement ps = c.prepareStatement(statement)) {
                    ps.setQueryTimeout(WRITE_TIMEOUT_S);
                    ps.setString(1, topic);
                    ps.setArray(2, c.createArrayOf("integer", new Integer[] {job.h.r.partition()}));
                    ps.setArray(3, c.createArrayOf("bigint", new Long[] {job.h.r.offset()}));
                    ps.setArray(4, c.createArrayOf("bigint", new Long[] {job.h.st.producer & 0xffffffffL}));
                    ps.setArray(5, c.createArrayOf("bigint", new Long[] {job.h.st.seq}));
                    long t0 = System.nanoTime();
                    ps.executeUpdate();
                    job.held = System.nanoTime() - t0;
                }
            } catch (SQLException e) {
                job.err = e;
                if (c != null && broken(c)) {
                    try {
                        c.close();
                    } catch (SQLException e2) {
                        // gone already
                    }
                    c = null;
                }
            }
            return c;
        }

        private boolean broken(Connection c) {
            try {
                return c.isClosed() || !c.isValid(1);
            } catch (SQLException e) {
                return true;
            }
        }
    }

    /** One member's writer; write is called by its workers at once, and at most pool of its statements run at once. */
    final class Writer implements AutoCloseable {
        private final Lines lines;
        private final int pool;
        private final boolean own;
        // Guarded by lines' monitor.
        private final ArrayDeque<Job> pending = new ArrayDeque<>();
        private int running;
        private boolean queued;

        private Writer(Lines lines, int pool, boolean own) {
            this.lines = lines;
            this.pool = pool;
            this.own = own;
        }

        /** Writes one record and reports it in a WRITE frame; reports whether it is durable in the table. */
        boolean write(Frames frames, Clock clock, int member, Member.Handled h) {
            long start = System.nanoTime();
            Job job = new Job(h);
            try {
                if (!lines.submit(this, job)) {
                    job.err = new SQLException("the member's writer is closed");
                } else if (!job.done.await(WRITE_TIMEOUT_S, TimeUnit.SECONDS) && lines.cancel(this, job)) {
                    job.err = new SQLException("wait for a connection: timed out after " + WRITE_TIMEOUT_S + "s");
                } else {
                    job.done.await(); // a statement that started ends by its query timeout
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (job.done.getCount() > 0) {
                    job.err = new SQLException("interrupted");
                }
            }
            boolean ok = job.err == null && job.done.getCount() == 0;
            if (job.err != null) {
                System.err.println("java runner: member " + member + ": destination: write into the table: " + job.err.getMessage());
            }
            long us = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
            frames.write(Frames.WRITE, ok ? 0 : Frames.FLAG_WRITE_FAILED, member, (int) Math.min(us, Integer.MAX_VALUE), null, clock.now(), job.held);
            return ok;
        }

        @Override
        public void close() {
            if (own) {
                lines.close();
            }
        }
    }
}
