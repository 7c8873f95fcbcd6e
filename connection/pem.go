package connection

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"strings"

	"github.com/sharebench/sharebench/internal/redact"
)

// pemBlocks are the PEM blocks of type typ in b, re-encoded, one after
// another ("" when there is none).
func pemBlocks(b []byte, typ string) string {
	var out []string
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return strings.Join(out, "\n")
		}
		if blk.Type == typ {
			out = append(out, strings.TrimSpace(string(pem.EncodeToMemory(blk))))
		}
	}
}

// caPEM reads tls.ca_file's certificates, re-encoded as PEM, for the client
// runners that take them inline.
func caPEM(src string, t *TLS) (string, error) {
	b, err := os.ReadFile(t.CAFile)
	if err != nil {
		return "", fmt.Errorf("%s: tls.ca_file: %w", src, err)
	}
	certs := pemBlocks(b, "CERTIFICATE")
	if certs == "" {
		return "", fmt.Errorf("%s: tls.ca_file %s: no PEM certificate in it", src, t.CAFile)
	}
	return certs, nil
}

// clientPEM reads tls.cert_file and tls.key_file for the client runners
// that take them inline: the key as PKCS #8 PEM (registered as a secret, so
// no output shows it) and the certificate chain as PEM blocks.
func clientPEM(src string, t *TLS) (key, chain string, err error) {
	pair, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
	if err != nil {
		return "", "", fmt.Errorf("%s: tls.cert_file/tls.key_file: %w", src, err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(pair.PrivateKey)
	if err != nil {
		return "", "", fmt.Errorf("%s: tls.key_file %s: %w", src, t.KeyFile, err)
	}
	key = strings.TrimSpace(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
	redact.AddSecret(key)
	var certs []string
	for _, c := range pair.Certificate {
		certs = append(certs, strings.TrimSpace(string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c}))))
	}
	return key, strings.Join(certs, "\n"), nil
}
