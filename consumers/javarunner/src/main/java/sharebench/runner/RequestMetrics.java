package sharebench.runner;

import java.lang.reflect.Field;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.stats.SampledStat;

/**
 * The requests a member's client sent, per broker, read from the client's
 * own metrics ({@code metrics()}, group "consumer-node-metrics", tag
 * node-id "node-N"):
 *
 * <ul>
 * <li>request-total: every request written on that connection since the
 * client started, whatever its API;
 * <li>request-latency-avg / -max: the client's time of each fetch response
 * from that node, from the request's creation to its response's receipt
 * (ClientResponse.requestLatencyMs, whole milliseconds), recorded by the
 * fetch code only: Fetch responses for a KafkaConsumer, ShareFetch and
 * ShareAcknowledge responses for a KafkaShareConsumer, successful ones only.
 * </ul>
 *
 * <p>The latency metrics are windowed (their sensor keeps samples of
 * metrics.sample.window.ms, metrics.num.samples of them): {@link #configure}
 * gives each client one sample of 7 days, so the one sample holds every
 * response since the client started, and {@link #read} takes that sample's
 * count and sum ({@link #sample}) and its maximum. A sensor with more than
 * one sample is read as untimed.
 *
 * <p>A member writes them as REQUESTS frames when it stops, just before its
 * client closes; the Go harness adds them up over members and JVMs
 * (consumers/java_requests.go).
 *
 * <p>What the metrics cannot say, and so is not sent: which API each
 * request on a connection was (the client keeps no per-API count per node),
 * the time of requests other than the fetch responses above, and whether a
 * fetch came back empty.
 *
 * <p>Node ids: a negative one is a bootstrap connection (no broker id yet)
 * and is left out; the client talks to the group coordinator on a
 * connection of its own whose id is Integer.MAX_VALUE minus the broker's
 * (kafka-clients' coordinator connection), reported as that broker's
 * COORDINATOR connection.
 */
final class RequestMetrics {
    static final String GROUP_SUFFIX = "-node-metrics";
    static final String TOTAL = "request-total";
    static final String LATENCY_AVG = "request-latency-avg";
    static final String LATENCY_MAX = "request-latency-max";
    static final String NODE_TAG = "node-id";
    /** A broker's connections: the ordinary one, and the one to it as group coordinator. */
    static final int DATA = 0, COORDINATOR = 1;
    /** Coordinator connection ids are Integer.MAX_VALUE − broker id; broker ids stay below this. */
    static final int COORDINATOR_FLOOR = Integer.MAX_VALUE / 2;
    /** At most this many rows per client (brokers × connections): a bound on what one member sends. */
    static final int MAX_ROWS = 256;
    /** The one metrics sample of a member's client: longer than any run. */
    static final long SAMPLE_WINDOW_MS = TimeUnit.DAYS.toMillis(7);

    /** One broker's connection. */
    record Key(int broker, int connection) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            int c = Integer.compare(broker, o.broker);
            return c != 0 ? c : Integer.compare(connection, o.connection);
        }
    }

    /**
     * One connection's figures: requests written; fetch responses timed
     * (-1: their time is unknown, and sumMicros and maxMicros with it), their
     * summed and largest time, µs.
     */
    record Row(long requests, long timed, long sumMicros, long maxMicros) {
        static final Row NONE = new Row(0, 0, 0, 0);

        Row plus(Row o) {
            long t = timed < 0 || o.timed < 0 ? -1 : timed + o.timed;
            return new Row(requests + o.requests, t, t < 0 ? 0 : sumMicros + o.sumMicros, t < 0 ? 0 : Math.max(maxMicros, o.maxMicros));
        }

        boolean empty() {
            return requests <= 0 && timed <= 0;
        }
    }

    private RequestMetrics() {
    }

    /** Gives a client's metrics one sample that lasts the run (see the class comment). */
    static void configure(Properties p) {
        p.put("metrics.num.samples", "1");
        p.put("metrics.sample.window.ms", Long.toString(SAMPLE_WINDOW_MS));
    }

    /** The request counts and fetch-response times in a client's metrics, per broker and connection (empty rows left out). */
    static Map<Key, Row> read(Map<MetricName, ? extends Metric> metrics) {
        Map<Key, Row> out = new TreeMap<>();
        long now = System.currentTimeMillis();
        // Latency sums and maxima first, by connection; then every row.
        Map<Key, double[]> avg = new HashMap<>();
        Map<Key, Double> max = new HashMap<>();
        Map<Key, Long> totals = new HashMap<>();
        for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
            MetricName n = e.getKey();
            if (!n.group().endsWith(GROUP_SUFFIX)) {
                continue;
            }
            Key k = key(n.tags().get(NODE_TAG));
            if (k == null) {
                continue;
            }
            switch (n.name()) {
                case TOTAL -> totals.merge(k, count(e.getValue()), Long::sum);
                case LATENCY_AVG -> avg.put(k, sample(e.getValue(), now));
                case LATENCY_MAX -> {
                    double[] m = sample(e.getValue(), now);
                    max.put(k, m == null || m[0] == 0 ? Double.NaN : m[1]);
                }
                default -> {
                }
            }
        }
        Set<Key> keys = new TreeSet<>(totals.keySet());
        keys.addAll(avg.keySet());
        for (Key k : keys) {
            long requests = Math.max(0, totals.getOrDefault(k, 0L));
            double[] a = avg.get(k);
            Row r;
            if (a == null) {
                r = new Row(requests, avg.containsKey(k) ? -1 : 0, 0, 0);
            } else {
                long timed = (long) a[0];
                Double m = max.get(k);
                long maxMicros = m == null || !Double.isFinite(m) ? 0 : Math.round(m * 1000);
                r = new Row(requests, timed, timed == 0 ? 0 : Math.round(a[1] * 1000), timed == 0 ? 0 : maxMicros);
            }
            if (r.empty()) {
                continue;
            }
            if (!out.containsKey(k) && out.size() >= MAX_ROWS) {
                continue;
            }
            out.merge(k, r, Row::plus);
        }
        return out;
    }

    /**
     * A windowed metric's one sample as {event count, value}; null when the
     * metric is not a SampledStat of a single sample (its figures would not
     * cover the client's life) or its sample cannot be read.
     *
     * <p>{@code SampledStat.current} and {@code oldest} are public, but the
     * Sample they return is a protected class whose public fields
     * (eventCount, value) are read here by reflection; a kafka-clients
     * without them gives null (the rows are then sent untimed).
     */
    static double[] sample(Metric m, long now) {
        if (!(m instanceof KafkaMetric km)) {
            return null;
        }
        try {
            if (!(km.measurable() instanceof SampledStat s)) {
                return null;
            }
            Object cur = s.current(now), old = s.oldest(now);
            if (cur != old) {
                return null; // more than one sample: not the client's whole life
            }
            Field[] f = SampleFields.FIELDS;
            if (f == null) {
                return null;
            }
            return new double[] {f[0].getLong(cur), f[1].getDouble(cur)};
        } catch (RuntimeException | IllegalAccessException ex) {
            return null;
        }
    }

    /** SampledStat.Sample's eventCount and value fields, made readable once (null: kafka-clients has none). */
    private static final class SampleFields {
        static final Field[] FIELDS = find();

        private static Field[] find() {
            try {
                Class<?> c = Class.forName("org.apache.kafka.common.metrics.stats.SampledStat$Sample");
                Field n = c.getField("eventCount"), v = c.getField("value");
                n.setAccessible(true);
                v.setAccessible(true);
                return new Field[] {n, v};
            } catch (ReflectiveOperationException | RuntimeException e) {
                System.err.println("java runner: request metrics: no SampledStat.Sample fields (" + e + "): fetch responses untimed");
                return null;
            }
        }
    }

    /** The broker and connection of a node-id tag ("node-1"); null for a bootstrap connection or a tag it cannot read. */
    static Key key(String tag) {
        if (tag == null || !tag.startsWith("node-")) {
            return null;
        }
        int id;
        try {
            id = Integer.parseInt(tag.substring("node-".length()));
        } catch (NumberFormatException ex) {
            return null;
        }
        if (id < 0) {
            return null; // bootstrap: no broker id yet
        }
        if (id > COORDINATOR_FLOOR) {
            return new Key(Integer.MAX_VALUE - id, COORDINATOR);
        }
        return new Key(id, DATA);
    }

    private static long count(Metric m) {
        Object v;
        try {
            v = m.metricValue();
        } catch (RuntimeException ex) {
            return 0;
        }
        if (v instanceof Number num && Double.isFinite(num.doubleValue())) {
            return Math.round(num.doubleValue());
        }
        return 0;
    }

    /** Writes member's rows as REQUESTS frames. */
    static void write(Frames frames, int member, Map<Key, Row> rows, long at) {
        for (Map.Entry<Key, Row> e : rows.entrySet()) {
            Row r = e.getValue();
            frames.requests(member, e.getKey().broker(), e.getKey().connection(), r.requests(), r.timed(), r.sumMicros(), r.maxMicros(), at);
        }
    }
}
