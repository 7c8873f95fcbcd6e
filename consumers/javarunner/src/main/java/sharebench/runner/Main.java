package sharebench.runner;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The runner's entry point: java -cp ... sharebench.runner.Main CONFIG.
 *
 * <p>stdin carries commands from the harness, one per line: {@code ping SEQ},
 * {@code join ID}, {@code leave ID}, {@code crash ID}, {@code slow FACTOR
 * DURATION_NS}, {@code stop}. The end of stdin is {@code stop}: if the
 * harness dies the runner ends too. stdout carries only event frames
 * (Frames); System.out is redirected to stderr so no library can corrupt
 * the stream. Exit status 0 after a stop with every member closed; 2 on a
 * bad config; 3 when a member failed (the reason on stderr); 4 when a member
 * did not close within the close timeout (which members, and where they
 * were, on stderr).
 */
public final class Main {
    /** Exit status: some member did not close its client within the close timeout (consumers.javaExitCloseTimeout). */
    static final int EXIT_CLOSE_TIMEOUT = 4;
    /** What stopAll allows beyond the close timeout (the members stop their workers and poll first). */
    static final long CLOSE_MARGIN_NS = 2_000_000_000L;

    final RunnerConfig cfg;
    final Clock clock = new Clock();
    final Frames frames;
    final Map<Integer, Member> members = new ConcurrentHashMap<>();
    final List<Member> all = new ArrayList<>();
    /** Set once the first member's client settings were written (ClientSettings.report). */
    final AtomicBoolean settingsReported = new AtomicBoolean();
    volatile double slowFactor = 1;
    volatile long slowUntil;

    Main(RunnerConfig cfg, Frames frames) {
        this.cfg = cfg;
        this.frames = frames;
    }

    public static void main(String[] args) throws Exception {
        PrintStream stdout = new PrintStream(new FileOutputStream(FileDescriptor.out), false);
        System.setOut(System.err);
        if (args.length != 1) {
            System.err.println("usage: sharebench.runner.Main CONFIG.properties");
            System.exit(2);
        }
        RunnerConfig cfg;
        try {
            cfg = RunnerConfig.load(args[0]);
            ClientSecurity.load(args[0]);
        } catch (Exception e) {
            System.err.println("java runner: config " + args[0] + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        Frames frames = new Frames(stdout, 2);
        Main m = new Main(cfg, frames);
        frames.control(Frames.HELLO, 0, Frames.PROTOCOL, m.clock.now());
        m.commands();
        m.stopAll();
        frames.control(Frames.BYE, 0, 0, m.clock.now());
        frames.close();
        System.exit(0);
    }

    /** Reads commands until stop or the end of stdin. */
    void commands() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.trim().split(" ");
            switch (f[0]) {
                case "ping" -> frames.control(Frames.PONG, 0, Integer.parseInt(f[1]), clock.now());
                case "join" -> join(Integer.parseInt(f[1]));
                case "leave" -> {
                    Member m = members.remove(Integer.parseInt(f[1]));
                    if (m != null) {
                        m.leave();
                    }
                }
                case "crash" -> {
                    Member m = members.remove(Integer.parseInt(f[1]));
                    if (m != null) {
                        m.crash();
                    }
                }
                case "slow" -> {
                    slowFactor = Double.parseDouble(f[1]);
                    slowUntil = clock.now() + Long.parseLong(f[2]);
                }
                case "stop" -> {
                    return;
                }
                case "" -> {
                }
                default -> System.err.println("java runner: unknown command " + line);
            }
        }
    }

    void join(int id) {
        Member m = cfg.spring() ? springMember(id) : cfg.share() ? new ShareMember(this, id) : new GroupMember(this, id);
        members.put(id, m);
        synchronized (all) {
            all.add(m);
        }
        m.start();
    }

    /**
     * A member on Spring for Apache Kafka (client spring): its classes are
     * compiled by the runner's spring build only (pom.xml's spring profile),
     * so they are looked up by name.
     */
    Member springMember(int id) {
        String name = cfg.share() ? "sharebench.runner.SpringShareMember" : "sharebench.runner.SpringGroupMember";
        try {
            return (Member) Class.forName(name).getDeclaredConstructor(Main.class, int.class).newInstance(this, id);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException("client spring: this runner was built without Spring for Apache Kafka (" + e + ")", e);
        }
    }

    /**
     * Stops every member still running and waits for them (crashed ones are
     * abandoned), all within one close timeout and CLOSE_MARGIN_NS: a member
     * that has not closed its client by then is named on stderr with its
     * thread's stack, and the runner exits with EXIT_CLOSE_TIMEOUT, which
     * the harness reports as client_close_timeout.
     */
    void stopAll() throws InterruptedException {
        List<Member> ms;
        synchronized (all) {
            ms = new ArrayList<>(all);
        }
        for (Member m : ms) {
            m.stop();
        }
        long deadline = System.nanoTime() + cfg.closeTimeoutNs + CLOSE_MARGIN_NS;
        List<Member> open = new ArrayList<>();
        for (Member m : ms) {
            if (!m.join(deadline)) {
                open.add(m);
            }
        }
        if (open.isEmpty()) {
            return;
        }
        StringBuilder ids = new StringBuilder();
        for (Member m : open) {
            ids.append(ids.length() == 0 ? "" : ", ").append(m.id);
        }
        System.err.printf("java runner: member(s) %s did not close within the close timeout (%d ms + %d ms margin)%n",
                ids, TimeUnit.NANOSECONDS.toMillis(cfg.closeTimeoutNs), TimeUnit.NANOSECONDS.toMillis(CLOSE_MARGIN_NS));
        for (Member m : open) {
            System.err.println("member " + m.id + " is at:");
            for (StackTraceElement e : m.stack()) {
                System.err.println("\tat " + e);
            }
        }
        System.err.flush();
        frames.flush();
        Runtime.getRuntime().halt(EXIT_CLOSE_TIMEOUT);
    }

    /** A member failed beyond what it can count: the runner exits, the harness fails the run. */
    void fail(int id, Throwable t) {
        System.err.println("java runner: member " + id + " failed: " + t);
        t.printStackTrace(System.err);
        frames.flush();
        Runtime.getRuntime().halt(3);
    }

    /** scale applies the slow-down in force to a processing time. */
    long scale(long ns) {
        if (clock.now() >= slowUntil) {
            return ns;
        }
        return (long) (ns * slowFactor);
    }
}
