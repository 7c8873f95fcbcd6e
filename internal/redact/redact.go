package redact

import (
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Mask replaces every secret.
const Mask = "REDACTED"

// secretWords mark a key, parameter or setting as secret.
var secretWords = []string{"password", "passwd", "secret", "token", "jaas", "credential", "apikey", "api_key", "api-key", "private", "bearer"}

// IsSecretKey reports whether a setting or parameter name looks like it holds
// a secret (case-insensitive substring match on secretWords).
func IsSecretKey(key string) bool {
	k := strings.ToLower(key)
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// URL returns u with its userinfo password (or a lone user, which is often a
// token) and secret query parameters masked. A string that does not parse
// as a URL goes through Text instead.
func URL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" || p.Opaque != "" {
		return Text(u)
	}
	if p.User != nil {
		if _, has := p.User.Password(); has {
			p.User = url.UserPassword(p.User.Username(), Mask)
		} else {
			p.User = url.User(Mask)
		}
	}
	if p.RawQuery != "" {
		q := p.Query()
		changed := false
		for k := range q {
			if IsSecretKey(k) {
				q[k] = []string{Mask}
				changed = true
			}
		}
		if changed {
			p.RawQuery = q.Encode()
		}
	}
	return p.String()
}

// keyRE is a setting name that holds a secret.
const keyRE = `[a-z0-9_.\-]*(?:password|passwd|secret|token|jaas|credential|apikey|api_key|api-key|private|bearer)[a-z0-9_.\-]*`

var (
	// userinfo in any URL-like text: scheme://user[:password]@
	userinfoRE = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)([^/@\s"'<>]+)@`)
	// key=value, or "key": value as JSON writes it, where key names a
	// secret; the value runs to the end of a quoted string or the next
	// separator.
	// key: value on a YAML line of its own (a scenario's broker_config,
	// a manifest's ConfigMap), where key names a secret; the value runs to
	// the end of the line.
	yamlRE    = regexp.MustCompile(`(?im)^(\s*(?:- )?` + keyRE + `:[ \t]+)([^\s|>#].*)$`)
	settingRE = regexp.MustCompile(`(?i)((?:"` + keyRE + `"\s*:|\b` + keyRE + `\s*=)\s*)("(?:[^"\\]|\\.)*"|[^\s,&;"'<>\\]+)`)
)

// Text masks every secret found in free text: URL userinfo anywhere in it,
// and the values of secret-named settings (password=…, "token": "…").
func Text(s string) string {
	s = literalSecrets(s)
	s = userinfoRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := userinfoRE.FindStringSubmatch(m)
		user, _, hasPass := strings.Cut(sub[2], ":")
		if hasPass {
			return sub[1] + user + ":" + Mask + "@"
		}
		return sub[1] + Mask + "@"
	})
	s = yamlRE.ReplaceAllString(s, "${1}"+Mask)
	return settingRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := settingRE.FindStringSubmatch(m)
		// A quoted value, or any value of a JSON key ("key": 5), stays a
		// JSON string: the masked text still parses.
		if strings.HasPrefix(sub[2], `"`) || strings.HasSuffix(strings.TrimSpace(sub[1]), ":") {
			return sub[1] + `"` + Mask + `"`
		}
		return sub[1] + Mask
	})
}

// Bytes is Text for file contents.
func Bytes(b []byte) []byte {
	s := string(b)
	if r := Text(s); r != s {
		return []byte(r)
	}
	return b
}

// Writer wraps w so that every Write is masked. A secret split across two
// Write calls is not seen; sharebench writes whole lines.
func Writer(w io.Writer) io.Writer { return &writer{w: w} }

type writer struct{ w io.Writer }

func (r *writer) Write(p []byte) (int, error) {
	if _, err := r.w.Write(Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Settings returns a copy of m with the values of secret-named keys masked
// and secrets inside the other values masked too.
func Settings(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if IsSecretKey(k) {
			v = Mask
		} else {
			v = Text(v)
		}
		out[k] = v
	}
	return out
}

// MaxRelayed is the most text Relayed keeps of what another process (an
// agent, the Java runner) or an error chain hands on to the console.
const MaxRelayed = 4 << 10

// Relayed is s masked (Text) and bounded: at most max bytes (MaxRelayed when
// max ≤ 0), the middle cut with a note of how much went, so that one huge
// line from a failed agent neither floods the console nor hides its end.
func Relayed(s string, max int) string {
	if max <= 0 {
		max = MaxRelayed
	}
	s = Text(s)
	if len(s) <= max {
		return s
	}
	head, tail := max/2, max/2
	// cut on rune starts so the text stays valid UTF-8
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	end := len(s) - tail
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end++
	}
	return s[:head] + fmt.Sprintf(" […%d bytes cut…] ", end-head) + s[end:]
}

// ArgSecrets registers (AddSecret) the values of command-line arguments and
// SHAREBENCH_* variables whose key names a secret: --set
// broker_config.ssl.keystore.password=X, SHAREBENCH_..._PASSWORD=X. An error
// that later quotes X alone, without its key, still prints it masked.
func ArgSecrets(args, environ []string) {
	add := func(kv string) {
		k, v, ok := strings.Cut(strings.TrimLeft(kv, "-"), "=")
		if !ok {
			return
		}
		if IsSecretKey(k) && v != "true" && v != "false" {
			AddSecret(v)
		}
		// a value that is itself key=value (--set rate=password=PW)
		ArgSecrets([]string{v}, nil)
	}
	for _, a := range args {
		add(a)
	}
	for _, e := range environ {
		if strings.HasPrefix(e, "SHAREBENCH_") {
			add(e)
		}
	}
}
