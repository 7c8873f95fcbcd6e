//go:build integration

package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/testkit/kafkatest"
	"github.com/sharebench/sharebench/results/runs"
)

// Planted secrets: no output file and no console line may contain them.
const (
	plantedPassword = "pl4nted-Passw0rd-x9"
	plantedToken    = "pl4nted.T0ken.zz7"
)

// writeConn writes a connection file into dir.
func writeConn(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// assertNoSecret greps the console and every file under dir (the results
// folders, not the test's own connection files) for the planted secrets.
func assertNoSecret(t *testing.T, console, dir string) {
	t.Helper()
	for _, s := range []string{plantedPassword, plantedToken} {
		if strings.Contains(console, s) {
			t.Errorf("console shows secret %q", s)
		}
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".yaml") && filepath.Dir(p) == dir {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range []string{plantedPassword, plantedToken} {
			if strings.Contains(string(b), s) {
				t.Errorf("%s contains secret %q", p, s)
			}
		}
		return nil
	})
}

// runExternal runs the smoke scenario (3 s window) on an external cluster
// with the given connection file and returns the console and how long it
// took.
func runExternal(t *testing.T, results string, bootstrap []string, args ...string) (string, time.Duration, error) {
	t.Helper()
	began := time.Now()
	out, err := execute(t, append([]string{"run", "--provider", "external", "--bootstrap", strings.Join(bootstrap, ","),
		"--scenario", "smoke", "--set", "duration=3s", "--set", "warmup=1s", "--results", results}, args...)...)
	t.Logf("run %v (%v):\n%s", args, time.Since(began).Round(100*time.Millisecond), out)
	return out, time.Since(began), err
}

func readRuns(t *testing.T, results string) []runs.Record {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(results, "smoke-*", "runs", "*", "run.json"))
	var out []runs.Record
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r runs.Record
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// SASL_SSL with SCRAM-SHA-512 on a real broker: the smoke scenario runs
// through the connection file (password from the environment) and writes
// no secret; a wrong password, a plaintext client, an untrusted CA, a
// mechanism the listener does not enable and an ACL denial each fail
// within seconds saying which; a quota shows as the throttled flag.
func TestSecuredSASLSSL(t *testing.T) {
	cl := kafkatest.StartProcess(t, infra.ClusterSpec{Security: &infra.ClusterSecurity{
		Mode: infra.SecuritySASLSSL, Authorizer: true,
		Users: map[string]string{"sharebench": plantedPassword, "limited": "limited-pw-1"}}})
	ca := infra.ConnectionOf(cl).TLS.CAFile
	dir := t.TempDir()
	t.Setenv("SB_TEST_SASL_PASSWORD", plantedPassword)
	good := writeConn(t, dir, "good.yaml", "tls:\n  ca_file: "+ca+"\nsasl:\n  mechanism: SCRAM-SHA-512\n  username: sharebench\n  password: ${SB_TEST_SASL_PASSWORD}\n")

	results := filepath.Join(dir, "results")
	out, _, err := runExternal(t, results, cl.Bootstrap(), "--connection", good)
	if err != nil {
		t.Fatalf("smoke over SASL_SSL: %v", err)
	}
	recs := readRuns(t, results)
	if len(recs) != 2 {
		t.Fatalf("want 2 runs, got %d", len(recs))
	}
	for _, r := range recs {
		if !r.Audit.Balanced || r.Audit.Lost != 0 || r.Audit.CompletedOnce == 0 {
			t.Errorf("run %s audit %+v", r.RunID, r.Audit)
		}
	}
	assertNoSecret(t, out, dir)

	fails := []struct {
		name, conn, want string
		args             []string
	}{
		{"wrong password", "tls: {ca_file: " + ca + "}\nsasl: {mechanism: SCRAM-SHA-512, username: sharebench, password: not-the-password}\n",
			"authentication failed", nil},
		{"plaintext client", "", "expects TLS", nil},
		{"untrusted CA", "tls: {enabled: true}\nsasl: {mechanism: SCRAM-SHA-512, username: sharebench, password: \"${SB_TEST_SASL_PASSWORD}\"}\n",
			"not signed by a CA", nil},
		{"mechanism not enabled", "tls: {ca_file: " + ca + "}\nsasl: {mechanism: OAUTHBEARER, token: " + plantedToken + "}\n",
			"not enabled on this listener", nil},
		{"ACL denial", "tls: {ca_file: " + ca + "}\nsasl: {mechanism: SCRAM-SHA-512, username: limited, password: limited-pw-1}\n",
			"deny CREATE on topic", nil},
	}
	for _, f := range fails {
		t.Run(f.name, func(t *testing.T) {
			args := f.args
			if f.conn != "" {
				args = append(args, "--connection", writeConn(t, dir, "f.yaml", f.conn))
			}
			out, took, err := runExternal(t, filepath.Join(dir, "fail"), cl.Bootstrap(), args...)
			if err == nil {
				t.Fatal("the run succeeded")
			}
			if !strings.Contains(err.Error(), f.want) {
				t.Errorf("error %q lacks %q", err, f.want)
			}
			if took > 25*time.Second {
				t.Errorf("took %v: must fail within seconds", took)
			}
			assertNoSecret(t, out+err.Error(), dir)
		})
	}

	// A producer quota on the user: the broker throttles, the runs say so.
	conn := infra.ConnectionOf(cl)
	opts, err := conn.ClientOpts()
	if err != nil {
		t.Fatal(err)
	}
	kc, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(cl.Bootstrap()...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rate := 2000.0
	if _, err := kadm.NewClient(kc).AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{
		Entity: []kadm.ClientQuotaEntityComponent{{Type: "user", Name: kmsg.StringPtr("sharebench")}},
		Ops:    []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: rate}},
	}}); err != nil {
		t.Fatal(err)
	}
	throttled := filepath.Join(dir, "throttled")
	if _, _, err := runExternal(t, throttled, cl.Bootstrap(), "--connection", good, "--no-fail"); err != nil {
		t.Fatalf("throttled run: %v", err)
	}
	flagged := false
	for _, r := range readRuns(t, throttled) {
		for _, f := range r.Validity.Flags {
			if f.Code == "throttled" {
				flagged = true
				t.Logf("run %s: %s", r.RunID, f.Message)
			}
		}
	}
	if !flagged {
		t.Error("no run flagged throttled under a 2000 B/s producer quota")
	}
}

// Mutual TLS on a real broker: the smoke scenario runs with the generated
// client certificate; without one the run fails within seconds saying a
// client certificate is required.
func TestSecuredMTLS(t *testing.T) {
	cl := kafkatest.StartProcess(t, infra.ClusterSpec{Security: &infra.ClusterSecurity{Mode: infra.SecurityMTLS}})
	tl := infra.ConnectionOf(cl).TLS
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	if _, _, err := runExternal(t, results, cl.Bootstrap(), "--tls-ca", tl.CAFile, "--tls-cert", tl.CertFile, "--tls-key", tl.KeyFile); err != nil {
		t.Fatalf("smoke over mTLS: %v", err)
	}
	if recs := readRuns(t, results); len(recs) != 2 {
		t.Fatalf("want 2 runs, got %d", len(recs))
	}
	_, took, err := runExternal(t, filepath.Join(dir, "fail"), cl.Bootstrap(), "--tls-ca", tl.CAFile)
	if err == nil || !strings.Contains(err.Error(), "client certificate") {
		t.Errorf("without a client certificate: %v", err)
	}
	if took > 25*time.Second {
		t.Errorf("took %v: must fail within seconds", took)
	}
}
