//go:build integration && long

// The mutual-TLS runs of the client runners (the SASL_SSL ones run with
// every make test; these with the long tests, make test-long, on demand).

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/testkit/kafkatest"
)

// The smoke scenario on the Java client over mutual TLS with the generated
// client certificate (flags, no connection file).
func TestSecuredMTLSJava(t *testing.T) {
	needJava(t)
	cl := kafkatest.StartProcess(t, infra.ClusterSpec{Security: &infra.ClusterSecurity{Mode: infra.SecurityMTLS}})
	tl := infra.ConnectionOf(cl).TLS
	results := filepath.Join(t.TempDir(), "results")
	if _, _, err := runExternal(t, results, cl.Bootstrap(), "--tls-ca", tl.CAFile, "--tls-cert", tl.CertFile, "--tls-key", tl.KeyFile,
		"--set", "client=java"); err != nil {
		t.Fatalf("smoke over mTLS with java: %v", err)
	}
	assertJavaRunsClean(t, results)
}

// The smoke scenario on the librdkafka client over mutual TLS with the
// generated client certificate (flags, no connection file); the client's
// private key is in no runner configuration left behind.
func TestSecuredMTLSLibrdkafka(t *testing.T) {
	needLibrdkafka(t)
	cl := kafkatest.StartProcess(t, infra.ClusterSpec{Security: &infra.ClusterSecurity{Mode: infra.SecurityMTLS}})
	tl := infra.ConnectionOf(cl).TLS
	results := filepath.Join(t.TempDir(), "results")
	if _, _, err := runExternal(t, results, cl.Bootstrap(), "--tls-ca", tl.CAFile, "--tls-cert", tl.CertFile, "--tls-key", tl.KeyFile,
		"--set", "client=librdkafka"); err != nil {
		t.Fatalf("smoke over mTLS with librdkafka: %v", err)
	}
	assertLibrdkafkaRunsClean(t, results)
	// The key as the runner's configuration carries it: one line of its
	// base64 body (PKCS#8, as connection.Settings.LibrdkafkaProperties
	// writes it).
	p, err := infra.ConnectionOf(cl).LibrdkafkaProperties()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(p["ssl.key.pem"], "\n")
	if len(lines) < 3 {
		t.Fatalf("ssl.key.pem %d lines: want a PEM block", len(lines))
	}
	assertNoRunnerFileHolds(t, "client private key", lines[1])
}
