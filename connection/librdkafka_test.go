package connection

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/redact"
)

// mTLS: the CA and the client certificate inline as PEM, the key turned
// into PKCS#8 (the same key: the pair still matches), a redacted secret;
// certificates checked against the CA and the broker's host name, as
// franz-go checks them.
func TestLibrdkafkaPropertiesMutualTLS(t *testing.T) {
	for _, ec := range []bool{false, true} {
		dir := t.TempDir()
		cert, key := writeCertPair(t, dir, ec)
		ca := filepath.Join(dir, "ca.pem")
		caPEM, _ := os.ReadFile(cert)
		if err := os.WriteFile(ca, append([]byte("# a comment\n"), caPEM...), 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := Settings{TLS: &TLS{CAFile: ca, CertFile: cert, KeyFile: key}, DialTimeout: 3 * time.Second}.LibrdkafkaProperties()
		if err != nil {
			t.Fatal(err)
		}
		if p["security.protocol"] != "SSL" || p["ssl.endpoint.identification.algorithm"] != "https" ||
			p["socket.connection.setup.timeout.ms"] != "3000" {
			t.Errorf("properties %v", p)
		}
		for _, k := range []string{"ssl.ca.location", "enable.ssl.certificate.verification", "sasl.mechanisms"} {
			if _, ok := p[k]; ok {
				t.Errorf("%s set: %q", k, p[k])
			}
		}
		if p["ssl.ca.pem"] != strings.TrimSpace(string(caPEM)) {
			t.Errorf("ssl.ca.pem %q, want the CA file's certificate without the comment", p["ssl.ca.pem"])
		}
		if !strings.HasPrefix(p["ssl.key.pem"], "-----BEGIN PRIVATE KEY-----") {
			t.Errorf("key %.40q: want PKCS#8", p["ssl.key.pem"])
		}
		if _, err := tls.X509KeyPair([]byte(p["ssl.certificate.pem"]), []byte(p["ssl.key.pem"])); err != nil {
			t.Errorf("converted pair: %v", err)
		}
		if got := redact.Text("key: " + p["ssl.key.pem"]); strings.Contains(got, "PRIVATE KEY-----\n") {
			t.Errorf("the private key is not redacted: %.80q", got)
		}
	}
}

// SCRAM over TLS with a password file (read once, trailing newline cut):
// the mechanism, user and password as librdkafka's own properties, the
// password redacted; no ca_file: the system's roots (probe), as franz-go.
func TestLibrdkafkaPropertiesSCRAM(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte(`pa"ss\word-rdk4`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mech := range []string{MechScram256, MechScram512} {
		p, err := Settings{TLS: &TLS{}, SASL: &SASL{Mechanism: mech, Username: "bench", PasswordFile: pw}}.LibrdkafkaProperties()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanisms": mech, "sasl.username": "bench",
			"sasl.password": `pa"ss\word-rdk4`, "ssl.ca.location": "probe", "ssl.endpoint.identification.algorithm": "https"}
		if len(p) != len(want) {
			t.Errorf("%s: properties %v, want %v", mech, p, want)
		}
		for k, v := range want {
			if p[k] != v {
				t.Errorf("%s: %s = %q, want %q", mech, k, p[k], v)
			}
		}
		if strings.Contains(redact.Text("password "+p["sasl.password"]), "word-rdk4") {
			t.Error("the password is not redacted")
		}
	}
	p, err := Settings{SASL: &SASL{Mechanism: MechPlain, Username: "u", Password: "p"}}.LibrdkafkaProperties()
	if err != nil || p["security.protocol"] != "SASL_PLAINTEXT" || p["sasl.mechanisms"] != MechPlain || p["sasl.password"] != "p" {
		t.Errorf("PLAIN: %v %v", p, err)
	}
	if _, ok := p["ssl.endpoint.identification.algorithm"]; ok {
		t.Errorf("PLAIN without TLS: ssl.* set: %v", p)
	}
	if _, err := (Settings{SASL: &SASL{Mechanism: MechPlain, Username: "u", PasswordFile: filepath.Join(dir, "none")}}).LibrdkafkaProperties(); err == nil ||
		!strings.Contains(err.Error(), "sasl.password_file") {
		t.Errorf("missing password file: %v", err)
	}
}

// tls.insecure_skip_verify: librdkafka's switches that accept any
// certificate (the run is flagged tls_insecure elsewhere).
func TestLibrdkafkaPropertiesInsecure(t *testing.T) {
	p, err := Settings{TLS: &TLS{InsecureSkipVerify: true}}.LibrdkafkaProperties()
	if err != nil {
		t.Fatal(err)
	}
	if p["enable.ssl.certificate.verification"] != "false" || p["ssl.endpoint.identification.algorithm"] != "none" {
		t.Errorf("properties %v", p)
	}
	if _, ok := p["ssl.ca.location"]; ok {
		t.Errorf("insecure: no CA to probe for: %v", p)
	}
}

// What librdkafka (or the runner) cannot take is refused naming the client,
// the setting and why.
func TestLibrdkafkaPropertiesRefusals(t *testing.T) {
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{Settings{TLS: &TLS{ServerName: "kafka.internal"}}, "tls.server_name: client librdkafka cannot take it"},
		{Settings{TLS: &TLS{}, SASL: &SASL{Mechanism: MechAWSMSKIAM}}, "AWS_MSK_IAM: client librdkafka: librdkafka has no AWS_MSK_IAM mechanism"},
		{Settings{TLS: &TLS{}, SASL: &SASL{Mechanism: MechOAuthBearer, Token: "t"}}, "OAUTHBEARER: client librdkafka: the librdkafka runner has no token callback"},
		{Settings{TLS: &TLS{CAFile: "/nonexistent/ca.pem"}}, "tls.ca_file"},
		{Settings{SASL: &SASL{Mechanism: "GSSAPI"}}, `sasl.mechanism "GSSAPI": expected one of`},
	} {
		if _, err := c.s.LibrdkafkaProperties(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.s.Describe(), err, c.want)
		}
	}
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.pem")
	if err := os.WriteFile(empty, []byte("no pem here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (Settings{TLS: &TLS{CAFile: empty}}).LibrdkafkaProperties(); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("CA file without a certificate: %v", err)
	}
	if p, err := (Settings{}).LibrdkafkaProperties(); err != nil || len(p) != 0 {
		t.Errorf("plaintext: %v %v, want nothing", p, err)
	}
}
