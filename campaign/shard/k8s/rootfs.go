package k8s

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"time"
)

// DefaultCABundle is where Debian and most distributions keep the PEM
// bundle of trusted CAs; the agent image carries it for TLS to brokers.
const DefaultCABundle = "/etc/ssl/certs/ca-certificates.crt"

// WriteRootFS writes the agent image's root file system as a tar stream:
// /sharebench (the statically linked binary at binary), the CA bundle at
// /etc/ssl/certs/ca-certificates.crt, /etc/passwd and /etc/group with the
// non-root user sharebench (uid and gid AgentUID), its home, and /tmp.
// `docker import` turns it into the image (make agent-image). Every entry
// has mtime, so the same inputs give the same tar.
func WriteRootFS(w io.Writer, binary, caBundle string, mtime time.Time) error {
	bin, err := os.ReadFile(binary)
	if err != nil {
		return fmt.Errorf("agent image: binary: %w", err)
	}
	if len(bin) < 4 || string(bin[:4]) != "\x7fELF" {
		return fmt.Errorf("agent image: binary %s: not an ELF executable", binary)
	}
	ca, err := os.ReadFile(caBundle)
	if err != nil {
		return fmt.Errorf("agent image: CA bundle (apt-get install ca-certificates, or --ca-bundle FILE): %w", err)
	}
	const uid = AgentUID
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nsharebench:x:%d:%d:sharebench agent:/home/sharebench:/sbin/nologin\n", uid, uid)
	group := fmt.Sprintf("root:x:0:\nsharebench:x:%d:\n", uid)
	// The pure-Go resolver reads nsswitch.conf for the order of files and DNS.
	nsswitch := "hosts: files dns\n"

	tw := tar.NewWriter(w)
	dir := func(name string, mode int64, owner int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, Uid: owner, Gid: owner, ModTime: mtime, Format: tar.FormatPAX})
	}
	file := func(name string, mode int64, body []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(body)), ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(body)
		return err
	}
	steps := []func() error{
		func() error { return dir("etc/", 0o755, 0) },
		func() error { return dir("etc/ssl/", 0o755, 0) },
		func() error { return dir("etc/ssl/certs/", 0o755, 0) },
		func() error { return dir("home/", 0o755, 0) },
		func() error { return dir("home/sharebench/", 0o750, uid) },
		func() error { return dir("tmp/", 0o1777, 0) },
		func() error { return file("etc/passwd", 0o644, []byte(passwd)) },
		func() error { return file("etc/group", 0o644, []byte(group)) },
		func() error { return file("etc/nsswitch.conf", 0o644, []byte(nsswitch)) },
		func() error { return file("etc/ssl/certs/ca-certificates.crt", 0o644, ca) },
		func() error { return file("sharebench", 0o755, bin) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return fmt.Errorf("agent image: write rootfs: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("agent image: write rootfs: %w", err)
	}
	return nil
}
