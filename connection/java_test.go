package connection

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/redact"
)

// writeCertPair writes a self-signed certificate and its key, the key in
// PKCS#1 ("RSA PRIVATE KEY") or SEC 1 ("EC PRIVATE KEY") form, which the
// Java client cannot read.
func writeCertPair(t *testing.T, dir string, ec bool) (certFile, keyFile string) {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "client"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	var der, keyDER []byte
	var keyType string
	var err error
	if ec {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		der, err = x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
		keyDER, _ = x509.MarshalECPrivateKey(k)
		keyType = "EC PRIVATE KEY"
	} else {
		k, _ := rsa.GenerateKey(rand.Reader, 2048)
		der, err = x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
		keyDER, keyType = x509.MarshalPKCS1PrivateKey(k), "RSA PRIVATE KEY"
	}
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: keyType, Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// mTLS: the CA and the client certificate inline as PEM, the key turned
// into PKCS#8 (the same key: the pair still matches), a redacted secret.
func TestJavaPropertiesMutualTLS(t *testing.T) {
	for _, ec := range []bool{false, true} {
		dir := t.TempDir()
		cert, key := writeCertPair(t, dir, ec)
		ca := filepath.Join(dir, "ca.pem")
		caPEM, _ := os.ReadFile(cert)
		if err := os.WriteFile(ca, append([]byte("# a comment\n"), caPEM...), 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := Settings{TLS: &TLS{CAFile: ca, CertFile: cert, KeyFile: key}, DialTimeout: 3 * time.Second}.JavaProperties()
		if err != nil {
			t.Fatal(err)
		}
		if p["security.protocol"] != "SSL" || p["ssl.truststore.type"] != "PEM" || p["ssl.keystore.type"] != "PEM" ||
			p["socket.connection.setup.timeout.ms"] != "3000" {
			t.Errorf("properties %v", p)
		}
		if p["ssl.truststore.certificates"] != strings.TrimSpace(string(caPEM)) {
			t.Errorf("truststore %q, want the CA file's certificate without the comment", p["ssl.truststore.certificates"])
		}
		if !strings.HasPrefix(p["ssl.keystore.key"], "-----BEGIN PRIVATE KEY-----") {
			t.Errorf("key %.40q: want PKCS#8", p["ssl.keystore.key"])
		}
		if _, err := tls.X509KeyPair([]byte(p["ssl.keystore.certificate.chain"]), []byte(p["ssl.keystore.key"])); err != nil {
			t.Errorf("converted pair: %v", err)
		}
		if got := redact.Text("key: " + p["ssl.keystore.key"]); strings.Contains(got, "PRIVATE KEY-----\n") {
			t.Errorf("the private key is not redacted: %.80q", got)
		}
	}
}

// SCRAM over TLS with a password file: the JAAS line carries the file's
// password (trailing newline cut), quotes and backslashes escaped, and is
// redacted.
func TestJavaPropertiesSCRAM(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte(`pa"ss\word-j4va`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Settings{TLS: &TLS{}, SASL: &SASL{Mechanism: MechScram512, Username: "bench", PasswordFile: pw}}.JavaProperties()
	if err != nil {
		t.Fatal(err)
	}
	want := `org.apache.kafka.common.security.scram.ScramLoginModule required password="pa\"ss\\word-j4va" username="bench";`
	if p["security.protocol"] != "SASL_SSL" || p["sasl.mechanism"] != MechScram512 || p["sasl.jaas.config"] != want {
		t.Errorf("properties %v\nwant jaas %s", p, want)
	}
	if _, ok := p["ssl.truststore.certificates"]; ok {
		t.Error("no ca_file: the JVM's own trust store, not an empty PEM one")
	}
	if strings.Contains(redact.Text(p["sasl.jaas.config"]), "word-j4va") {
		t.Error("the JAAS line is not redacted")
	}
	p, err = Settings{SASL: &SASL{Mechanism: MechPlain, Username: "u", Password: "p"}}.JavaProperties()
	if err != nil || p["security.protocol"] != "SASL_PLAINTEXT" || !strings.HasPrefix(p["sasl.jaas.config"], "org.apache.kafka.common.security.plain.PlainLoginModule required") {
		t.Errorf("PLAIN: %v %v", p, err)
	}
}

func TestJavaPropertiesOAuthBearer(t *testing.T) {
	p, err := Settings{TLS: &TLS{}, SASL: &SASL{Mechanism: MechOAuthBearer, TokenCommand: `get-token --aud "kafka"`,
		TokenLifetime: time.Minute, Extensions: map[string]string{"logicalCluster": "lkc-1"}}}.JavaProperties()
	if err != nil {
		t.Fatal(err)
	}
	want := `org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required extension_logicalCluster="lkc-1" ` +
		`tokenCommand="get-token --aud \"kafka\"" tokenLifetimeMs="60000";`
	if p["sasl.jaas.config"] != want || p["sasl.login.callback.handler.class"] != JavaTokenHandler || p["sasl.mechanism"] != MechOAuthBearer {
		t.Errorf("properties %v\nwant jaas %s", p, want)
	}
}

// What the Java client cannot take is refused naming the setting and why.
func TestJavaPropertiesRefusals(t *testing.T) {
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{Settings{TLS: &TLS{ServerName: "kafka.internal"}}, "tls.server_name: client java cannot take it"},
		{Settings{TLS: &TLS{InsecureSkipVerify: true}}, "tls.insecure_skip_verify: client java cannot take it"},
		{Settings{TLS: &TLS{}, SASL: &SASL{Mechanism: MechAWSMSKIAM}}, "AWS_MSK_IAM: client java would need Amazon's aws-msk-iam-auth library"},
		{Settings{TLS: &TLS{CAFile: "/nonexistent/ca.pem"}}, "tls.ca_file"},
	} {
		if _, err := c.s.JavaProperties(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.s.Describe(), err, c.want)
		}
	}
	if p, err := (Settings{}).JavaProperties(); err != nil || len(p) != 0 {
		t.Errorf("plaintext: %v %v, want nothing", p, err)
	}
}
