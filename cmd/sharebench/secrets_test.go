package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Distinct secrets, one per place a secret can enter sharebench.
var planted = map[string]string{
	"broker_config password in the file": "FileKeystorePw1",
	"sasl.jaas.config in the file":       "FileJaasPw2",
	"--set broker_config password":       "SetTruststorePw3",
	"SHAREBENCH_ broker_config variable": "EnvKeyPw4",
	"URL userinfo in the description":    "UrlUserinfoPw5",
	"token= in the description":          "DescTokenPw6",
	"URL userinfo in a failing --set":    "FailingUrlPw7",
	"--set value password=":              "SetValuePw8",
	"SHAREBENCH_RATE=token=":             "EnvRateTok9",
	"--metrics-addr userinfo":            "MetricsAddrPw10",
	"connection file password (k8s)":     "ConnFilePw12",
	"k8s render broker_config password":  "RenderKeystorePw13",
	"k8s render jaas in the scenario":    "RenderJaasPw14",
	"dsn password quoted in the file":    "QuotedPw15",
	"dsn password escaped in the file":   "EscPw16",
	"--destination-dsn quoted password":  "FlagDsnPw17",
	"dsn password from a variable":       "VarDsnPw18",
}

// noSecret fails for every planted secret found in text.
func noSecret(t *testing.T, where, text string) {
	t.Helper()
	for what, s := range planted {
		if strings.Contains(text, s) {
			t.Errorf("%s holds the secret planted as %s (%q)", where, what, s)
		}
	}
}

// noSecretInFiles walks dir and checks every file written.
func noSecretInFiles(t *testing.T, dir string, skip func(string) bool) int {
	t.Helper()
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || skip != nil && skip(p) {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		noSecret(t, p, string(b))
		return nil
	})
	return n
}

func runConsole(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	var out bytes.Buffer
	code := runMain(context.Background(), args, env, &out, &out)
	return out.String(), code
}

// A kfake campaign with secrets in the scenario file, --set and the
// environment: no file of the campaign folder (run.json, campaign.json,
// summary.md, report.html, runs.csv, the time series) and no console line
// holds one; neither do the console's final error lines of failing
// commands, report and history re-rendered from the folder, a relayed agent
// failure, or the k8s manifests other than the Secret.
func TestNoPlantedSecretLeaves(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "sc.yaml")
	body := "name: leak\ndescription: 'see http://bob:" + planted["URL userinfo in the description"] + "@wiki.local/x and token=" +
		planted["token= in the description"] + "'\nconsumer_type: share\npartitions: 1\nmembers: 1\nrate: 100\nwarmup: 0s\nduration: 1s\n" +
		"broker_config:\n  ssl.keystore.password: " + planted["broker_config password in the file"] + "\n" +
		"  sasl.jaas.config: 'org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"" +
		planted["sasl.jaas.config in the file"] + "\";'\n"
	if err := os.WriteFile(sc, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results")
	t.Setenv("SHAREBENCH_BROKER_CONFIG_SSL_KEY_PASSWORD", planted["SHAREBENCH_ broker_config variable"])
	console, code := runConsole(t, os.Environ(), "run", "--provider", "kfake", "--scenario", sc, "--results", results,
		"--set", "broker_config.ssl.truststore.password="+planted["--set broker_config password"], "--no-fail")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, console)
	}
	noSecret(t, "the run's console", console)
	folders, _ := filepath.Glob(filepath.Join(results, "leak-*"))
	if len(folders) != 1 {
		t.Fatalf("campaign folder: %v", folders)
	}
	if n := noSecretInFiles(t, results, nil); n < 6 {
		t.Errorf("only %d files checked", n)
	}
	html, err := os.ReadFile(filepath.Join(folders[0], "report.html"))
	if err != nil || !strings.Contains(string(html), "REDACTED") {
		t.Errorf("report.html does not show the masked broker_config (err %v)", err)
	}
	for _, args := range [][]string{
		{"report", folders[0]},
		{"history", "--out", filepath.Join(dir, "hist"), results},
		{"compare", folders[0], folders[0]},
	} {
		out, _ := runConsole(t, nil, args...)
		noSecret(t, strings.Join(args[:1], " ")+" console", out)
	}
	noSecretInFiles(t, dir, func(p string) bool { return p == sc })

	// Final error lines of failing commands.
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"run", "--provider", "kfake", "--scenario", "smoke", "--dry-run", "--set", "kafka_version=http://bob:" + planted["URL userinfo in a failing --set"] + "@x/"}},
		{nil, []string{"run", "--provider", "kfake", "--scenario", "smoke", "--dry-run", "--set", "rate=password=" + planted["--set value password="]}},
		{[]string{"SHAREBENCH_RATE=token=" + planted["SHAREBENCH_RATE=token="]}, []string{"run", "--provider", "kfake", "--scenario", "smoke", "--dry-run"}},
		{nil, []string{"run", "--provider", "kfake", "--scenario", "smoke", "--metrics-addr", "http://u:" + planted["--metrics-addr userinfo"] + "@10.1.2.3:9"}},
	} {
		for _, e := range tc.env {
			k, v, _ := strings.Cut(e, "=")
			t.Setenv(k, v)
		}
		out, code := runConsole(t, os.Environ(), tc.args...)
		for _, e := range tc.env {
			k, _, _ := strings.Cut(e, "=")
			os.Unsetenv(k)
		}
		if code == 0 {
			t.Errorf("%v: accepted:\n%s", tc.args, out)
		}
		noSecret(t, "the console of "+strings.Join(tc.args, " "), out)
	}

	// A destination's dsn in libpq's key=value form, its passwords quoted
	// and escaped (the file), quoted (the flag) and from a variable:
	// scenarios show, the dry run, a run whose server is unreachable and a
	// refused flag print none, and the run leaves no file holding one.
	t.Setenv("SB_SECRETS_TEST_PGPW", planted["dsn password from a variable"])
	dsc := filepath.Join(dir, "dsn.yaml")
	_ = os.WriteFile(dsc, []byte("name: dsn\nconsumer_type: share\npartitions: 1\nmembers: 1\nrate: 10\nwarmup: 0s\nduration: 1s\ndestination:\n  pool: 1\n"+
		"  dsn: \"host=127.0.0.1 port=1 user=app password='Dsn "+planted["dsn password quoted in the file"]+"' sslpassword='Dsn\\\\'"+planted["dsn password escaped in the file"]+"' connect_timeout=2\"\n"), 0o600)
	dres := filepath.Join(dir, "dsn-results")
	for _, tc := range []struct {
		want int
		args []string
	}{
		{ExitOK, []string{"scenarios", "show", dsc}},
		{ExitOK, []string{"run", "--provider", "kfake", "--dry-run", "--scenario", dsc}},
		{ExitError, []string{"run", "--provider", "kfake", "--scenario", dsc, "--results", dres}},
		{ExitError, []string{"run", "--provider", "kfake", "--scenario", dsc, "--results", dres, "--destination-dsn", "host=127.0.0.1 port=1 user=app password=${SB_SECRETS_TEST_PGPW} connect_timeout=2"}},
		{ExitUsage, []string{"run", "--provider", "kfake", "--dry-run", "--scenario", dsc, "--destination-dsn", "host=h port=x password='Flag " + planted["--destination-dsn quoted password"] + "'"}},
	} {
		out, code := runConsole(t, os.Environ(), tc.args...)
		if code != tc.want {
			t.Errorf("%v: exit %d, want %d:\n%s", tc.args, code, tc.want, out)
		}
		noSecret(t, "the console of "+strings.Join(tc.args, " "), out)
	}
	noSecretInFiles(t, dres, nil)

	// k8s render: only the Secret may hold the connection file's password.
	// The command is in the Kubernetes build (make test-k8s runs this there).
	if !k8sBuilt {
		return
	}
	conn := filepath.Join(dir, "conn.yaml")
	_ = os.WriteFile(conn, []byte("sasl:\n  mechanism: PLAIN\n  username: u\n  password: "+planted["connection file password (k8s)"]+"\n"), 0o600)
	ksc := filepath.Join(dir, "k.yaml")
	_ = os.WriteFile(ksc, []byte("name: k\nconsumer_type: share\nbroker_config:\n  ssl.keystore.password: "+planted["k8s render broker_config password"]+
		"\n  sasl.jaas.config: 'x required password=\""+planted["k8s render jaas in the scenario"]+"\";'\n"), 0o600)
	out, code := runConsole(t, nil, "k8s", "render", "--scenario", ksc, "--shards", "2", "--image", "img:v1",
		"--bootstrap", "kafka:9092", "--connection", conn)
	if code != 0 {
		t.Fatalf("k8s render exit %d:\n%s", code, out)
	}
	docs := strings.Split(out, "\n---\n")
	for _, d := range docs {
		if strings.Contains(d, "kind: Secret") {
			continue
		}
		noSecret(t, "a k8s manifest", d)
	}
}
