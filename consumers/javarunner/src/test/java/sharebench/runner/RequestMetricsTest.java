package sharebench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

/**
 * A client's per-node request-total becomes per-broker counts: broker
 * connections by their id, the coordinator connection (Integer.MAX_VALUE −
 * broker id) under its broker, bootstrap connections (negative ids) and
 * other metrics left out; and the REQUESTS frame carries them in the layout
 * the Go side decodes (the vector in vectors.txt).
 */
class RequestMetricsTest {
    /** A Metrics registry with request-total (and request-latency-max, to be ignored) per node. */
    static Metrics nodeMetrics(Map<String, Double> totals) {
        Metrics m = new Metrics();
        for (Map.Entry<String, Double> e : totals.entrySet()) {
            Map<String, String> tags = new HashMap<>();
            tags.put("client-id", "sharebench-java-1");
            tags.put("node-id", e.getKey());
            Sensor s = m.sensor(e.getKey() + ".requests");
            s.add(new MetricName("request-total", "consumer-node-metrics", "", tags), new CumulativeSum());
            s.add(new MetricName("request-latency-max", "consumer-node-metrics", "", tags), new Max());
            s.record(e.getValue());
        }
        Sensor other = m.sensor("fetch");
        other.add(new MetricName("request-total", "consumer-fetch-manager-metrics", "", Map.of("client-id", "x")), new CumulativeSum());
        other.record(999);
        return m;
    }

    @Test
    void readsBrokersAndCoordinator() {
        Map<String, Double> totals = new HashMap<>();
        totals.put("node-1", 40.0);
        totals.put("node-2", 7.0);
        totals.put("node--1", 3.0); // bootstrap
        totals.put("node-" + (Integer.MAX_VALUE - 1), 12.0); // broker 1 as coordinator
        totals.put("node-3", 0.0); // nothing sent: no row
        try (Metrics m = nodeMetrics(totals)) {
            Map<RequestMetrics.Key, RequestMetrics.Row> got = RequestMetrics.read(m.metrics());
            assertEquals(Map.of(new RequestMetrics.Key(1, RequestMetrics.DATA), counted(40), new RequestMetrics.Key(2, RequestMetrics.DATA), counted(7),
                    new RequestMetrics.Key(1, RequestMetrics.COORDINATOR), counted(12)), got);
            assertEquals(List.of(new RequestMetrics.Key(1, RequestMetrics.DATA), new RequestMetrics.Key(1, RequestMetrics.COORDINATOR),
                    new RequestMetrics.Key(2, RequestMetrics.DATA)), List.copyOf(got.keySet()), "sorted by broker, then connection");
        }
    }

    /** A row of count requests with no fetch response timed. */
    static RequestMetrics.Row counted(long count) {
        return new RequestMetrics.Row(count, 0, 0, 0);
    }

    /**
     * A client configured as the runner configures it (one sample of 7
     * days) times fetch responses per node: the node's latency sensor, as
     * kafka-clients' Selector registers it (request-latency-avg and -max),
     * recorded with 12, 30 and 7 ms, the last two hours after the first,
     * reads as 3 responses of 49 ms in all, the longest 30 ms, beside the
     * node's request count; a node whose sensor recorded nothing has no
     * time. Under the client's default two samples of 30 s, responses 31 s
     * apart fall in two samples, so the figures no longer cover the client's
     * life and the time is unknown (-1).
     */
    @Test
    void timesFetchResponsesPerNode() {
        java.util.Properties p = new java.util.Properties();
        RequestMetrics.configure(p);
        MetricConfig one = new MetricConfig().samples(Integer.parseInt(p.getProperty("metrics.num.samples")))
                .timeWindow(Long.parseLong(p.getProperty("metrics.sample.window.ms")), TimeUnit.MILLISECONDS);
        FakeTime t = new FakeTime();
        try (Metrics m = latencyMetrics(one, t, TimeUnit.HOURS.toMillis(1), Map.of("node-1", new double[] {12, 30, 7}, "node-2", new double[] {}))) {
            Map<RequestMetrics.Key, RequestMetrics.Row> got = RequestMetrics.read(m.metrics());
            assertEquals(new RequestMetrics.Row(20, 3, 49_000, 30_000), got.get(new RequestMetrics.Key(1, RequestMetrics.DATA)));
            assertEquals(new RequestMetrics.Row(20, 0, 0, 0), got.get(new RequestMetrics.Key(2, RequestMetrics.DATA)));
        }
        MetricConfig dflt = new MetricConfig().samples(2).timeWindow(30, TimeUnit.SECONDS);
        try (Metrics m = latencyMetrics(dflt, new FakeTime(), 31_000, Map.of("node-1", new double[] {12, 30}))) {
            assertEquals(new RequestMetrics.Row(20, -1, 0, 0), RequestMetrics.read(m.metrics()).get(new RequestMetrics.Key(1, RequestMetrics.DATA)));
        }
    }

    /** A clock the test moves. */
    static final class FakeTime implements Time {
        long ms = 1_764_500_000_000L;

        @Override
        public long milliseconds() {
            return ms;
        }

        @Override
        public long nanoseconds() {
            return ms * 1_000_000;
        }

        @Override
        public void sleep(long d) {
            ms += d;
        }

        @Override
        public void waitObject(Object o, Supplier<Boolean> done, long deadline) {
            throw new UnsupportedOperationException();
        }
    }

    /** Per node: request-total 20 and a latency sensor that recorded latencies (ms), gapMs apart on t. */
    static Metrics latencyMetrics(MetricConfig cfg, FakeTime t, long gapMs, Map<String, double[]> latencies) {
        Metrics m = new Metrics(cfg, t);
        for (Map.Entry<String, double[]> e : latencies.entrySet()) {
            Map<String, String> tags = Map.of("client-id", "sharebench-java-1", "node-id", e.getKey());
            Sensor total = m.sensor(e.getKey() + ".bytes-sent");
            total.add(new MetricName("request-total", "consumer-share-node-metrics", "", tags), new CumulativeSum());
            total.record(20);
            Sensor lat = m.sensor(e.getKey() + ".latency");
            lat.add(new MetricName("request-latency-avg", "consumer-share-node-metrics", "", tags), new Avg());
            lat.add(new MetricName("request-latency-max", "consumer-share-node-metrics", "", tags), new Max());
            for (double ms : e.getValue()) {
                lat.record(ms);
                t.sleep(gapMs);
            }
        }
        return m;
    }

    @Test
    void nodeTags() {
        assertEquals(new RequestMetrics.Key(0, RequestMetrics.DATA), RequestMetrics.key("node-0"));
        assertEquals(new RequestMetrics.Key(0, RequestMetrics.COORDINATOR), RequestMetrics.key("node-" + Integer.MAX_VALUE));
        assertNull(RequestMetrics.key("node--1"));
        assertNull(RequestMetrics.key("node-x"));
        assertNull(RequestMetrics.key("1"));
        assertNull(RequestMetrics.key(null));
    }

    @Test
    void bounded() {
        Map<String, Double> totals = new HashMap<>();
        for (int i = 0; i < RequestMetrics.MAX_ROWS + 10; i++) {
            totals.put("node-" + i, 1.0);
        }
        try (Metrics m = nodeMetrics(totals)) {
            assertEquals(RequestMetrics.MAX_ROWS, RequestMetrics.read(m.metrics()).size());
        }
    }

    @Test
    void frameLayout() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Frames f = new Frames(out, 0);
        RequestMetrics.write(f, 3, Map.of(new RequestMetrics.Key(2, RequestMetrics.DATA), new RequestMetrics.Row(123456, 40, 987_654_000, 52_000)),
                1764500000123456789L);
        f.flush();
        String hex = java.util.HexFormat.of().formatHex(out.toByteArray());
        // The same frame as the "18 2 3 2 0 123456 40 987654000" vector (VectorsTest, consumers.TestJavaVectors).
        assertEquals(VectorsTest.frameHex("18 2 3 2 0 123456 40 987654000 1764500000123456789 52000"), hex);
        assertTrue(hex.length() == 2 * Frames.SIZE);
    }
}
