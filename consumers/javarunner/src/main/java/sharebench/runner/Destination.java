package sharebench.runner;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Semaphore;
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
    private Conns shared; // under destination.connections, opened by the first writer

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
                shared = new Conns(connections);
            }
            return new Writer(shared, new Semaphore(pool), false);
        }
        return new Writer(new Conns(pool), null, true);
    }

    /** A pool of n connections, opened at once (so the first writes do not pay for it) and again when one broke. */
    private final class Conns {
        final ArrayBlockingQueue<Connection> idle;
        final ArrayBlockingQueue<Boolean> missing;

        Conns(int n) {
            idle = new ArrayBlockingQueue<>(n);
            missing = new ArrayBlockingQueue<>(n);
            for (int i = 0; i < n; i++) {
                try {
                    idle.add(DriverManager.getConnection(url, props));
                } catch (SQLException e) {
                    System.err.println("java runner: destination: connect to " + host + ": " + e.getMessage());
                    missing.add(Boolean.TRUE);
                }
            }
        }

        Connection take() throws SQLException, InterruptedException {
            while (true) {
                Connection c = idle.poll();
                if (c != null) {
                    return c;
                }
                if (missing.poll() != null) {
                    try {
                        return DriverManager.getConnection(url, props);
                    } catch (SQLException e) {
                        missing.add(Boolean.TRUE);
                        throw e;
                    }
                }
                c = idle.poll(WRITE_TIMEOUT_S, TimeUnit.SECONDS);
                if (c != null) {
                    return c;
                }
                throw new SQLException("wait for a connection: timed out after " + WRITE_TIMEOUT_S + "s");
            }
        }

        void give(Connection c, boolean broken) {
            if (broken) {
                try {
                    c.close();
                } catch (SQLException e) {
                    // gone already
                }
                missing.add(Boolean.TRUE);
                return;
            }
            idle.add(c);
        }

        void close() {
            for (Connection c; (c = idle.poll()) != null; ) {
                try {
                    c.close();
                } catch (SQLException e) {
                    // closing anyway
                }
            }
        }
    }

    /** One member's writer; write is called by its workers at once. */
    final class Writer implements AutoCloseable {
        private final Conns conns;
        private final Semaphore cap; // at most pool statements at once on the shared pool; null on its own
        private final boolean own;

        private Writer(Conns conns, Semaphore cap, boolean own) {
            this.conns = conns;
            this.cap = cap;
            this.own = own;
        }

        /** Writes one record and reports it in a WRITE frame; reports whether it is durable in the table. */
        boolean write(Frames frames, Clock clock, int member, Member.Handled h) {
            long start = System.nanoTime();
            long held = 0;
            boolean ok = false;
            try {
                if (cap != null) {
                    cap.acquire();
                }
                try {
                    held = exec(h);
                    ok = true;
                } finally {
                    if (cap != null) {
                        cap.release();
                    }
                }
            } catch (SQLException e) {
                System.err.println("java runner: member " + member + ": destination: write into the table: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            long us = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
            frames.write(Frames.WRITE, ok ? 0 : Frames.FLAG_WRITE_FAILED, member, (int) Math.min(us, Integer.MAX_VALUE), null, clock.now(), held);
            return ok;
        }

        /** Runs the statement for one record; returns the time it held the connection. */
        private long exec(Member.Handled h) throws SQLException, InterruptedException {
            Connection c = conns.take();
            boolean broken = true;
            try (PreparedStatement ps = c.prepareStatement(statement)) {
                ps.setQueryTimeout(WRITE_TIMEOUT_S);
                ps.setString(1, topic);
                ps.setArray(2, c.createArrayOf("integer", new Integer[] {h.r.partition()}));
                ps.setArray(3, c.createArrayOf("bigint", new Long[] {h.r.offset()}));
                ps.setArray(4, c.createArrayOf("bigint", new Long[] {h.st.producer & 0xffffffffL}));
                ps.setArray(5, c.createArrayOf("bigint", new Long[] {h.st.seq}));
                long t0 = System.nanoTime();
                ps.executeUpdate();
                long held = System.nanoTime() - t0;
                broken = false;
                return held;
            } catch (SQLException e) {
                broken = c.isClosed() || !c.isValid(1);
                throw e;
            } finally {
                conns.give(c, broken);
            }
        }

        @Override
        public void close() {
            if (own) {
                conns.close();
            }
        }
    }
}
