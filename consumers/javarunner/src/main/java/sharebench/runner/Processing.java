package sharebench.runner;

import java.util.SplittableRandom;

/**
 * Processing-time models with the parameters of consumers.Processing
 * (processing.go): none, constant, uniform, exponential, lognormal (median,
 * p99: sigma = ln(p99/median) / z99). The draws use Java's generator, so
 * single samples differ from Go's, the distributions do not.
 */
public final class Processing {
    static final double Z99 = 2.3263478740408408;

    final String model;
    final long time, min, max, mean, median;
    final double sigma;

    public Processing(String model, long time, long min, long max, long mean, long median, long p99) {
        this.model = model;
        this.time = time;
        this.min = min;
        this.max = max;
        this.mean = mean;
        this.median = median;
        switch (model) {
            case "none", "constant", "uniform", "exponential" -> sigma = 0;
            case "lognormal" -> sigma = Math.log((double) p99 / (double) median) / Z99;
            default -> throw new IllegalArgumentException("processing.model: unknown " + model);
        }
    }

    /** Draws one attempt's processing time in nanoseconds. */
    public long sample(SplittableRandom r) {
        return switch (model) {
            case "constant" -> time;
            case "uniform" -> min + (long) (r.nextDouble() * (double) (max - min));
            case "exponential" -> (long) (-Math.log(1.0 - r.nextDouble()) * (double) mean);
            case "lognormal" -> (long) ((double) median * Math.exp(sigma * gaussian(r)));
            default -> 0;
        };
    }

    /** A standard normal draw (Marsaglia polar method). */
    static double gaussian(SplittableRandom r) {
        double u, v, s;
        do {
            u = 2 * r.nextDouble() - 1;
            v = 2 * r.nextDouble() - 1;
            s = u * u + v * v;
        } while (s >= 1 || s == 0);
        return u * Math.sqrt(-2 * Math.log(s) / s);
    }
}
