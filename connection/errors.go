package connection

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Error is a failure to connect or authenticate, said in words a user
// can act on; Err is franz-go's error.
type Error struct {
	Bootstrap []string
	What      string // the plain message
	Err       error
}

func (e *Error) Error() string {
	return fmt.Sprintf("bootstrap %s: %s (%v)", strings.Join(e.Bootstrap, ","), e.What, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Explain maps a client error met while connecting to bootstrap
// with conn to a *Error saying which problem it is: unreachable
// address, TLS expected or not, untrusted or mismatched certificate, a
// client certificate required, a SASL mechanism not enabled, wrong
// credentials. Other errors are returned unchanged.
func Explain(err error, conn Settings, bootstrap []string) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*Error](err); ok {
		return err
	}
	what := explain(err, conn)
	if what == "" {
		return err
	}
	return &Error{Bootstrap: bootstrap, What: what, Err: err}
}

func explain(err error, conn Settings) string {
	mech := ""
	user := ""
	if conn.SASL != nil {
		mech, user = conn.SASL.Mechanism, conn.SASL.Username
	}
	var (
		unknownCA x509.UnknownAuthorityError
		hostErr   x509.HostnameError
		certErr   *tls.CertificateVerificationError
		recErr    tls.RecordHeaderError
		alert     tls.AlertError
		dnsErr    *net.DNSError
	)
	switch {
	case errors.As(err, &unknownCA) || (errors.As(err, &certErr) && strings.Contains(certErr.Error(), "unknown authority")):
		return "TLS: the broker's certificate is not signed by a CA this client trusts: set tls.ca_file to the CA bundle that signed it (" + caWords(conn) + ")"
	case errors.As(err, &hostErr):
		return fmt.Sprintf("TLS: the broker's certificate does not name the address dialled (%s): set tls.server_name to a name in it", hostErr.Host)
	case errors.As(err, &certErr):
		return "TLS: the broker's certificate did not verify: " + certErr.Err.Error()
	case errors.As(err, &recErr):
		return "TLS: the listener does not speak TLS: it is a plaintext listener; drop tls (or use the cluster's TLS port)"
	case (errors.As(err, &alert) || strings.Contains(err.Error(), "remote error: tls:")) &&
		(strings.Contains(err.Error(), "certificate required") || strings.Contains(err.Error(), "bad certificate")):
		return "TLS: the broker requires a client certificate (mutual TLS) and did not accept this client's: set tls.cert_file and tls.key_file to a certificate its CA signed"
	case errors.Is(err, kerr.SaslAuthenticationFailed):
		return fmt.Sprintf("SASL %s authentication failed for user %q: wrong username or password (or token), or the user does not exist on this cluster", mech, user)
	case errors.Is(err, kerr.UnsupportedSaslMechanism):
		return fmt.Sprintf("SASL mechanism %s is not enabled on this listener: ask for the listener's sasl.enabled.mechanisms and set sasl.mechanism to one of them", mech)
	case errors.Is(err, kerr.IllegalSaslState):
		return "SASL: the listener does not expect SASL here: it may be SSL or PLAINTEXT only; drop sasl"
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("unreachable: host %q does not resolve: check --bootstrap", dnsErr.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "unreachable: connection refused (nothing listens on that port): check --bootstrap and that the cluster runs"
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		return "unreachable: no route to the host: check --bootstrap, the network and any firewall"
	}
	if m := err.Error(); strings.Contains(m, "tls alert record") || strings.Contains(m, "plaintext connection speaking to a tls endpoint") {
		return "the listener expects TLS and this client speaks plaintext: set tls (tls: {enabled: true}, or --tls)"
	}
	if eof, ok := errors.AsType[*kgo.ErrFirstReadEOF](err); ok {
		switch {
		case conn.TLS == nil && strings.Contains(eof.Error(), "requires TLS"):
			return "the broker closed the connection at the first request: the listener expects TLS (set tls.enabled: true) or SASL"
		case conn.TLS != nil && strings.Contains(eof.Error(), "after a dial"):
			return "the broker closed the connection during the TLS handshake: the listener may not be TLS, or it requires a client certificate"
		case conn.SASL == nil:
			return "the broker closed the connection at the first request: the listener requires SASL (set sasl.mechanism and credentials) or TLS"
		}
		return "the broker closed the connection at the first request: " + eof.Error()
	}
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
		if !conn.Secured() {
			return "the broker closed the connection: the listener probably expects TLS and/or SASL; give --connection"
		}
		return "the broker closed the connection: check that the listener's security protocol matches the settings (" + conn.Describe() + ")"
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return "unreachable: the dial timed out: check --bootstrap, the network and any firewall"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer in time: the address may be wrong, filtered by a firewall, or the listener's security protocol may not match (" + conn.Describe() + ")"
	}
	return ""
}

func caWords(conn Settings) string {
	if conn.TLS != nil && conn.TLS.CAFile != "" {
		return "trusted now: " + conn.TLS.CAFile
	}
	return "trusted now: the system's roots"
}
