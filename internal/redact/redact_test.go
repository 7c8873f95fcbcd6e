package redact

import (
	"bytes"
	"strings"
	"testing"
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
