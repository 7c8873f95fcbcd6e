package sharebench.runner;

import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * The requests a member's client sent, per broker, read from the client's
 * own metrics ({@code metrics()}, group "consumer-node-metrics", tag
 * node-id "node-N", metric request-total: every request written on that
 * connection since the client started, whatever its API). A member writes
 * them as REQUESTS frames when it stops, just before its client closes; the
 * Go harness adds them up over members and JVMs (consumers/java_fleet.go).
 *
 * <p>What the metrics cannot say, and so is not sent: which API each
 * request was (the client keeps no per-API count per node), how long the
 * requests took (the per-node request-latency-avg/max are recorded for
 * fetch responses only, and over the metrics' sample window, the last 30 to
 * 60 s by default, not the run), and whether a fetch came back empty.
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
    static final String NODE_TAG = "node-id";
    /** A broker's connections: the ordinary one, and the one to it as group coordinator. */
    static final int DATA = 0, COORDINATOR = 1;
    /** Coordinator connection ids are Integer.MAX_VALUE − broker id; broker ids stay below this. */
    static final int COORDINATOR_FLOOR = Integer.MAX_VALUE / 2;
    /** At most this many rows per client (brokers × connections): a bound on what one member sends. */
    static final int MAX_ROWS = 256;

    /** One broker's connection. */
    record Key(int broker, int connection) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            int c = Integer.compare(broker, o.broker);
            return c != 0 ? c : Integer.compare(connection, o.connection);
        }
    }

    private RequestMetrics() {
    }

    /** The request counts in a client's metrics, per broker and connection (zero counts left out). */
    static Map<Key, Long> read(Map<MetricName, ? extends Metric> metrics) {
        Map<Key, Long> out = new TreeMap<>();
        for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
            MetricName n = e.getKey();
            if (!TOTAL.equals(n.name()) || !n.group().endsWith(GROUP_SUFFIX)) {
                continue;
            }
            Key k = key(n.tags().get(NODE_TAG));
            if (k == null) {
                continue;
            }
            long count = count(e.getValue());
            if (count <= 0) {
                continue;
            }
            if (!out.containsKey(k) && out.size() >= MAX_ROWS) {
                continue;
            }
            out.merge(k, count, Long::sum);
        }
        return out;
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

    /** Writes member's counts as REQUESTS frames. */
    static void write(Frames frames, int member, Map<Key, Long> counts, long at) {
        for (Map.Entry<Key, Long> e : counts.entrySet()) {
            frames.requests(member, e.getKey().broker(), e.getKey().connection(), e.getValue(), at);
        }
    }
}
