package connection

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/redact"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestParseConnectionFile(t *testing.T) {
	text := `
bootstrap: [b1:9092, b2:9092]
dial_timeout: 5s
tls:
  ca_file: /ca.pem
  server_name: kafka.example
sasl:
  mechanism: scram-sha-512
  username: alice
  password: ${PW}x$$
`
	c, err := Parse("conn.yaml", []byte(text), env(map[string]string{"PW": "s3cret"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Bootstrap) != 2 || c.DialTimeout != 5*time.Second || c.TLS.CAFile != "/ca.pem" || c.TLS.ServerName != "kafka.example" {
		t.Fatalf("%+v %+v", c, c.TLS)
	}
	if c.SASL.Mechanism != MechScram512 || c.SASL.Username != "alice" || c.SASL.Password != "s3cretx$" {
		t.Fatalf("%+v", c.SASL)
	}
	if d := c.Describe(); strings.Contains(d, "s3cret") || !strings.Contains(d, "SASL_SSL") {
		t.Errorf("Describe %q", d)
	}
}

func TestParseConnectionErrorsNameFileKeyAndExpectation(t *testing.T) {
	for text, want := range map[string]string{
		"tls:\n  ca_fil: x\n":                              "conn.yaml:2: tls.ca_fil: unknown key; expected one of enabled, ca_file",
		"sasl:\n  mechanism: KERBEROS\n":                   `conn.yaml:2: sasl.mechanism: "KERBEROS": expected one of PLAIN, SCRAM-SHA-256`,
		"sasl:\n  mechanism: PLAIN\n  password: ${NOPE}\n": "conn.yaml:3: sasl.password: environment variable NOPE is not set",
		"tls:\n  insecure_skip_verify: maybe\n":            `tls.insecure_skip_verify: "maybe": expected true or false`,
		"sasl:\n  username: a\n":                           "sasl.mechanism: required",
		"tlz: {}\n":                                        "conn.yaml:1: tlz: unknown key; expected one of bootstrap, tls, sasl, dial_timeout",
		"dial_timeout: soon\n":                             `dial_timeout: "soon": expected a positive duration`,
	} {
		_, err := Parse("conn.yaml", []byte(text), env(nil))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}

func TestValidateConnection(t *testing.T) {
	for _, c := range []struct {
		conn Settings
		want string
	}{
		{Settings{SASL: &SASL{Mechanism: MechScram256, Username: "u"}}, "give exactly one"},
		{Settings{SASL: &SASL{Mechanism: MechPlain, Password: "pw12"}}, "sasl.username: required"},
		{Settings{SASL: &SASL{Mechanism: MechOAuthBearer}}, "sasl.token, sasl.token_file or sasl.token_command"},
		{Settings{SASL: &SASL{Mechanism: MechAWSMSKIAM}}, "add tls"},
		{Settings{TLS: &TLS{CertFile: "a"}}, "give both"},
		{Settings{TLS: &TLS{CAFile: "/does/not/exist"}}, "tls.ca_file"},
	} {
		if err := c.conn.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.conn, err, c.want)
		}
	}
}

// Secret values are masked wherever they turn up once the connection is
// validated.
func TestConnectionSecretsAreRedacted(t *testing.T) {
	c := Settings{SASL: &SASL{Mechanism: MechPlain, Username: "u", Password: "hunter2-planted"}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := redact.Text("auth failed with hunter2-planted for u"); strings.Contains(got, "hunter2") {
		t.Errorf("not masked: %q", got)
	}
}

func jwt(exp time.Time) string {
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`))
	p := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, `{"exp":%d}`, exp.Unix()))
	return h + "." + p + ".sig"
}

// OAUTHBEARER against a fake: the mechanism's first message carries the
// command's token; the token is reused until shortly before its exp and
// fetched again after.
func TestOAuthTokenCommandRefreshes(t *testing.T) {
	dir := t.TempDir()
	counter := filepath.Join(dir, "n")
	tokFile := filepath.Join(dir, "tok")
	if err := os.WriteFile(tokFile, []byte(jwt(time.Now().Add(2*time.Minute))), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &SASL{Mechanism: MechOAuthBearer, TokenCommand: fmt.Sprintf("echo x >> %s; cat %s", counter, tokFile)}
	m, err := s.mechanism()
	if err != nil {
		t.Fatal(err)
	}
	first := func() string {
		_, msg, err := m.Authenticate(context.Background(), "b:9092")
		if err != nil {
			t.Fatal(err)
		}
		return string(msg)
	}
	if msg := first(); !strings.Contains(msg, "auth=Bearer "+jwt(time.Now().Add(2 * time.Minute))[:10]) {
		t.Fatalf("first message %q", msg)
	}
	first()
	runs := func() int { b, _ := os.ReadFile(counter); return strings.Count(string(b), "x") }
	if runs() != 1 {
		t.Fatalf("command ran %d times, want 1 (token reused)", runs())
	}
	defer func() { tokenNow = time.Now }()
	tokenNow = func() time.Time { return time.Now().Add(2 * time.Minute) } // past exp - margin
	first()
	if runs() != 2 {
		t.Fatalf("command ran %d times, want 2 (refreshed before expiry)", runs())
	}
}

// AWS_MSK_IAM against a fake: the signed payload names the access key from
// the environment, or from the shared-credentials profile.
func TestAWSCredentials(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAENV")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "envsecret")
	s := &SASL{Mechanism: MechAWSMSKIAM}
	m, _ := s.mechanism()
	_, msg, err := m.Authenticate(context.Background(), "b-1.c.kafka.us-east-1.amazonaws.com:9098")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(msg), "AKIAENV") || strings.Contains(string(msg), "envsecret") {
		t.Fatalf("payload %s", msg)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	creds := filepath.Join(t.TempDir(), "credentials")
	os.WriteFile(creds, []byte("[default]\naws_access_key_id = AKIADEF\naws_secret_access_key = d\n[bench]\naws_access_key_id = AKIAPROF\naws_secret_access_key = p\naws_session_token = tok\n"), 0o600)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", creds)
	a, err := awsCredentials("bench")
	if err != nil || a.AccessKey != "AKIAPROF" || a.SessionToken != "tok" {
		t.Fatalf("%+v %v", a, err)
	}
	if _, err := awsCredentials("missing"); err == nil || !strings.Contains(err.Error(), `profile "missing"`) {
		t.Fatalf("missing profile: %v", err)
	}
}

// Errors seen from a real Kafka 4.2 listener (TestSecured* in
// cmd/sharebench) map to plain messages.
func TestExplainConnErrorStrings(t *testing.T) {
	tlsConn := Settings{TLS: &TLS{CAFile: "ca.pem"}}
	for msg, want := range map[string]string{
		"remote error: tls: bad certificate": "requires a client certificate",
		"invalid large response size 352518912 > limit 104857600; the first three bytes received appear to be a tls alert record for TLS v1.2; is this a plaintext connection speaking to a tls endpoint?": "expects TLS",
	} {
		err := Explain(errors.New(msg), tlsConn, []string{"b:1"})
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q → %v, want %q", msg, err, want)
		}
	}
}

// ExpandEnv is the one expansion of ${NAME}: connection-file values and
// the secret flags alike.
func TestExpandEnv(t *testing.T) {
	lookup := env(map[string]string{"PW": "s3cret", "EMPTY": ""})
	for in, want := range map[string]string{
		"${PW}":          "s3cret",
		"a-${PW}-b":      "a-s3cret-b",
		"$$${PW}":        "$s3cret",
		"cost $5":        "cost $5",
		"${EMPTY}x":      "x",
		"no dollar here": "no dollar here",
	} {
		if got, err := ExpandEnv(in, lookup); err != nil || got != want {
			t.Errorf("ExpandEnv(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"${NOPE}": "environment variable NOPE is not set",
		"${1BAD}": `"${1BAD}": expected ${NAME}`,
		"${UNEND": `"${UNEND": expected ${NAME}`,
		"x${}y":   `"${}": expected ${NAME}`,
	} {
		if _, err := ExpandEnv(in, lookup); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ExpandEnv(%q): %v, want an error containing %q", in, err, want)
		}
	}
}

// A connection file is read with a bound: /dev/zero, a file past
// MaxFileBytes or a directory fails at once naming the file, instead of
// being read until memory runs out.
func TestParseFileBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, []byte("bootstrap: h:9092\n# "+strings.Repeat("x", MaxFileBytes)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/dev/zero":    "/dev/zero: larger than 64 KiB",
		big:            "big.yaml: larger than 64 KiB",
		t.TempDir():    "a directory: expected a connection file",
		"/nonexistent": "no such file",
	} {
		if _, err := ParseFile(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
}
