package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://user:secret@host:9404/metrics":      "http://user:REDACTED@host:9404/metrics",
		"http://tok3n@host/metrics":                 "http://REDACTED@host/metrics",
		"https://host/metrics?token=abc&format=txt": "https://host/metrics?format=txt&token=REDACTED",
		"http://127.0.0.1:9404/metrics":             "http://127.0.0.1:9404/metrics",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"broker metrics http://user:secret@host/metrics: connection refused":           "broker metrics http://user:REDACTED@host/metrics: connection refused",
		`{"metrics_url":"http://u:p4ss@h/m"}`:                                          `{"metrics_url":"http://u:REDACTED@h/m"}`,
		"ssl.keystore.password=hunter2 other=1":                                        "ssl.keystore.password=REDACTED other=1",
		`"sasl.jaas.config": "org.apache...PlainLoginModule required password=\"x\";"`: `"sasl.jaas.config": "REDACTED"`,
		"plain text with no secret: 5 records/s":                                       "plain text with no secret: 5 records/s",
		"--metrics-url http://admin:s3cr3t@10.0.0.1:9404/metrics":                      "--metrics-url http://admin:REDACTED@10.0.0.1:9404/metrics",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

func TestWriterMasksAndReportsFullLength(t *testing.T) {
	var buf bytes.Buffer
	w := Writer(&buf)
	line := "scrape http://a:b@h/m failed\n"
	n, err := w.Write([]byte(line))
	if err != nil || n != len(line) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(line))
	}
	if strings.Contains(buf.String(), ":b@") {
		t.Errorf("secret written: %q", buf.String())
	}
}

func TestSettings(t *testing.T) {
	got := Settings(map[string]string{"ssl.truststore.password": "x", "num.partitions": "3"})
	if got["ssl.truststore.password"] != Mask || got["num.partitions"] != "3" {
		t.Errorf("Settings = %v", got)
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"http://u:p@h/", "password=x", `"token":"a\"b"`, "", "://@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		if Text(out) != out {
			t.Errorf("Text is not idempotent on %q: %q then %q", s, out, Text(out))
		}
	})
}

// A secret-named key on a YAML line of its own has its value masked, the
// rest of the file kept; masking twice changes nothing (agents hash the
// masked scenario, the coordinator masks the original).
func TestYAMLSettings(t *testing.T) {
	in := "name: k\nbroker_config:\n  ssl.keystore.password: hunter22 # c\n  num.partitions: 3\n  sasl.jaas.config: 'x required password=\"p\";'\n"
	want := "name: k\nbroker_config:\n  ssl.keystore.password: REDACTED\n  num.partitions: 3\n  sasl.jaas.config: REDACTED\n"
	got := Text(in)
	if got != want {
		t.Errorf("Text(yaml)\n got %q\nwant %q", got, want)
	}
	if again := Text(got); again != got {
		t.Errorf("masking twice changed %q into %q", got, again)
	}
}

// Relayed masks and bounds; the cut is said, the start and the end kept.
func TestRelayed(t *testing.T) {
	s := "start password=abc " + strings.Repeat("é", 10000) + " end"
	got := Relayed(s, 100)
	if len(got) > 140 || !strings.HasPrefix(got, "start password=REDACTED") || !strings.HasSuffix(got, " end") || !strings.Contains(got, "bytes cut") {
		t.Errorf("Relayed = %q", got)
	}
	if !utf8.ValidString(got) {
		t.Errorf("Relayed cut a rune: %q", got)
	}
	if got := Relayed("short", 0); got != "short" {
		t.Errorf("Relayed(short) = %q", got)
	}
}

// A secret registered by value is masked in the forms JSON, HTML and URLs
// escape it into, and arguments with a secret-named key register theirs.
func TestEscapedLiteralsAndArgSecrets(t *testing.T) {
	AddSecret(`pa"ss<&>word1`)
	for _, form := range []string{`pa"ss<&>word1`, `pa\"ss\u003c\u0026\u003eword1`, `pa&#34;ss&lt;&amp;&gt;word1`} {
		if got := Text("x " + form + " y"); got != "x REDACTED y" {
			t.Errorf("Text(%q) = %q", form, got)
		}
	}
	ArgSecrets([]string{"--set", "broker_config.ssl.key.password=ArgPw77", "rate=password=NestedPw88"}, []string{"SHAREBENCH_X_TOKEN=EnvTok99", "OTHER_TOKEN=KeepMe11"})
	for _, s := range []string{"ArgPw77", "NestedPw88", "EnvTok99"} {
		if got := Text("bad value " + s); strings.Contains(got, s) {
			t.Errorf("%s not registered: %q", s, got)
		}
	}
	if got := Text("KeepMe11"); got != "KeepMe11" {
		t.Errorf("a variable without the SHAREBENCH_ prefix was registered: %q", got)
	}
}

// A setting inside a JSON string whose quotes are escaped (an error text
// holding a URL, kept in run.json) is masked up to the escape, so the JSON
// stays valid.
func TestSettingInsideEscapedJSONStringKeepsJSONValid(t *testing.T) {
	in := []byte(`{"message":"Get \"http://127.0.0.1:1/metrics?token=t0ken\": refused"}`)
	out := Bytes(in)
	var v map[string]string
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("masked JSON no longer parses: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "t0ken") || !strings.Contains(v["message"], "token=REDACTED") {
		t.Errorf("masked %s", out)
	}
}

// ForgetSecrets makes a registered literal plain text again (as in a new
// process), and a later AddSecret works as before.
func TestForgetSecrets(t *testing.T) {
	AddSecret("ForgetMePw1")
	if got := Text("x ForgetMePw1 y"); got != "x "+Mask+" y" {
		t.Fatalf("registered: %q", got)
	}
	ForgetSecrets()
	if got := Text("x ForgetMePw1 y"); got != "x ForgetMePw1 y" {
		t.Errorf("after ForgetSecrets: %q", got)
	}
	AddSecret("ForgetMePw2")
	if got := Text("ForgetMePw1 ForgetMePw2"); got != "ForgetMePw1 "+Mask {
		t.Errorf("registered again: %q", got)
	}
}
