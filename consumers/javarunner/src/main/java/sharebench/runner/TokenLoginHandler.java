package sharebench.runner;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.auth.SaslExtensions;
import org.apache.kafka.common.security.auth.SaslExtensionsCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;

/**
 * The OAUTHBEARER login callback handler of the runner's clients
 * (sasl.login.callback.handler.class), as connection.tokenSource on the Go
 * side: the JAAS options give exactly one of {@code token} (a static
 * token), {@code tokenFile} (read at each login and refresh) or
 * {@code tokenCommand} (run by sh -c at each login and refresh, 30 s at
 * most; its standard output is the token), {@code tokenLifetimeMs} (the
 * lifetime of a token without an exp claim, default 5 min) and
 * {@code extension_NAME} SASL extensions. The token is not verified here
 * (the broker does); its exp claim sets its lifetime, and the client's
 * login refreshes it before then (sasl.login.refresh.*). No token appears in
 * an error message.
 */
public final class TokenLoginHandler implements AuthenticateCallbackHandler {
    static final long DEFAULT_LIFETIME_MS = 5 * 60 * 1000;
    static final long COMMAND_TIMEOUT_MS = 30_000;
    private static final Pattern EXP = Pattern.compile("\"exp\"\\s*:\\s*([0-9]+(?:\\.[0-9]+)?)");
    private static final Pattern SUB = Pattern.compile("\"sub\"\\s*:\\s*\"([^\"]*)\"");

    private String token, tokenFile, tokenCommand;
    private long lifetimeMs = DEFAULT_LIFETIME_MS;
    private final Map<String, String> extensions = new HashMap<>();

    @Override
    public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {
        if (jaasConfigEntries.size() != 1) {
            throw new IllegalArgumentException("sharebench token handler: want one JAAS entry, got " + jaasConfigEntries.size());
        }
        configure(jaasConfigEntries.get(0).getOptions());
    }

    void configure(Map<String, ?> opts) {
        for (Map.Entry<String, ?> e : opts.entrySet()) {
            String k = e.getKey(), v = String.valueOf(e.getValue());
            switch (k) {
                case "token" -> token = v;
                case "tokenFile" -> tokenFile = v;
                case "tokenCommand" -> tokenCommand = v;
                case "tokenLifetimeMs" -> lifetimeMs = Long.parseLong(v);
                default -> {
                    if (k.startsWith("extension_")) {
                        extensions.put(k.substring("extension_".length()), v);
                    }
                }
            }
        }
        int n = (token != null ? 1 : 0) + (tokenFile != null ? 1 : 0) + (tokenCommand != null ? 1 : 0);
        if (n != 1) {
            throw new IllegalArgumentException("sharebench token handler: give exactly one of token, tokenFile, tokenCommand");
        }
    }

    @Override
    public void handle(Callback[] callbacks) throws IOException, UnsupportedCallbackException {
        for (Callback cb : callbacks) {
            if (cb instanceof OAuthBearerTokenCallback t) {
                try {
                    t.token(token(fetch(), System.currentTimeMillis()));
                } catch (IOException e) {
                    t.error("invalid_token", e.getMessage(), null);
                }
            } else if (cb instanceof SaslExtensionsCallback x) {
                x.extensions(new SaslExtensions(extensions));
            } else {
                throw new UnsupportedCallbackException(cb);
            }
        }
    }

    /** The token's text: the static token, the file's content or the command's output, trimmed. */
    String fetch() throws IOException {
        String tok;
        if (token != null) {
            tok = token;
        } else if (tokenFile != null) {
            tok = Files.readString(Path.of(tokenFile), StandardCharsets.UTF_8);
        } else {
            tok = run(tokenCommand);
        }
        tok = tok.strip();
        if (tok.isEmpty()) {
            throw new IOException("sasl: OAUTHBEARER token is empty");
        }
        return tok;
    }

    /** Runs sh -c cmd and returns its standard output (its error output cut short on failure). */
    static String run(String cmd) throws IOException {
        Process p = new ProcessBuilder("sh", "-c", cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        Thread drain = new Thread(() -> copy(p.getErrorStream(), err));
        drain.start();
        copy(p.getInputStream(), out);
        try {
            if (!p.waitFor(COMMAND_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException("sasl.token_command: timed out after " + COMMAND_TIMEOUT_MS / 1000 + " s");
            }
            drain.join(1000);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("sasl.token_command: interrupted");
        }
        if (p.exitValue() != 0) {
            String msg = err.toString(StandardCharsets.UTF_8).strip();
            if (msg.length() > 300) {
                msg = msg.substring(0, 300) + "...";
            }
            throw new IOException("sasl.token_command: exit status " + p.exitValue() + ": " + msg);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static void copy(InputStream in, ByteArrayOutputStream out) {
        try (in) {
            in.transferTo(out);
        } catch (IOException e) {
            // the process ended
        }
    }

    /** An OAuthBearerToken of tok fetched at now: lifetime from its exp claim, else lifetimeMs. */
    OAuthBearerToken token(String tok, long now) {
        String claims = claims(tok);
        long life = now + lifetimeMs;
        String sub = "sharebench";
        if (claims != null) {
            Matcher m = EXP.matcher(claims);
            if (m.find()) {
                life = (long) (Double.parseDouble(m.group(1)) * 1000);
            }
            Matcher s = SUB.matcher(claims);
            if (s.find()) {
                sub = s.group(1);
            }
        }
        long lifetime = life;
        String principal = sub;
        return new OAuthBearerToken() {
            @Override
            public String value() {
                return tok;
            }

            @Override
            public Set<String> scope() {
                return Set.of();
            }

            @Override
            public long lifetimeMs() {
                return lifetime;
            }

            @Override
            public String principalName() {
                return principal;
            }

            @Override
            public Long startTimeMs() {
                return now;
            }

            @Override
            public String toString() {
                return "OAuthBearerToken(principal " + principal + ", lifetime " + lifetime + ")"; // never the token
            }
        };
    }

    /** The JSON claims of a JWT (its second part), or null when tok is not one. */
    static String claims(String tok) {
        String[] parts = tok.split("\\.", -1);
        if (parts.length != 3) {
            return null;
        }
        try {
            return new String(Base64.getUrlDecoder().decode(parts[1].replace("=", "")), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    @Override
    public void close() {
    }
}
