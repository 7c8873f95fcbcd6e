//go:build integration

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/testkit/kafkatest"
)

// needJava skips without a JDK and Maven (the Java runner).
func needJava(t *testing.T) {
	t.Helper()
	if err := consumers.CheckJavaClient(); err != nil {
		t.Skip(err)
	}
}

// assertJavaRunsClean checks that the smoke scenario's two runs ran on the
// Java client with balanced audits.
func assertJavaRunsClean(t *testing.T, results string) {
	t.Helper()
	assertRunnerRunsClean(t, results, "java")
}

// assertRunnerRunsClean checks that the smoke scenario's two runs ran on
// client with balanced audits.
func assertRunnerRunsClean(t *testing.T, results, client string) {
	t.Helper()
	recs := readRuns(t, results)
	if len(recs) != 2 {
		t.Fatalf("want 2 runs, got %d", len(recs))
	}
	for _, r := range recs {
		if r.Client == nil || r.Client.Name != client {
			t.Errorf("run %s: client %+v, want %s", r.RunID, r.Client, client)
		}
		if !r.Audit.Balanced || r.Audit.Lost != 0 || r.Audit.CompletedOnce == 0 || r.Audit.CompletedOnce != r.Audit.Produced {
			t.Errorf("run %s audit %+v", r.RunID, r.Audit)
		}
	}
}

// assertNoRunnerConfigLeft: no Java runner configuration directory under
// the temporary directory holds the planted secrets (they are removed once
// the runner has read them).
func assertNoRunnerConfigLeft(t *testing.T) {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "sharebench-javarunner-*"))
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), plantedPassword) {
				t.Errorf("%s still holds the planted password", p)
			}
			return nil
		})
	}
}

// The smoke scenario on the Java client over SASL_SSL with SCRAM-SHA-512
// (password from the environment through the connection file): both runs
// balance, and the planted password is in no file of the campaign folder,
// not on the console, and in no runner configuration left behind. A wrong
// password fails the run saying authentication failed.
func TestSecuredSASLSSLJava(t *testing.T) {
	needJava(t)
	cl := kafkatest.StartProcess(t, infra.ClusterSpec{Security: &infra.ClusterSecurity{
		Mode: infra.SecuritySASLSSL, Authorizer: true, Users: map[string]string{"sharebench": plantedPassword}}})
	ca := infra.ConnectionOf(cl).TLS.CAFile
	dir := t.TempDir()
	t.Setenv("SB_TEST_SASL_PASSWORD", plantedPassword)
	good := writeConn(t, dir, "good.yaml", "tls:\n  ca_file: "+ca+"\nsasl:\n  mechanism: SCRAM-SHA-512\n  username: sharebench\n  password: ${SB_TEST_SASL_PASSWORD}\n")
	results := filepath.Join(dir, "results")
	out, _, err := runExternal(t, results, cl.Bootstrap(), "--connection", good, "--set", "client=java")
	if err != nil {
		t.Fatalf("smoke over SASL_SSL with java: %v", err)
	}
	assertJavaRunsClean(t, results)
	assertNoSecret(t, out, dir)
	assertNoRunnerConfigLeft(t)

	bad := writeConn(t, dir, "bad.yaml", "tls: {ca_file: "+ca+"}\nsasl: {mechanism: SCRAM-SHA-512, username: sharebench, password: not-the-password}\n")
	out, _, err = runExternal(t, filepath.Join(dir, "fail"), cl.Bootstrap(), "--connection", bad, "--set", "client=java", "--set", "drain_timeout=5s")
	if err == nil {
		t.Error("a wrong password: the run succeeded")
	}
	assertNoSecret(t, out, dir)
}

// The smoke scenario on client spring over SASL_SSL with SCRAM-SHA-512:
// the connection settings reach the clients Spring's consumer factories
// make (ClientSecurity, as for java); both runs balance, and the planted
// password is in no file of the campaign folder, not on the console, and in
// no runner configuration left behind.
func TestSecuredSASLSSLSpring(t *testing.T) {
	needJava(t)
	cl := kafkatest.StartProcess(t, infra.ClusterSpec{Security: &infra.ClusterSecurity{
		Mode: infra.SecuritySASLSSL, Authorizer: true, Users: map[string]string{"sharebench": plantedPassword}}})
	ca := infra.ConnectionOf(cl).TLS.CAFile
	dir := t.TempDir()
	t.Setenv("SB_TEST_SASL_PASSWORD", plantedPassword)
	good := writeConn(t, dir, "good.yaml", "tls:\n  ca_file: "+ca+"\nsasl:\n  mechanism: SCRAM-SHA-512\n  username: sharebench\n  password: ${SB_TEST_SASL_PASSWORD}\n")
	results := filepath.Join(dir, "results")
	out, _, err := runExternal(t, results, cl.Bootstrap(), "--connection", good, "--set", "client=spring")
	if err != nil {
		t.Fatalf("smoke over SASL_SSL with spring: %v", err)
	}
	assertRunnerRunsClean(t, results, "spring")
	assertNoSecret(t, out, dir)
	assertNoRunnerConfigLeft(t)
}
