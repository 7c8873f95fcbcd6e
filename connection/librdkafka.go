package connection

import (
	"fmt"
	"strings"

	"github.com/sharebench/sharebench/internal/redact"
)

// LibrdkafkaProperties are the librdkafka settings that connect as these
// settings say (security.protocol, ssl.*, sasl.*), for the librdkafka
// runner (client librdkafka, consumers/rdkafkarunner/runner.py, which
// copies them into every ShareConsumer and Consumer). Certificates and
// keys are inlined as PEM (ssl.ca.pem, ssl.certificate.pem and
// ssl.key.pem, the key re-encoded as PKCS#8), and the password is inlined
// in sasl.password: the result holds secrets, every one registered with
// redact, and reaches the runner only through a file of mode 0600 in a
// directory of mode 0700, removed once read (consumers/java_fleet.go). A
// password file is read once, here (franz-go reads it at each
// authentication).
//
// The brokers' certificates are checked as franz-go checks them: against
// the CA file, else the system's roots (ssl.ca.location probe), and
// against each broker's host name (ssl.endpoint.identification.algorithm
// https); tls.insecure_skip_verify turns both off
// (enable.ssl.certificate.verification false, the algorithm none).
//
// What librdkafka cannot do is refused, naming the setting:
// tls.server_name (librdkafka has no override of the name a broker's
// certificate is checked against), OAUTHBEARER (the runner has no token
// callback yet) and AWS_MSK_IAM (librdkafka has no such mechanism).
func (c Settings) LibrdkafkaProperties() (map[string]string, error) {
	return c.runnerProperties(librdkafkaTLS, librdkafkaSASL)
}

func librdkafkaTLS(src string, t *TLS, p map[string]string) error {
	if t.ServerName != "" {
		return fmt.Errorf("%s: tls.server_name: client librdkafka cannot take it (librdkafka checks each broker's certificate "+
			"against the broker's own address and has no override); leave it out, or use client franz-go", src)
	}
	if t.InsecureSkipVerify {
		p["enable.ssl.certificate.verification"] = "false"
		p["ssl.endpoint.identification.algorithm"] = "none"
	} else {
		p["ssl.endpoint.identification.algorithm"] = "https"
	}
	if t.CAFile != "" {
		certs, err := caPEM(src, t)
		if err != nil {
			return err
		}
		p["ssl.ca.pem"] = certs
	} else if !t.InsecureSkipVerify {
		p["ssl.ca.location"] = "probe" // the system's roots, as franz-go
	}
	if t.CertFile != "" {
		key, chain, err := clientPEM(src, t)
		if err != nil {
			return err
		}
		p["ssl.certificate.pem"] = chain
		p["ssl.key.pem"] = key
	}
	return nil
}

func librdkafkaSASL(src string, s *SASL, p map[string]string) error {
	switch s.Mechanism {
	case MechPlain, MechScram256, MechScram512:
		pw, err := s.password()
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		redact.AddSecret(pw)
		p["sasl.mechanisms"] = s.Mechanism
		p["sasl.username"] = s.Username
		p["sasl.password"] = pw
		return nil
	case MechOAuthBearer:
		return fmt.Errorf("%s: sasl.mechanism %s: client librdkafka: the librdkafka runner has no token callback "+
			"(confluent-kafka's oauth_cb) to take sasl.token, sasl.token_file or sasl.token_command yet; "+
			"use client franz-go or java", src, MechOAuthBearer)
	case MechAWSMSKIAM:
		return fmt.Errorf("%s: sasl.mechanism %s: client librdkafka: librdkafka has no %s mechanism "+
			"(it refuses it as unsupported); use client franz-go (it signs MSK IAM itself)", src, MechAWSMSKIAM, MechAWSMSKIAM)
	default:
		return fmt.Errorf("%s: sasl.mechanism %q: expected one of %s", src, s.Mechanism, strings.Join(mechanisms, ", "))
	}
}
