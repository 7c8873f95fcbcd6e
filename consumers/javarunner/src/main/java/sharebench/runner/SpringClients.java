package sharebench.runner;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecords;

/**
 * What a Spring member sees of the clients its container creates (client
 * spring, docs/how-to/compare-clients.md). A Spring container owns its consumers and
 * their poll loop, so the member wraps each client the consumer factory
 * makes in a proxy: a poll writes the POLL frame and stamps the time on the
 * polling thread (a listener runs on the thread that polled, so the
 * acquisition deadline of a share record is that time plus the lock), and a
 * close reads the client's request metrics first (RequestMetrics), summed
 * over the member's clients and written once when the container has stopped.
 */
final class SpringClients {
    private final Member m;
    private final ThreadLocal<long[]> polledAt = ThreadLocal.withInitial(() -> new long[1]);
    private final Map<RequestMetrics.Key, RequestMetrics.Row> rows = new TreeMap<>();

    SpringClients(Member m) {
        this.m = m;
    }

    /** The client c behind a proxy of interface iface (ShareConsumer, Consumer). */
    @SuppressWarnings("unchecked")
    <T> T wrap(Class<T> iface, T c) {
        return (T) Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[] {iface}, (proxy, method, args) -> {
            String name = method.getName();
            if (name.equals("close")) {
                read(c, iface);
            }
            Object out;
            try {
                out = method.invoke(c, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            if (name.equals("poll") && out instanceof ConsumerRecords<?, ?> recs && !m.crashed) {
                long now = m.clock.now();
                polledAt.get()[0] = now;
                m.frames.write(Frames.POLL, 0, m.id, recs.count(), null, now, 0);
            }
            return out;
        });
    }

    /** A container's settings as the "spring" member of run.json's client.settings (results.SpringSettings). */
    static String settings(String container, int concurrency, String ackMode, boolean syncCommits) {
        return "\"spring\":{\"container\":\"" + container + "\",\"concurrency\":" + concurrency + ",\"ack_mode\":\"" + ackMode
                + "\",\"sync_commits\":" + syncCommits + "}";
    }

    /** When the calling thread's client last returned from poll (runner clock ns; 0: never). */
    long polledAt() {
        return polledAt.get()[0];
    }

    private void read(Object c, Class<?> iface) {
        try {
            @SuppressWarnings("unchecked")
            Map<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> metrics =
                    (Map<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric>) iface.getMethod("metrics").invoke(c);
            Map<RequestMetrics.Key, RequestMetrics.Row> r = RequestMetrics.read(metrics);
            synchronized (rows) {
                r.forEach((k, v) -> rows.merge(k, v, RequestMetrics.Row::plus));
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.err.println("spring runner: member " + m.id + ": request metrics: " + e);
        }
    }

    /** Writes the summed request rows of the member's closed clients (REQUESTS frames). */
    void report() {
        synchronized (rows) {
            RequestMetrics.write(m.frames, m.id, rows, m.clock.now());
        }
    }
}
