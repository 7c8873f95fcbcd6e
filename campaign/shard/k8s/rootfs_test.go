package k8s

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteRootFS(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "sharebench")
	ca := filepath.Join(dir, "ca.crt")
	binBody := []byte("\x7fELF fake static binary")
	if err := os.WriteFile(bin, binBody, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteRootFS(&b, bin, ca, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	files := map[string]*tar.Header{}
	bodies := map[string]string{}
	tr := tar.NewReader(&b)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		files[h.Name], bodies[h.Name] = h, string(body)
	}
	if h := files["sharebench"]; h == nil || h.Mode&0o111 == 0 || bodies["sharebench"] != string(binBody) {
		t.Errorf("/sharebench: header %+v; want the binary, executable", h)
	}
	if !strings.Contains(bodies["etc/passwd"], "sharebench:x:65532:65532:") {
		t.Errorf("/etc/passwd %q lacks the non-root user 65532 the pods run as", bodies["etc/passwd"])
	}
	if bodies["etc/ssl/certs/ca-certificates.crt"] != "-----BEGIN CERTIFICATE-----\n" {
		t.Error("CA bundle missing")
	}
	if h := files["tmp/"]; h == nil || h.Typeflag != tar.TypeDir || h.Mode != 0o1777 {
		t.Errorf("/tmp: %+v; want a sticky world-writable directory", h)
	}

	if err := WriteRootFS(io.Discard, ca, ca, time.Unix(0, 0)); err == nil || !strings.Contains(err.Error(), "not an ELF executable") {
		t.Errorf("a non-ELF binary: %v; want it refused", err)
	}
	if err := WriteRootFS(io.Discard, bin, filepath.Join(dir, "none"), time.Unix(0, 0)); err == nil || !strings.Contains(err.Error(), "CA bundle") {
		t.Errorf("a missing CA bundle: %v; want it named", err)
	}
}
