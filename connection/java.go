package connection

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/sharebench/sharebench/internal/redact"
)

// JavaTokenHandler is the Java runner's OAUTHBEARER login callback handler
// (consumers/javarunner, TokenLoginHandler): it takes the token, token file
// or token command from the JAAS options JavaProperties writes.
const JavaTokenHandler = "sharebench.runner.TokenLoginHandler"

// JavaProperties are the Apache Kafka Java client settings that connect as
// these settings say (security.protocol, ssl.*, sasl.*), for the Java
// runner (client java). Certificates and keys are inlined as PEM
// (ssl.truststore.certificates, ssl.keystore.certificate.chain and
// ssl.keystore.key; the key converted to PKCS#8, the only form the Java
// client reads), and the password or token is inlined in sasl.jaas.config:
// the result holds secrets, every one registered with redact, and must
// reach the JVM only through a file of mode 0600 in a directory of mode
// 0700, removed once read (consumers/java_fleet.go). A password file is
// read once, here (franz-go reads it at each authentication).
//
// What the Java client cannot do is refused, naming the setting:
// tls.server_name (no override of the name a broker's certificate is
// checked against), tls.insecure_skip_verify (no switch to accept any
// certificate) and AWS_MSK_IAM (Amazon's aws-msk-iam-auth library is not
// on the runner's class path).
func (c Settings) JavaProperties() (map[string]string, error) {
	return c.runnerProperties(javaTLS, javaSASL)
}

// runnerProperties are a client runner's connection properties, the same
// keys in the Java client and librdkafka: socket.connection.setup.timeout.ms
// from dial_timeout, security.protocol from which of TLS and SASL are set,
// then what the client's own tls and sasl mappers add (or refuse). src
// names the settings' source in their errors.
func (c Settings) runnerProperties(tls func(src string, t *TLS, p map[string]string) error,
	sasl func(src string, s *SASL, p map[string]string) error) (map[string]string, error) {
	src := c.sourceName()
	p := map[string]string{}
	if c.DialTimeout > 0 {
		p["socket.connection.setup.timeout.ms"] = strconv.FormatInt(c.DialTimeout.Milliseconds(), 10)
	}
	if !c.Secured() {
		return p, nil
	}
	switch {
	case c.TLS != nil && c.SASL != nil:
		p["security.protocol"] = "SASL_SSL"
	case c.TLS != nil:
		p["security.protocol"] = "SSL"
	default:
		p["security.protocol"] = "SASL_PLAINTEXT"
	}
	if c.TLS != nil {
		if err := tls(src, c.TLS, p); err != nil {
			return nil, err
		}
	}
	if c.SASL != nil {
		if err := sasl(src, c.SASL, p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func javaTLS(src string, t *TLS, p map[string]string) error {
	if t.ServerName != "" {
		return fmt.Errorf("%s: tls.server_name: client java cannot take it (the Java client checks each broker's certificate "+
			"against the broker's own address and has no override); leave it out, or use client franz-go", src)
	}
	if t.InsecureSkipVerify {
		return fmt.Errorf("%s: tls.insecure_skip_verify: client java cannot take it (the Java client has no switch that accepts "+
			"any certificate); give tls.ca_file with the brokers' CA, or use client franz-go", src)
	}
	if t.CAFile != "" {
		certs, err := caPEM(src, t)
		if err != nil {
			return err
		}
		p["ssl.truststore.type"] = "PEM"
		p["ssl.truststore.certificates"] = certs
	}
	if t.CertFile != "" {
		key, chain, err := clientPEM(src, t)
		if err != nil {
			return err
		}
		p["ssl.keystore.type"] = "PEM"
		p["ssl.keystore.certificate.chain"] = chain
		p["ssl.keystore.key"] = key
	}
	return nil
}

func javaSASL(src string, s *SASL, p map[string]string) error {
	switch s.Mechanism {
	case MechPlain, MechScram256, MechScram512:
		pw, err := s.password()
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		redact.AddSecret(pw)
		module := "org.apache.kafka.common.security.scram.ScramLoginModule"
		if s.Mechanism == MechPlain {
			module = "org.apache.kafka.common.security.plain.PlainLoginModule"
		}
		p["sasl.mechanism"] = s.Mechanism
		p["sasl.jaas.config"] = jaas(module, map[string]string{"username": s.Username, "password": pw})
	case MechOAuthBearer:
		opts := map[string]string{}
		for k, v := range map[string]string{"token": s.Token, "tokenFile": s.TokenFile, "tokenCommand": s.TokenCommand} {
			if v != "" {
				opts[k] = v
			}
		}
		if s.TokenLifetime > 0 {
			opts["tokenLifetimeMs"] = strconv.FormatInt(s.TokenLifetime.Milliseconds(), 10)
		}
		for k, v := range s.Extensions {
			opts["extension_"+k] = v
		}
		p["sasl.mechanism"] = MechOAuthBearer
		p["sasl.login.callback.handler.class"] = JavaTokenHandler
		p["sasl.jaas.config"] = jaas("org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule", opts)
	case MechAWSMSKIAM:
		return fmt.Errorf("%s: sasl.mechanism %s: client java would need Amazon's aws-msk-iam-auth library "+
			"(software.amazon.msk.auth.iam.IAMLoginModule) on the Java runner's class path, which sharebench does not ship; "+
			"use client franz-go (it signs MSK IAM itself)", src, MechAWSMSKIAM)
	default:
		return fmt.Errorf("%s: sasl.mechanism %q: expected one of %s", src, s.Mechanism, strings.Join(mechanisms, ", "))
	}
	redact.AddSecret(p["sasl.jaas.config"])
	return nil
}

// jaas is a JAAS configuration line: module required, then each option
// as key="value" (sorted, backslash and quote escaped, as Kafka's JAAS
// parser reads them), then ";".
func jaas(module string, opts map[string]string) string {
	var b strings.Builder
	b.WriteString(module + " required")
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		v := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(opts[k])
		fmt.Fprintf(&b, " %s=\"%s\"", k, v)
	}
	b.WriteString(";")
	return b.String()
}
