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
	// a PostgreSQL URL in free text, masked as DSN reads it (a query
	// parameter's percent-encoded name included)
	dsnURLRE = regexp.MustCompile("postgres(?:ql)?://[^\\s\\\\\"'<>`]+")
	// key: value on a YAML line of its own (a scenario's broker_config,
	// a manifest's ConfigMap), where key names a secret; the value runs to
	// the end of the line.
	yamlRE = regexp.MustCompile(`(?im)^(\s*(?:- )?` + keyRE + `:[ \t]+)([^\s|>#].*)$`)
	// key=value (blanks around the =), or "key": value as JSON writes it,
	// where key names a secret: the start of a setting whose value Text
	// masks (settingValue says where the value ends).
	settingRE = regexp.MustCompile(`(?i)(?:"` + keyRE + `"\s*:\s*|\b` + keyRE + `[ \t]*=[ \t]*)`)
	// jsonStringRE is a JSON string at the start of a value.
	jsonStringRE = regexp.MustCompile(`^"(?:[^"\\]|\\.)*"`)
)

// Text masks every secret found in free text: the registered literals
// (AddSecret), URL userinfo anywhere in it, and the values of secret-named
// settings (password=…, password = 'a b', "token": "…"), each value read
// as libpq reads one (quotes, backslash escapes) but ending where the
// punctuation around it starts, so only the secret goes.
func Text(s string) string {
	s = literalSecrets(s)
	s = dsnURLRE.ReplaceAllStringFunc(s, func(m string) string {
		u := strings.TrimRight(m, ".,:;)]}") // the sentence's, not the URL's
		return DSN(u) + m[len(u):]
	})
	s = userinfoRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := userinfoRE.FindStringSubmatch(m)
		if IsDSNURL(sub[1]) { // masked above; a lone user is a user there
			return m
		}
		user, _, hasPass := strings.Cut(sub[2], ":")
		if hasPass {
			return sub[1] + user + ":" + Mask + "@"
		}
		return sub[1] + Mask + "@"
	})
	s = yamlRE.ReplaceAllString(s, "${1}"+Mask)
	var b strings.Builder
	at := 0
	for _, m := range settingRE.FindAllStringIndex(s, -1) {
		if m[0] < at { // inside the value masked before
			continue
		}
		b.WriteString(s[at:m[1]])
		at = m[1] + settingValue(&b, s[m[1]:], strings.HasSuffix(strings.TrimSpace(s[m[0]:m[1]]), ":"))
	}
	if at == 0 {
		return s
	}
	b.WriteString(s[at:])
	return b.String()
}

// settingValue writes the mask of the value rest starts with into b and
// returns the value's length. A JSON string, or any value of a JSON key
// ("key": 5), stays a JSON string, so the masked text still parses; a
// single-quoted value stays quoted.
func settingValue(b *strings.Builder, rest string, jsonKey bool) int {
	if m := jsonStringRE.FindString(rest); m != "" {
		b.WriteString(`"` + Mask + `"`)
		return len(m)
	}
	n, closed := libpqValue(rest, true)
	switch {
	case jsonKey:
		b.WriteString(`"` + Mask + `"`)
	case strings.HasPrefix(rest, "'") && closed:
		b.WriteString("'" + Mask + "'")
	case strings.HasPrefix(rest, "'"):
		b.WriteString("'" + Mask)
	case n > 0:
		b.WriteString(Mask)
	}
	return n
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
		// the settings inside a value (--set rate=password=PW,
		// SHAREBENCH_DESTINATION={dsn: 'password=PW'}), each value read as
		// Text reads it, not the punctuation after it
		for _, m := range settingRE.FindAllStringIndex(v, -1) {
			rest := v[m[1]:]
			if q := jsonStringRE.FindString(rest); q != "" {
				AddSecret(q[1 : len(q)-1])
				continue
			}
			n, _ := libpqValue(rest, true)
			AddSecret(unescapeValue(rest[:n]))
		}
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
