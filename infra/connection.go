package infra

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/internal/redact"
)

// Connection is how every client the harness creates reaches a cluster:
// TLS and SASL. The zero value is plaintext without authentication, what
// the harness's own clusters serve unless they are secured
// (ClusterSpec.Security). One Connection is carried by the cluster
// (ConnectionOf) and turned into client options by ClientOpts, which every
// client creation (producers, both fleets, admin, lag sampler, probes)
// takes.
//
// A Connection holds secrets (a password, a token) only in memory: its
// secret fields are registered with internal/redact when it is loaded, so
// that logs, console and campaign files never show them, and it is never
// marshalled whole (ClusterState keeps paths, not secrets).
type Connection struct {
	// Bootstrap is an optional seed list given in a connection file, so
	// one file can describe a managed cluster completely; --bootstrap wins.
	Bootstrap []string
	TLS       *TLSSettings
	SASL      *SASLSettings
	// DialTimeout bounds each dial including the TLS handshake (default
	// DefaultDialTimeout).
	DialTimeout time.Duration
	// Source names where the settings came from (a file, "flags"), for
	// messages.
	Source string
}

// TLSSettings are the client side of a TLS listener.
type TLSSettings struct {
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

// SASLSettings authenticate the client.
type SASLSettings struct {
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
func (c Connection) Secured() bool { return c.TLS != nil || c.SASL != nil }

// Insecure reports whether the brokers' certificates go unchecked
// (tls.insecure_skip_verify): the run is flagged tls_insecure.
func (c Connection) Insecure() bool { return c.TLS != nil && c.TLS.InsecureSkipVerify }

// Describe is a one-line description without secrets, e.g. "SASL_SSL
// SCRAM-SHA-512 user alice, CA ca.pem".
func (c Connection) Describe() string {
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
func (c Connection) Validate() error {
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

// The connection file: YAML, keys below, ${ENV} in any value.
var connectionKeys = map[string][]string{
	"":     {"bootstrap", "tls", "sasl", "dial_timeout"},
	"tls":  {"enabled", "ca_file", "cert_file", "key_file", "server_name", "insecure_skip_verify"},
	"sasl": {"mechanism", "username", "password", "password_file", "token", "token_file", "token_command", "token_lifetime", "extensions", "aws_profile"},
}

// LoadConnection reads a connection file. Every value may use ${NAME}
// (the environment variable NAME; unset is an error) and $$ for a dollar.
// Unknown keys and malformed values are errors naming the file, the key
// and what is expected.
func LoadConnection(path string) (Connection, error) {
	c, err := ParseConnectionFile(path)
	if err != nil {
		return Connection{}, err
	}
	return c, c.Validate()
}

// ParseConnectionFile is LoadConnection without Validate, for settings
// that flags complete.
func ParseConnectionFile(path string) (Connection, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Connection{}, fmt.Errorf("connection file: %w", err)
	}
	return ParseConnection(path, b, os.LookupEnv)
}

// ParseConnection parses connection-file text; name is used in messages,
// lookup resolves ${NAME}.
func ParseConnection(name string, text []byte, lookup func(string) (string, bool)) (Connection, error) {
	c := Connection{Source: name}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return c, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Content) == 0 {
		return c, fmt.Errorf("%s: empty connection file", name)
	}
	p := connParser{name: name, lookup: lookup}
	top := doc.Content[0]
	if err := p.mapping(top, "", func(key string, v *yaml.Node) error {
		switch key {
		case "bootstrap":
			if v.Kind == yaml.SequenceNode {
				for _, e := range v.Content {
					s, err := p.str(e, key)
					if err != nil {
						return err
					}
					c.Bootstrap = append(c.Bootstrap, s)
				}
				return nil
			}
			s, err := p.str(v, key)
			for _, a := range strings.Split(s, ",") {
				if a = strings.TrimSpace(a); a != "" {
					c.Bootstrap = append(c.Bootstrap, a)
				}
			}
			return err
		case "dial_timeout":
			d, err := p.duration(v, key)
			c.DialTimeout = d
			return err
		case "tls":
			t, err := p.tls(v)
			c.TLS = t
			return err
		case "sasl":
			s, err := p.sasl(v)
			c.SASL = s
			return err
		}
		return nil
	}); err != nil {
		return c, err
	}
	return c, nil
}

type connParser struct {
	name   string
	lookup func(string) (string, bool)
}

func (p connParser) errf(n *yaml.Node, key, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s: %s", p.name, n.Line, key, fmt.Sprintf(format, args...))
}

// mapping walks a mapping node, rejecting keys the section does not have.
func (p connParser) mapping(n *yaml.Node, section string, f func(key string, v *yaml.Node) error) error {
	where := section
	if where == "" {
		where = "connection file"
	}
	if n.Kind != yaml.MappingNode {
		return p.errf(n, where, "expected a mapping of %s", strings.Join(connectionKeys[section], ", "))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		full := k.Value
		if section != "" {
			full = section + "." + k.Value
		}
		if !slices.Contains(connectionKeys[section], k.Value) {
			return p.errf(k, full, "unknown key; expected one of %s", strings.Join(connectionKeys[section], ", "))
		}
		if seen[k.Value] {
			return p.errf(k, full, "given twice")
		}
		seen[k.Value] = true
		if err := f(k.Value, v); err != nil {
			return err
		}
	}
	return nil
}

var envRef = regexp.MustCompile(`\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$\{[^}]*\}?`)

// str returns a scalar with ${ENV} expanded.
func (p connParser) str(n *yaml.Node, key string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", p.errf(n, key, "expected a single value")
	}
	var err error
	out := envRef.ReplaceAllStringFunc(n.Value, func(m string) string {
		if m == "$$" {
			return "$"
		}
		sub := envRef.FindStringSubmatch(m)
		if sub[1] == "" {
			err = p.errf(n, key, "%q: expected ${NAME} with NAME an environment variable name ($$ for a dollar)", m)
			return ""
		}
		v, ok := p.lookup(sub[1])
		if !ok {
			err = p.errf(n, key, "environment variable %s is not set", sub[1])
			return ""
		}
		return v
	})
	return out, err
}

func (p connParser) bool(n *yaml.Node, key string) (bool, error) {
	s, err := p.str(n, key)
	if err != nil {
		return false, err
	}
	b, perr := strconv.ParseBool(s)
	if perr != nil {
		return false, p.errf(n, key, "%q: expected true or false", s)
	}
	return b, nil
}

func (p connParser) duration(n *yaml.Node, key string) (time.Duration, error) {
	s, err := p.str(n, key)
	if err != nil {
		return 0, err
	}
	d, perr := time.ParseDuration(s)
	if perr != nil || d <= 0 {
		return 0, p.errf(n, key, "%q: expected a positive duration such as 10s or 5m", s)
	}
	return d, nil
}

func (p connParser) tls(n *yaml.Node) (*TLSSettings, error) {
	t := &TLSSettings{}
	enabled := true
	err := p.mapping(n, "tls", func(key string, v *yaml.Node) error {
		var err error
		full := "tls." + key
		switch key {
		case "enabled":
			enabled, err = p.bool(v, full)
		case "insecure_skip_verify":
			t.InsecureSkipVerify, err = p.bool(v, full)
		case "ca_file":
			t.CAFile, err = p.str(v, full)
		case "cert_file":
			t.CertFile, err = p.str(v, full)
		case "key_file":
			t.KeyFile, err = p.str(v, full)
		case "server_name":
			t.ServerName, err = p.str(v, full)
		}
		return err
	})
	if err != nil || !enabled {
		return nil, err
	}
	return t, nil
}

func (p connParser) sasl(n *yaml.Node) (*SASLSettings, error) {
	s := &SASLSettings{}
	err := p.mapping(n, "sasl", func(key string, v *yaml.Node) error {
		var err error
		full := "sasl." + key
		switch key {
		case "mechanism":
			s.Mechanism, err = p.str(v, full)
			s.Mechanism = strings.ToUpper(s.Mechanism)
			if err == nil && !slices.Contains(mechanisms, s.Mechanism) {
				err = p.errf(v, full, "%q: expected one of %s", v.Value, strings.Join(mechanisms, ", "))
			}
		case "username":
			s.Username, err = p.str(v, full)
		case "password":
			s.Password, err = p.str(v, full)
		case "password_file":
			s.PasswordFile, err = p.str(v, full)
		case "token":
			s.Token, err = p.str(v, full)
		case "token_file":
			s.TokenFile, err = p.str(v, full)
		case "token_command":
			s.TokenCommand, err = p.str(v, full)
		case "token_lifetime":
			s.TokenLifetime, err = p.duration(v, full)
		case "aws_profile":
			s.AWSProfile, err = p.str(v, full)
		case "extensions":
			if v.Kind != yaml.MappingNode {
				return p.errf(v, full, "expected a mapping of extension names to values")
			}
			s.Extensions = map[string]string{}
			for i := 0; i+1 < len(v.Content); i += 2 {
				val, err := p.str(v.Content[i+1], full+"."+v.Content[i].Value)
				if err != nil {
					return err
				}
				s.Extensions[v.Content[i].Value] = val
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if s.Mechanism == "" {
		return nil, p.errf(n, "sasl.mechanism", "required: one of %s", strings.Join(mechanisms, ", "))
	}
	return s, nil
}
