package sharebench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.security.auth.callback.Callback;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.auth.SaslExtensionsCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenLoginHandlerTest {
    static String jwt(String claims) {
        Base64.Encoder e = Base64.getUrlEncoder().withoutPadding();
        return e.encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + e.encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + ".";
    }

    static TokenLoginHandler handler(Map<String, String> opts) {
        TokenLoginHandler h = new TokenLoginHandler();
        h.configure(opts);
        return h;
    }

    @Test
    void commandTokenLifetimeFromExpAndSubject() throws Exception {
        String tok = jwt("{\"sub\":\"alice\",\"exp\":2000000000}");
        TokenLoginHandler h = handler(Map.of("tokenCommand", "printf '%s\\n' '" + tok + "'"));
        OAuthBearerTokenCallback cb = new OAuthBearerTokenCallback();
        h.handle(new Callback[] {cb});
        OAuthBearerToken t = cb.token();
        assertEquals(tok, t.value());
        assertEquals(2_000_000_000_000L, t.lifetimeMs());
        assertEquals("alice", t.principalName());
        assertFalse(t.toString().contains(tok));
    }

    @Test
    void opaqueTokenLivesTokenLifetime() throws Exception {
        TokenLoginHandler h = handler(Map.of("token", "opaque-secret", "tokenLifetimeMs", "60000"));
        OAuthBearerToken t = h.token(h.fetch(), 1000);
        assertEquals(61_000, t.lifetimeMs());
        assertEquals("sharebench", t.principalName());
        TokenLoginHandler d = handler(Map.of("token", "x"));
        assertEquals(1000 + TokenLoginHandler.DEFAULT_LIFETIME_MS, d.token("x", 1000).lifetimeMs());
    }

    @Test
    void tokenFileReadAtEachFetch(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("tok");
        Files.writeString(f, "first\n");
        TokenLoginHandler h = handler(Map.of("tokenFile", f.toString()));
        assertEquals("first", h.fetch());
        Files.writeString(f, "second");
        assertEquals("second", h.fetch());
    }

    @Test
    void failingCommandIsAnErrorWithoutItsOutput() {
        TokenLoginHandler h = handler(Map.of("tokenCommand", "echo leaked-token; echo why >&2; exit 3"));
        IOException e = assertThrows(IOException.class, h::fetch);
        assertTrue(e.getMessage().contains("exit status 3: why"), e.getMessage());
        assertFalse(e.getMessage().contains("leaked-token"));
        OAuthBearerTokenCallback cb = new OAuthBearerTokenCallback();
        assertThrows(IllegalArgumentException.class, () -> handler(Map.of()));
        assertThrows(IllegalArgumentException.class, () -> handler(Map.of("token", "a", "tokenFile", "b")));
        assertNull(cb.token());
    }

    @Test
    void extensions() throws Exception {
        TokenLoginHandler h = handler(Map.of("token", "t", "extension_logicalCluster", "lkc-1"));
        SaslExtensionsCallback x = new SaslExtensionsCallback();
        h.handle(new Callback[] {x});
        assertEquals(Map.of("logicalCluster", "lkc-1"), x.extensions().map());
    }

    /** The JAAS line the Go side writes (connection.jaas) parses back to the same options, quotes and backslashes included. */
    @Test
    void jaasLineFromGoParses() throws Exception {
        Properties p = new Properties();
        // as written by consumers.writeRunnerConfig (propertyValue escapes backslashes)
        p.load(new StringReader("client.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                + "extension_a=\"x\" tokenCommand=\"printf '%s' \\\\\"q\\\\\\\\b\\\\\"\";\nother=1\n"));
        Properties sel = ClientSecurity.select(p);
        assertEquals(1, sel.size());
        JaasContext ctx = JaasContext.loadClientContext(Map.of("sasl.jaas.config", new Password(sel.getProperty("sasl.jaas.config"))));
        List<AppConfigurationEntry> es = ctx.configurationEntries();
        assertEquals(1, es.size());
        assertEquals("printf '%s' \"q\\b\"", es.get(0).getOptions().get("tokenCommand"));
        assertEquals("x", es.get(0).getOptions().get("extension_a"));
    }
}
