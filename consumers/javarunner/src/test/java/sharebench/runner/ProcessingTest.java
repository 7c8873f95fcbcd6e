package sharebench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The processing models have the parameters, and so the means, of consumers/processing.go. */
class ProcessingTest {
    static final long MS = 1_000_000L;

    static double mean(Processing p, int n) {
        SplittableRandom r = new SplittableRandom(1);
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += p.sample(r);
        }
        return sum / n;
    }

    @Test
    void constantAndNone() {
        assertEquals(5 * MS, mean(new Processing("constant", 5 * MS, 0, 0, 0, 0, 0), 10));
        assertEquals(0, mean(new Processing("none", 0, 0, 0, 0, 0, 0), 10));
    }

    @Test
    void uniformMean() {
        double m = mean(new Processing("uniform", 0, 5 * MS, 15 * MS, 0, 0, 0), 200_000);
        assertTrue(Math.abs(m - 10 * MS) < 0.05 * MS, "uniform mean " + m);
    }

    @Test
    void exponentialMean() {
        double m = mean(new Processing("exponential", 0, 0, 0, 10 * MS, 0, 0), 400_000);
        assertTrue(Math.abs(m - 10 * MS) < 0.1 * MS, "exponential mean " + m);
    }

    @Test
    void lognormalQuantiles() {
        Processing p = new Processing("lognormal", 0, 0, 0, 0, 10 * MS, 50 * MS);
        SplittableRandom r = new SplittableRandom(2);
        long[] xs = new long[200_000];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = p.sample(r);
        }
        Arrays.sort(xs);
        double median = xs[xs.length / 2], p99 = xs[(int) (xs.length * 0.99)];
        assertTrue(Math.abs(median - 10 * MS) < 0.3 * MS, "median " + median);
        assertTrue(Math.abs(p99 - 50 * MS) < 2.5 * MS, "p99 " + p99);
    }

    @Test
    void unknownModel() {
        assertThrows(IllegalArgumentException.class, () -> new Processing("gamma", 0, 0, 0, 0, 0, 0));
    }
}
