package sharebench.runner;

import java.time.Instant;

/**
 * Clock maps System.nanoTime (CLOCK_MONOTONIC, the clock Go's monotonic
 * readings use too) to Unix nanoseconds read once at start, like
 * results.Clock on the Go side: readings never jump, and the offset to the
 * harness's clock, measured once by ping/pong, stays put.
 */
public final class Clock {
    private final long epochUnix;
    private final long epochMono;

    public Clock() {
        Instant now = Instant.now();
        epochMono = System.nanoTime();
        epochUnix = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    public long now() {
        return epochUnix + (System.nanoTime() - epochMono);
    }
}
