package connection

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/sharebench/sharebench/internal/redact"
)

// Settings are how every client the harness creates reaches a cluster:
// TLS and SASL. The zero value is plaintext without authentication, what
// the harness's own clusters serve unless they are secured
// (infra.ClusterSpec.Security). One Settings is carried by the cluster
// (infra.ConnectionOf) and turned into client options by ClientOpts, which
// every client creation (producers, both fleets, admin, lag sampler,
// probes) takes.
//
// Settings hold secrets (a password, a token) only in memory: its
// secret fields are registered with internal/redact when it is loaded, so
// that logs, console and campaign files never show them, and it is never
// marshalled whole (the `cluster up` state keeps a Ref: paths, not
// secrets).
type Settings struct {
	// Bootstrap is an optional seed list given in a connection file, so
	// one file can describe a managed cluster completely; --bootstrap wins.
	Bootstrap []string
	TLS       *TLS
	SASL      *SASL
	// DialTimeout bounds each dial including the TLS handshake (default
	// DefaultDialTimeout).
	DialTimeout time.Duration
	// Source names where the settings came from (a file, "flags"), for
	// messages.
	Source string
}

// TLS are the client side of a TLS listener.
type TLS struct {
	// CAFile is a PEM bundle of the CAs that sign the brokers' certificates;
	// empty: the system's roots.
	CAFile string
	// CertFile and KeyFile are the client's certificate and private key
	// (PEM) for mutual TLS.
	CertFile, KeyFile string
	// ServerName overrides the name the brokers' certificates are checked
	// against (default: each broker's host).
	ServerName string
	// InsecureSkipVerify accepts any broker certificate. A run that uses it
	// is flagged tls_insecure.
	InsecureSkipVerify bool
}

// SASL mechanisms.
const (
	MechPlain       = "PLAIN"
	MechScram256    = "SCRAM-SHA-256"
	MechScram512    = "SCRAM-SHA-512"
	MechOAuthBearer = "OAUTHBEARER"
	MechAWSMSKIAM   = "AWS_MSK_IAM"
)

var mechanisms = []string{MechPlain, MechScram256, MechScram512, MechOAuthBearer, MechAWSMSKIAM}

// SASL authenticate the client.
type SASL struct {
	Mechanism string
	// Username and Password (PLAIN, SCRAM); PasswordFile is read at each
	// authentication instead of Password.
	Username, Password, PasswordFile string
	// OAUTHBEARER: a static Token, a TokenFile read at each authentication,
	// or a TokenCommand (run by sh -c) whose standard output is the token.
	// A command's token is reused until shortly before it expires (the
	// JWT's exp claim, else TokenLifetime after it was fetched).
	Token, TokenFile, TokenCommand string
	TokenLifetime                  time.Duration
	// Extensions are OAUTHBEARER SASL extensions (e.g. logicalCluster and
	// identityPoolId on Confluent Cloud).
	Extensions map[string]string
	// AWSProfile names the shared-credentials profile AWS_MSK_IAM reads
	// when the AWS_* environment variables are not set (default
	// $AWS_PROFILE, else "default").
	AWSProfile string
}

// DefaultDialTimeout bounds a dial and TLS handshake.
const DefaultDialTimeout = 10 * time.Second

// defaultTokenLifetime is how long a command's token is reused when it
// carries no exp claim.
const defaultTokenLifetime = 5 * time.Minute

// Secured reports whether the connection uses TLS or SASL.
func (c Settings) Secured() bool { return c.TLS != nil || c.SASL != nil }

// Insecure reports whether the brokers' certificates go unchecked
// (tls.insecure_skip_verify): the run is flagged tls_insecure.
func (c Settings) Insecure() bool { return c.TLS != nil && c.TLS.InsecureSkipVerify }

// Describe is a one-line description without secrets, e.g. "SASL_SSL
// SCRAM-SHA-512 user alice, CA ca.pem".
func (c Settings) Describe() string {
	proto := "PLAINTEXT"
	switch {
	case c.TLS != nil && c.SASL != nil:
		proto = "SASL_SSL"
	case c.TLS != nil:
		proto = "SSL"
	case c.SASL != nil:
		proto = "SASL_PLAINTEXT"
	}
	parts := []string{proto}
	if c.SASL != nil {
		parts = append(parts, c.SASL.Mechanism)
		if c.SASL.Username != "" {
			parts = append(parts, "user "+c.SASL.Username)
		}
	}
	if t := c.TLS; t != nil {
		if t.CAFile != "" {
			parts = append(parts, "CA "+t.CAFile)
		}
		if t.CertFile != "" {
			parts = append(parts, "client certificate "+t.CertFile)
		}
		if t.InsecureSkipVerify {
			parts = append(parts, "certificates NOT verified")
		}
	}
	return strings.Join(parts, ", ")
}

// Validate checks that the settings can work together, naming the key at
// fault, and registers the secrets with redact.
func (c Settings) Validate() error {
	src := c.Source
	if src == "" {
		src = "connection"
	}
	if t := c.TLS; t != nil {
		if (t.CertFile == "") != (t.KeyFile == "") {
			return fmt.Errorf("%s: tls.cert_file and tls.key_file: give both (mutual TLS) or neither", src)
		}
		for k, f := range map[string]string{"tls.ca_file": t.CAFile, "tls.cert_file": t.CertFile, "tls.key_file": t.KeyFile} {
			if f == "" {
				continue
			}
			if _, err := os.Stat(f); err != nil {
				return fmt.Errorf("%s: %s: %w", src, k, err)
			}
		}
	}
	if c.DialTimeout < 0 {
		return fmt.Errorf("%s: dial_timeout %v: must be positive", src, c.DialTimeout)
	}
	s := c.SASL
	if s == nil {
		return nil
	}
	redact.AddSecret(s.Password)
	redact.AddSecret(s.Token)
	for k, v := range s.Extensions {
		if redact.IsSecretKey(k) {
			redact.AddSecret(v)
		}
	}
	if !slices.Contains(mechanisms, s.Mechanism) {
		return fmt.Errorf("%s: sasl.mechanism %q: expected one of %s", src, s.Mechanism, strings.Join(mechanisms, ", "))
	}
	set := func(v string) bool { return v != "" }
	switch s.Mechanism {
	case MechPlain, MechScram256, MechScram512:
		if s.Username == "" {
			return fmt.Errorf("%s: sasl.username: required by %s", src, s.Mechanism)
		}
		if set(s.Password) == set(s.PasswordFile) {
			return fmt.Errorf("%s: sasl.password or sasl.password_file: give exactly one for %s (password: \"${ENV_VAR}\" keeps it out of the file)", src, s.Mechanism)
		}
	case MechOAuthBearer:
		n := 0
		for _, v := range []string{s.Token, s.TokenFile, s.TokenCommand} {
			if set(v) {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("%s: sasl.token, sasl.token_file or sasl.token_command: give exactly one for OAUTHBEARER", src)
		}
	case MechAWSMSKIAM:
		if c.TLS == nil {
			return fmt.Errorf("%s: AWS_MSK_IAM: MSK's IAM listener is TLS: add tls: {enabled: true}", src)
		}
	}
	if s.Mechanism != MechOAuthBearer && (set(s.Token) || set(s.TokenFile) || set(s.TokenCommand) || len(s.Extensions) > 0) {
		return fmt.Errorf("%s: sasl.token*/extensions: only for OAUTHBEARER, mechanism is %s", src, s.Mechanism)
	}
	if s.Mechanism == MechPlain && c.TLS == nil {
		// Allowed (a test listener), but the password crosses in clear.
		return nil
	}
	return nil
}
