package redact

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// PostgreSQL connection strings (a destination's dsn) in libpq's two
// grammars: a URL, postgres[ql]://user:password@host:port,host2/db?key=value,
// and key=value pairs, host=h password='a b', where a value may be single-
// quoted and a backslash escapes the next character, quoted or not.
// DSNFields is the one reading of them: the destination's validation takes
// the keys and secrets from it, and masking the values' positions.

// DSNField is one setting of a connection string.
type DSNField struct {
	// Key is the keyword; a URL's userinfo gives "user" and "password".
	Key string
	// Value is the value, unquoted and unescaped (a URL's percent-decoded).
	Value string
	// Start and End delimit the value as written, quotes included:
	// dsn[Start:End].
	Start, End int
}

// blanks are the characters libpq skips around keys and values.
const blanks = " \t\n\r\v\f"

// IsDSNURL reports whether dsn is in the URL form.
func IsDSNURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// DSNFields reads a connection string's settings in order (a key given
// twice appears twice). An error says what is malformed without quoting a
// value; the fields read before it are returned with it, and a quoted
// value that never closes runs to the end of dsn.
func DSNFields(dsn string) ([]DSNField, error) {
	if strings.IndexByte(dsn, 0) >= 0 {
		return nil, errors.New("a NUL byte in the connection string")
	}
	if IsDSNURL(dsn) {
		return urlFields(dsn)
	}
	var out []DSNField
	i := 0
	for {
		for i < len(dsn) && strings.IndexByte(blanks, dsn[i]) >= 0 {
			i++
		}
		if i == len(dsn) {
			return out, nil
		}
		eq := strings.IndexByte(dsn[i:], '=')
		if eq < 0 {
			return out, fmt.Errorf("%q has no \"=\": expected key=value", firstWord(dsn[i:]))
		}
		key := strings.Trim(dsn[i:i+eq], blanks)
		if key == "" {
			return out, errors.New(`"=" without a key before it`)
		}
		if strings.ContainsAny(key, blanks) {
			return out, fmt.Errorf("missing \"=\" after %q", firstWord(key))
		}
		i += eq + 1
		for i < len(dsn) && strings.IndexByte(blanks, dsn[i]) >= 0 {
			i++
		}
		n, closed := libpqValue(dsn[i:], false)
		out = append(out, DSNField{Key: key, Value: unescapeValue(dsn[i : i+n]), Start: i, End: i + n})
		if !closed {
			return out, fmt.Errorf("%s: a quoted value without its closing quote", key)
		}
		i += n
	}
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, blanks); i >= 0 {
		return s[:i]
	}
	return s
}

// libpqValue is the length of the value s starts with: a quoted value
// ('…') runs to its closing quote, an unquoted one to a blank, and a
// backslash escapes the next byte in both. closed is false for a quoted
// value without its closing quote (n is then len(s)). In free text (free:
// a message, not a dsn) an unquoted value also ends at a byte of freeStops,
// at a colon before a blank and at a backslash that does not escape a byte
// of freeEscapes, and a quoted one at the end of its line, so that masking
// leaves the text around a value as it was.
func libpqValue(s string, free bool) (n int, closed bool) {
	if strings.HasPrefix(s, "'") {
		for i := 1; i < len(s); i++ {
			switch {
			case s[i] == '\\':
				i++
			case s[i] == '\'':
				return i + 1, true
			case free && s[i] == '\n':
				return i, false
			}
		}
		return len(s), false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte(blanks, c) >= 0:
			return i, true
		case c == '\\' && free && (i+1 == len(s) || strings.IndexByte(freeEscapes, s[i+1]) < 0):
			return i, true
		case c == '\\':
			i++
		case free && (strings.IndexByte(freeStops, c) >= 0 || c == ':' && (i+1 == len(s) || strings.IndexByte(blanks, s[i+1]) >= 0)):
			return i, true
		}
	}
	return len(s), true
}

// freeStops end an unquoted value in free text: the punctuation a message
// puts around a setting. freeEscapes are the bytes a backslash escapes in
// a value there; any other escape is the text's own (JSON's \" or \n).
const (
	freeStops   = ",&;\"'<>`)]}"
	freeEscapes = " '\\"
)

// unescapeValue is a key=value value without its quotes and escapes.
func unescapeValue(raw string) string {
	if strings.HasPrefix(raw, "'") {
		raw = strings.TrimSuffix(raw[1:], "'")
	}
	if !strings.Contains(raw, `\`) {
		return raw
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' {
			if i++; i == len(raw) {
				break
			}
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}

// urlFields reads the URL form as libpq does: the userinfo ends at the
// first '@' before a '/', the password after its first ':'; the query is
// '&'-separated key=value pairs, both percent-decoded. The hosts, ports and
// database are left to the connection library.
func urlFields(dsn string) ([]DSNField, error) {
	var out []DSNField
	start := strings.Index(dsn, "://") + 3
	rest, after := dsn[start:], start
	if i := strings.IndexAny(rest, "@/"); i >= 0 && rest[i] == '@' {
		after += i + 1
		user, pass, hasPass := strings.Cut(rest[:i], ":")
		if err := addDecoded(&out, "user", user, start, "the user"); err != nil {
			return out, err
		}
		if hasPass {
			if err := addDecoded(&out, "password", pass, start+len(user)+1, "the password"); err != nil {
				return out, err
			}
		}
	}
	q := strings.IndexByte(dsn[after:], '?')
	if q < 0 {
		return out, nil
	}
	pos := after + q + 1
	for _, pair := range strings.Split(dsn[pos:], "&") {
		rawKey, rawVal, ok := strings.Cut(pair, "=")
		key, err := url.PathUnescape(rawKey)
		switch {
		case err != nil:
			return out, errors.New("a query parameter's name: invalid percent-encoding")
		case !ok:
			return out, fmt.Errorf("query parameter %q has no \"=\": expected key=value", key)
		}
		if err := addDecoded(&out, key, rawVal, pos+len(rawKey)+1, "query parameter "+key); err != nil {
			return out, err
		}
		pos += len(pair) + 1
	}
	return out, nil
}

// addDecoded appends the URL component raw, at pos in the dsn, decoded.
func addDecoded(out *[]DSNField, key, raw string, pos int, what string) error {
	v, err := url.PathUnescape(raw)
	*out = append(*out, DSNField{Key: key, Value: v, Start: pos, End: pos + len(raw)})
	if err != nil {
		(*out)[len(*out)-1].Value = raw
		return fmt.Errorf("%s: invalid percent-encoding (%%XX with XX two hex digits; %%25 for a %%)", what)
	}
	return nil
}

// EscapeDSNValue is v written as a value of dsn's form, to be read back
// as v: percent-encoded in a URL (all but letters, digits and -._~), and
// in key=value pairs a backslash before each blank, quote and backslash.
func EscapeDSNValue(dsn, v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case !IsDSNURL(dsn) && strings.IndexByte(blanks+`'\`, c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		case IsDSNURL(dsn) && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0):
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// IsDSNSecret reports whether a connection string's key holds a secret:
// password, sslpassword, oauth_client_secret, the SCRAM keys.
func IsDSNSecret(key string) bool {
	return IsSecretKey(key) || strings.HasPrefix(key, "scram_") && strings.HasSuffix(key, "_key")
}

// DSN is dsn with the value of every secret key masked, and everything
// else as written; a value quoted in dsn stays quoted.
func DSN(dsn string) string {
	fields, _ := DSNFields(dsn)
	var b strings.Builder
	at := 0
	for _, f := range fields {
		if !IsDSNSecret(f.Key) {
			continue
		}
		b.WriteString(dsn[at:f.Start])
		if strings.HasPrefix(dsn[f.Start:f.End], "'") {
			b.WriteString("'" + Mask + "'")
		} else {
			b.WriteString(Mask)
		}
		at = f.End
	}
	b.WriteString(dsn[at:])
	return b.String()
}

// AddDSNSecrets registers (AddSecret) the secret values of dsn, each as
// its value and as written, and as YAML quotes what is written (a
// single-quoted scalar doubles its quotes; a double-quoted one escapes as
// JSON does, which AddSecret covers), so that a dsn's password is masked
// wherever it appears: in a message, or in the scenario file shown. A
// value that holds a ${VAR} is not a secret yet.
func AddDSNSecrets(dsn string) {
	fields, _ := DSNFields(dsn)
	for _, f := range fields {
		if !IsDSNSecret(f.Key) || strings.Contains(f.Value, "${") {
			continue
		}
		written := strings.TrimSuffix(strings.TrimPrefix(dsn[f.Start:f.End], "'"), "'")
		for _, v := range []string{f.Value, written, strings.ReplaceAll(written, "'", "''")} {
			AddSecret(v)
		}
	}
}
