package sharebench.runner;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Properties;

/**
 * How every client of the runner reaches the cluster: the Java client
 * properties (security.protocol, ssl.*, sasl.*) the harness wrote under
 * "client." in the runner's configuration (connection.Settings.JavaProperties
 * on the Go side). They may hold secrets (a password, a token, a private
 * key): they are read once, kept in memory, and never printed. The harness
 * removes the file once the runner has said hello.
 */
final class ClientSecurity {
    static final String PREFIX = "client.";

    private static volatile Properties props = new Properties();

    private ClientSecurity() {
    }

    /** Reads the client properties of the configuration file at path. */
    static void load(String path) throws IOException {
        Properties p = new Properties();
        try (InputStream in = new FileInputStream(path)) {
            p.load(in);
        }
        props = select(p);
    }

    /** The properties under PREFIX, without it. */
    static Properties select(Properties p) {
        Properties out = new Properties();
        for (String k : p.stringPropertyNames()) {
            if (k.startsWith(PREFIX)) {
                out.put(k.substring(PREFIX.length()), p.getProperty(k));
            }
        }
        return out;
    }

    /** Adds the connection's settings to a client's properties. */
    static void apply(Properties p) {
        for (Map.Entry<Object, Object> e : props.entrySet()) {
            p.put(e.getKey(), e.getValue());
        }
    }
}
