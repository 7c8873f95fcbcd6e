package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sharebench/sharebench/connection"
)

// connFlags are the connection settings of --provider external: a
// connection file (--connection) and flags that override its values.
// Values may use ${ENV}, so that a secret stays in the environment.
type connFlags struct {
	file                           string
	tls, insecure                  bool
	ca, cert, key, serverName      string
	mechanism, username, password  string
	passwordFile                   string
	token, tokenFile, tokenCommand string
	dialTimeout                    time.Duration
}

func (f *connFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.file, "connection", "", "external provider: connection settings `FILE` (YAML: tls, sasl, bootstrap; ${ENV} in values; see docs/how-to/run-on-your-cluster.md)")
	fs.BoolVar(&f.tls, "tls", false, "external provider: connect with TLS")
	fs.StringVar(&f.ca, "tls-ca", "", "external provider: PEM CA bundle `FILE` that signs the brokers' certificates (implies --tls)")
	fs.StringVar(&f.cert, "tls-cert", "", "external provider: client certificate `FILE` for mutual TLS (PEM; implies --tls)")
	fs.StringVar(&f.key, "tls-key", "", "external provider: client private key `FILE` for mutual TLS (PEM)")
	fs.StringVar(&f.serverName, "tls-server-name", "", "external provider: name the brokers' certificates are checked against")
	fs.BoolVar(&f.insecure, "tls-insecure-skip-verify", false, "external provider: do not verify the brokers' certificates (every run is flagged tls_insecure)")
	fs.StringVar(&f.mechanism, "sasl-mechanism", "", "external provider: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or AWS_MSK_IAM")
	fs.StringVar(&f.username, "sasl-username", "", "external provider: SASL user")
	fs.StringVar(&f.password, "sasl-password", "", "external provider: SASL password; prefer '${ENV_VAR}' (single quotes) or --sasl-password-file: a command line is visible to other users")
	fs.StringVar(&f.passwordFile, "sasl-password-file", "", "external provider: `FILE` holding the SASL password")
	fs.StringVar(&f.token, "sasl-token", "", "external provider: OAUTHBEARER token; prefer '${ENV_VAR}' or --sasl-token-file")
	fs.StringVar(&f.tokenFile, "sasl-token-file", "", "external provider: `FILE` holding the OAUTHBEARER token (read again when it expires)")
	fs.StringVar(&f.tokenCommand, "sasl-token-command", "", "external provider: command printing an OAUTHBEARER token (run again before it expires)")
	fs.DurationVar(&f.dialTimeout, "dial-timeout", 0, "external provider: bound on each dial and TLS handshake (default 10s)")
}

// connFlagNames are the connection flags, in the order of --help.
var connFlagNames = []string{"connection", "tls", "tls-ca", "tls-cert", "tls-key", "tls-server-name", "tls-insecure-skip-verify",
	"sasl-mechanism", "sasl-username", "sasl-password", "sasl-password-file", "sasl-token", "sasl-token-file",
	"sasl-token-command", "dial-timeout"}

// connFlagsGiven lists the connection flags given on the command line.
func connFlagsGiven(changed func(string) bool) []string {
	var out []string
	for _, name := range connFlagNames {
		if changed(name) {
			out = append(out, name)
		}
	}
	return out
}

// connection builds the settings: the file's, then the flags' on top.
func (f *connFlags) connection(cmd *cobra.Command) (connection.Settings, error) {
	return f.settings(cmd.Flags().Changed)
}

// settings is connection with changed telling which flags were given (the
// preflight checks them this way before the run builds them).
func (f *connFlags) settings(changed func(string) bool) (connection.Settings, error) {
	var c connection.Settings
	if f.file != "" {
		var err error
		if c, err = connection.ParseFile(f.file); err != nil {
			return c, err
		}
	}
	given := connFlagsGiven(changed)
	if len(given) == 0 || len(given) == 1 && given[0] == "connection" {
		return c, c.Validate()
	}
	if c.Source == "" {
		c.Source = "flags"
	} else {
		c.Source += " and flags"
	}
	expand := func(flag, v string) (string, error) {
		out, err := connection.ExpandEnv(v, os.LookupEnv)
		if err != nil {
			return "", fmt.Errorf("--%s, expanded: %w", flag, err) // not "--flag: …": that reads as a secret and is masked
		}
		return out, nil
	}
	if f.tls || f.ca != "" || f.cert != "" || f.key != "" || f.serverName != "" || f.insecure {
		if c.TLS == nil {
			c.TLS = &connection.TLS{}
		}
		for _, s := range []struct {
			v   string
			dst *string
		}{{f.ca, &c.TLS.CAFile}, {f.cert, &c.TLS.CertFile}, {f.key, &c.TLS.KeyFile}, {f.serverName, &c.TLS.ServerName}} {
			if s.v != "" {
				*s.dst = s.v
			}
		}
		c.TLS.InsecureSkipVerify = c.TLS.InsecureSkipVerify || f.insecure
	}
	if f.mechanism != "" || f.username != "" || f.password != "" || f.passwordFile != "" || f.token != "" || f.tokenFile != "" || f.tokenCommand != "" {
		if c.SASL == nil {
			c.SASL = &connection.SASL{}
		}
		s := c.SASL
		if f.mechanism != "" {
			s.Mechanism = strings.ToUpper(f.mechanism)
		}
		if f.username != "" {
			s.Username = f.username
		}
		var err error
		if f.password != "" {
			if s.Password, err = expand("sasl-password", f.password); err != nil {
				return c, err
			}
			s.PasswordFile = ""
		}
		if f.passwordFile != "" {
			s.PasswordFile, s.Password = f.passwordFile, ""
		}
		if f.token != "" {
			if s.Token, err = expand("sasl-token", f.token); err != nil {
				return c, err
			}
			s.TokenFile, s.TokenCommand = "", ""
		}
		if f.tokenFile != "" {
			s.TokenFile, s.Token, s.TokenCommand = f.tokenFile, "", ""
		}
		if f.tokenCommand != "" {
			s.TokenCommand, s.Token, s.TokenFile = f.tokenCommand, "", ""
		}
	}
	if f.dialTimeout != 0 {
		c.DialTimeout = f.dialTimeout
	}
	return c, c.Validate()
}
