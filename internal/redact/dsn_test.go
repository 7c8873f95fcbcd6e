package redact

import (
	"strings"
	"testing"
)

// Every quoting form libpq accepts: DSNFields reads the value as libpq
// does, DSN masks exactly the secret's span, and Text masks it in a
// message without the characters around it.
func TestDSNForms(t *testing.T) {
	for _, c := range []struct {
		dsn    string
		secret []string // the secret values, unescaped, in order
		masked string   // DSN(dsn)
	}{
		{"host=h password=x1 dbname=d", []string{"x1"}, "host=h password=REDACTED dbname=d"},
		{"host=h password = x2 dbname=d", []string{"x2"}, "host=h password = REDACTED dbname=d"},
		{"host=h password='a b' dbname=d", []string{"a b"}, "host=h password='REDACTED' dbname=d"},
		{`host=h password='a\'b' dbname=d`, []string{"a'b"}, "host=h password='REDACTED' dbname=d"},
		{`host=h password='a\\b' dbname=d`, []string{`a\b`}, "host=h password='REDACTED' dbname=d"},
		{`host=h password=a\ b dbname=d`, []string{"a b"}, "host=h password=REDACTED dbname=d"},
		{"host=h password='' dbname=d", []string{""}, "host=h password='REDACTED' dbname=d"},
		{"password=first host=h password=second", []string{"first", "second"}, "password=REDACTED host=h password=REDACTED"},
		{"host=h sslpassword=keypw sslkey=/k", []string{"keypw"}, "host=h sslpassword=REDACTED sslkey=/k"},
		{"host=h\tpassword=\n'tab nl'", []string{"tab nl"}, "host=h\tpassword=\n'REDACTED'"},
		{"postgres://app:s3cret@db:5432/bench", []string{"s3cret"}, "postgres://app:REDACTED@db:5432/bench"},
		{"postgresql://app:p%40ss%3Aw@db/bench", []string{"p@ss:w"}, "postgresql://app:REDACTED@db/bench"},
		{"postgres://app@db/bench?password=qp&sslmode=disable", []string{"qp"}, "postgres://app@db/bench?password=REDACTED&sslmode=disable"},
		{"postgres://db/bench?pass%77ord=enc&sslpassword=kp", []string{"enc", "kp"}, "postgres://db/bench?pass%77ord=REDACTED&sslpassword=REDACTED"},
		{"postgres://u:mh@h1:5432,h2:5433,[::1]:5434/db?target_session_attrs=read-write", []string{"mh"}, "postgres://u:REDACTED@h1:5432,h2:5433,[::1]:5434/db?target_session_attrs=read-write"},
		{"postgres://u:q?x@h/db", []string{"q?x"}, "postgres://u:REDACTED@h/db"},
		{"postgres://u:@h/db", []string{""}, "postgres://u:REDACTED@h/db"},
	} {
		fields, err := DSNFields(c.dsn)
		if err != nil {
			t.Errorf("DSNFields(%q): %v", c.dsn, err)
			continue
		}
		var secrets []string
		for _, f := range fields {
			if IsDSNSecret(f.Key) {
				secrets = append(secrets, f.Value)
			}
		}
		if strings.Join(secrets, "|") != strings.Join(c.secret, "|") || len(secrets) != len(c.secret) {
			t.Errorf("DSNFields(%q) secrets %q, want %q", c.dsn, secrets, c.secret)
		}
		if got := DSN(c.dsn); got != c.masked {
			t.Errorf("DSN(%q)\n got %q\nwant %q", c.dsn, got, c.masked)
		}
		if strings.Contains(c.dsn, "\n") {
			continue // free text: a setting is on one line
		}
		msg := "connect (" + c.dsn + "): refused"
		if got, want := Text(msg), "connect ("+c.masked+"): refused"; got != want {
			t.Errorf("Text(%q)\n got %q\nwant %q", msg, got, want)
		}
	}
}

// A malformed dsn is an error that quotes no value; a quoted value that
// never closes is masked to the end.
func TestDSNFieldsErrors(t *testing.T) {
	for dsn, want := range map[string]string{
		"host=h password='open":          "password: a quoted value without its closing quote",
		"host=h password":                `"password" has no "=": expected key=value`,
		"host=h pass word=x":             `missing "=" after "pass"`,
		"host=h =x":                      `"=" without a key`,
		"postgres://u:p%zz@h/db":         "the password: invalid percent-encoding",
		"postgres://h/db?sslmode":        `query parameter "sslmode" has no "=": expected key=value`,
		"postgres://h/db?password=%g1":   "query parameter password: invalid percent-encoding",
		"host=h\x00 password=x":          "NUL",
		"postgres://h/db?pass%zzword=x1": "a query parameter's name: invalid percent-encoding",
	} {
		_, err := DSNFields(dsn)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DSNFields(%q): %v, want %q", dsn, err, want)
		}
	}
	if got := DSN("host=h password='open secret"); got != "host=h password='REDACTED'" {
		t.Errorf("unterminated: %q", got)
	}
	if got := DSN("postgres://u:p%zzsecret@h/db"); strings.Contains(got, "secret") {
		t.Errorf("bad escape: %q", got)
	}
}

// Masking in free text keeps every character but the secret's: the
// quotes, brackets, backticks and colons a message puts around it.
func TestTextKeepsNeighbours(t *testing.T) {
	for in, want := range map[string]string{
		"dial failed: 'password=x' host=h":               "dial failed: 'password=REDACTED' host=h",
		"cannot parse `host=h password=xxxxx`: failed":   "cannot parse `host=h password=REDACTED`: failed",
		"(password=x) y":                                 "(password=REDACTED) y",
		"[password=x] {password=y}":                      "[password=REDACTED] {password=REDACTED}",
		"password=x: refused":                            "password=REDACTED: refused",
		"password=a:b refused":                           "password=REDACTED refused",
		"password='se cret' host=h":                      "password='REDACTED' host=h",
		`password='x\'y' h`:                              "password='REDACTED' h",
		"password='never closed\nnext line":              "password='REDACTED\nnext line",
		`{"m":"password=p1\" x"}`:                        `{"m":"password=REDACTED\" x"}`,
		`{"m":"password=p2\nnext line"}`:                 `{"m":"password=REDACTED\nnext line"}`,
		`password=a\'b\\c\ d e`:                          "password=REDACTED e",
		"x password=\"a b\" y":                           `x password="REDACTED" y`,
		"SHAREBENCH_X={dsn: 'password=qq'}: not allowed": "SHAREBENCH_X={dsn: 'password=REDACTED'}: not allowed",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q)\n got %q\nwant %q", in, got, want)
		}
		if got := Text(want); got != want {
			t.Errorf("Text is not idempotent on %q: %q", want, got)
		}
	}
}

// A secret inside a value of an argument or variable is registered
// without the punctuation after it, so masking it takes nothing else.
func TestArgSecretsNested(t *testing.T) {
	defer ForgetSecrets()
	ArgSecrets(nil, []string{"SHAREBENCH_DESTINATION={dsn: 'password=NestPw1'}", "SHAREBENCH_Y=x password='Nest Pw2' y"})
	for in, want := range map[string]string{
		"{dsn: 'NestPw1'}: no": "{dsn: 'REDACTED'}: no",
		"got Nest Pw2.":        "got REDACTED.",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

// AddDSNSecrets registers a dsn's password as written in the dsn and as
// YAML quotes that, so the scenario file shown masks it in any form; a
// ${VAR} is not registered.
func TestAddDSNSecrets(t *testing.T) {
	defer ForgetSecrets()
	AddDSNSecrets(`host=h password='It\'s Pw3' sslpassword=${KEYPW}`)
	for _, shown := range []string{`dsn: "host=h password='It\\'s Pw3'"`, `dsn: 'host=h password=''It\''s Pw3'''`, `dsn: host=h password='It\'s Pw3'`, "It's Pw3"} {
		if got := Text(shown); strings.Contains(got, "Pw3") {
			t.Errorf("Text(%q) = %q", shown, got)
		}
	}
	if got := Text("${KEYPW}"); got != "${KEYPW}" {
		t.Errorf("a variable was registered: %q", got)
	}
}

// EscapeDSNValue writes a value that DSNFields reads back whole, in both
// forms, whatever it holds.
func TestEscapeDSNValue(t *testing.T) {
	for _, v := range []string{"plain", `a'b c\d`, "at@slash/colon:q?amp&eq=pct%", "tab\tnl\n", ""} {
		for _, form := range []struct{ before, after string }{
			{"host=h password=", " dbname=d"},
			{"host=h password='", "' dbname=d"},
			{"postgres://u:", "@h/db"},
			{"postgres://u@h/db?password=", "&sslmode=disable"},
		} {
			if v == "" && strings.HasSuffix(form.before, "=") && !IsDSNURL(form.before) {
				continue // libpq reads the next word: an empty value is written ''
			}
			dsn := form.before + EscapeDSNValue(form.before, v) + form.after
			fields, err := DSNFields(dsn)
			if err != nil {
				t.Errorf("%q: %v", dsn, err)
				continue
			}
			got := ""
			for _, f := range fields {
				if f.Key == "password" {
					got = f.Value
				}
			}
			if got != v {
				t.Errorf("%q: password %q, want %q", dsn, got, v)
			}
		}
	}
}
