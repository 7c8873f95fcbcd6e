package sharebench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
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
            Map<RequestMetrics.Key, Long> got = RequestMetrics.read(m.metrics());
            assertEquals(Map.of(new RequestMetrics.Key(1, RequestMetrics.DATA), 40L, new RequestMetrics.Key(2, RequestMetrics.DATA), 7L,
                    new RequestMetrics.Key(1, RequestMetrics.COORDINATOR), 12L), got);
            assertEquals(List.of(new RequestMetrics.Key(1, RequestMetrics.DATA), new RequestMetrics.Key(1, RequestMetrics.COORDINATOR),
                    new RequestMetrics.Key(2, RequestMetrics.DATA)), List.copyOf(got.keySet()), "sorted by broker, then connection");
        }
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
        RequestMetrics.write(f, 3, Map.of(new RequestMetrics.Key(2, RequestMetrics.COORDINATOR), 123456L), 1764500000123456789L);
        f.flush();
        String hex = java.util.HexFormat.of().formatHex(out.toByteArray());
        // The same frame as the "18 1 3 2 1 123456" vector (VectorsTest, consumers.TestJavaVectors).
        assertEquals("5342524602120100030000000200000001000000000001e24000000000000000000000000000000000187cc366c1890d150000000000000000bf2f4e25", hex);
        assertTrue(hex.length() == 2 * Frames.SIZE);
    }
}
