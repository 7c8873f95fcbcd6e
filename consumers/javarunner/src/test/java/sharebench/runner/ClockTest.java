package sharebench.runner;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ClockTest {
    @Test
    void monotonicAndNearWallTime() {
        Clock c = new Clock();
        long a = c.now();
        long b = c.now();
        assertTrue(b >= a);
        long wall = System.currentTimeMillis() * 1_000_000L;
        assertTrue(Math.abs(a - wall) < 1_000_000_000L, "clock " + a + " wall " + wall);
    }
}
