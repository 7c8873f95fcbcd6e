package infra

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/sharebench/sharebench/connection"
)

// kfake with TLS (a Go-generated CA) and SASL: the external provider
// connects with the right settings, and each wrong one fails fast saying
// which.
func TestExternalOverTLSAndSASLOnKfake(t *testing.T) {
	f, err := writeSecurityFiles(t.TempDir(), &ClusterSecurity{Mode: SecurityMTLS})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair([]byte(f.brokerChain), []byte(f.brokerKey))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(f.caCert))
	fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.TLS(&tls.Config{Certificates: []tls.Certificate{cert}}),
		kfake.EnableSASL(), kfake.Superuser(connection.MechScram512, "bench", "right-pass"))
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	boot := fake.ListenAddrs()
	good := connection.Settings{TLS: &connection.TLS{CAFile: f.caFile}, SASL: &connection.SASL{Mechanism: connection.MechScram512, Username: "bench", Password: "right-pass"}}
	ctx := context.Background()
	if cl, err := (&ExternalProvider{Bootstrap: boot, Conn: good}).Start(ctx, ClusterSpec{}); err != nil || ConnectionOf(cl).SASL == nil {
		t.Fatalf("good settings: %v", err)
	}
	bad := func(mod func(*connection.Settings)) connection.Settings {
		c := good
		tl, s := *good.TLS, *good.SASL
		c.TLS, c.SASL = &tl, &s
		mod(&c)
		return c
	}
	for name, tc := range map[string]struct {
		conn connection.Settings
		want string
	}{
		// kfake closes the connection on a failed SCRAM exchange where Kafka
		// answers SASL_AUTHENTICATION_FAILED (the real-broker test checks
		// that message).
		"wrong password":   {bad(func(c *connection.Settings) { c.SASL.Password = "wrong" }), "closed the connection"},
		"untrusted CA":     {bad(func(c *connection.Settings) { c.TLS.CAFile = "" }), "not signed by a CA"},
		"plaintext client": {connection.Settings{}, "closed the connection"},
		"no TLS":           {bad(func(c *connection.Settings) { c.TLS = nil }), "closed the connection"},
		"unreachable":      {good, "unreachable"},
	} {
		b := boot
		if name == "unreachable" {
			b = []string{"127.0.0.1:1"}
		}
		began := time.Now()
		_, err := (&ExternalProvider{Bootstrap: b, Conn: tc.conn}).Start(ctx, ClusterSpec{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
		if d := time.Since(began); d > 15*time.Second {
			t.Errorf("%s: took %v", name, d)
		}
	}
}
