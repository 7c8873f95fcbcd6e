package infra

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"maps"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/connection"
	"github.com/sharebench/sharebench/internal/redact"
)

// Security modes of ClusterSpec.Security.
const (
	// SecuritySASLSSL: the client listener is SASL_SSL with SCRAM-SHA-256
	// and SCRAM-SHA-512 (users created at format time).
	SecuritySASLSSL = "sasl_ssl"
	// SecurityMTLS: the client listener is SSL with ssl.client.auth=required.
	SecurityMTLS = "mtls"
)

// ClusterSecurity secures the process provider's client listener. The
// brokers' own traffic (inter-broker, KRaft) stays PLAINTEXT on loopback;
// clients reach a separate listener, CLIENT, that Bootstrap returns. A CA,
// the brokers' certificate (127.0.0.1, localhost) and a client certificate
// are generated in Go at each start and written as PEM under the cluster's
// directory; the brokers take them as PEM key and trust stores.
type ClusterSecurity struct {
	Mode string // SecuritySASLSSL or SecurityMTLS
	// Users are the SCRAM users (name → password) created at format time
	// (sasl_ssl). Default: one user "sharebench" with a random password.
	// Passwords must not contain ',', ']' or '='.
	Users map[string]string
	// ClientUser is the user the cluster's connection.Settings authenticates as
	// (default: "sharebench" when present, else the first name in order).
	ClientUser string
	// Authorizer turns on KRaft's StandardAuthorizer with no ACLs: only
	// the client user (sasl_ssl) or client certificate (mtls) and the
	// brokers' own PLAINTEXT listeners (User:ANONYMOUS) are super users;
	// other users are denied everything.
	Authorizer bool
}

// clientListener names the secured listener.
const clientListener = "CLIENT"

// clientCertCN is the client certificate's subject: the principal
// User:CN=sharebench-client under mutual TLS.
const clientCertCN = "sharebench-client"

func (s *ClusterSecurity) withDefaults() (*ClusterSecurity, error) {
	if s == nil {
		return nil, nil
	}
	out := *s
	switch out.Mode {
	case SecuritySASLSSL, SecurityMTLS:
	default:
		return nil, fmt.Errorf("cluster spec: security mode %q: expected %s or %s", s.Mode, SecuritySASLSSL, SecurityMTLS)
	}
	out.Users = maps.Clone(s.Users)
	if out.Mode == SecuritySASLSSL {
		if len(out.Users) == 0 {
			out.Users = map[string]string{"sharebench": randomHex(16)}
		}
		for u, pw := range out.Users {
			if u == "" || strings.ContainsAny(u+pw, ",]=") || len(pw) < 4 {
				return nil, fmt.Errorf("cluster spec: security user %q: names and passwords must not contain ',', ']' or '=' and passwords need 4 characters", u)
			}
			redact.AddSecret(pw)
		}
		if out.ClientUser == "" {
			if _, ok := out.Users["sharebench"]; ok {
				out.ClientUser = "sharebench"
			} else {
				out.ClientUser = slices.Sorted(maps.Keys(out.Users))[0]
			}
		}
		if _, ok := out.Users[out.ClientUser]; !ok {
			return nil, fmt.Errorf("cluster spec: security client user %q: not among the users", out.ClientUser)
		}
	}
	return &out, nil
}

// securityFiles are the PEM files of a secured cluster.
type securityFiles struct {
	dir                     string
	caCert                  string // PEM text
	brokerChain, brokerKey  string // PEM text (the properties carry them inline)
	caFile, clientCert      string // paths
	clientKey, passwordFile string // paths (0600)
}

// setUpSecurity generates the cluster's CA and certificates, picks the
// client listener's ports and prepares the client Connection. It runs in
// layout, after the nodes have their ports.
func (c *processCluster) setUpSecurity() error {
	sec, err := c.spec.Security.withDefaults()
	if err != nil || sec == nil {
		return err
	}
	c.security = sec
	ports, err := pickPorts(len(c.nodes))
	if err != nil {
		return fmt.Errorf("cluster: pick client ports: %w", err)
	}
	for i := range c.nodes {
		c.nodes[i].ClientPort = ports[i]
	}
	f, err := writeSecurityFiles(filepath.Join(c.root, "tls"), sec)
	if err != nil {
		return fmt.Errorf("cluster: security: %w", err)
	}
	c.secFiles = f
	conn := connection.Settings{Source: "process cluster (" + sec.Mode + ")", TLS: &connection.TLS{CAFile: f.caFile}}
	if sec.Mode == SecurityMTLS {
		conn.TLS.CertFile, conn.TLS.KeyFile = f.clientCert, f.clientKey
	} else {
		conn.SASL = &connection.SASL{Mechanism: connection.MechScram512, Username: sec.ClientUser, PasswordFile: f.passwordFile}
	}
	c.conn = conn
	c.connClientOpts, err = conn.ClientOpts()
	return err
}

// Connection is how clients reach the cluster: plaintext, or the secured
// client listener's settings (CA, client certificate or SCRAM user).
func (c *processCluster) Connection() connection.Settings { return c.conn }

// connOpts are the readiness client's connection options.
func (c *processCluster) connOpts() []kgo.Opt { return c.connClientOpts }

// securityLayout adds the secured client listener to a node's layout.
func (c *processCluster) securityLayout(l nodeLayout, n nodeAddr) nodeLayout {
	if c.security == nil {
		return l
	}
	addr := loopback + ":" + strconv.Itoa(n.ClientPort)
	proto := "SASL_SSL"
	if c.security.Mode == SecurityMTLS {
		proto = "SSL"
	}
	l.Listeners = append(slices.Clone(l.Listeners), listener{Name: clientListener, Bind: addr, Advertise: addr, Protocol: proto})
	return l
}

// securityProps are the broker settings of the secured listener, on top of
// the effective configuration (they never enter BrokerConfig(): the keys
// are secrets).
func (c *processCluster) securityProps(cfg map[string]string) map[string]string {
	if c.security == nil {
		return cfg
	}
	out := maps.Clone(cfg)
	f := c.secFiles
	p := "listener.name." + strings.ToLower(clientListener) + "."
	out["ssl.keystore.type"] = "PEM"
	out["ssl.keystore.certificate.chain"] = f.brokerChain
	out["ssl.keystore.key"] = f.brokerKey
	out["ssl.truststore.type"] = "PEM"
	out["ssl.truststore.certificates"] = f.caCert
	if c.security.Mode == SecurityMTLS {
		out[p+"ssl.client.auth"] = "required"
	} else {
		out[p+"sasl.enabled.mechanisms"] = connection.MechScram256 + "," + connection.MechScram512
		for _, m := range []string{"scram-sha-256", "scram-sha-512"} {
			out[p+m+".sasl.jaas.config"] = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
		}
	}
	if c.security.Authorizer {
		out["authorizer.class.name"] = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
		super := "User:ANONYMOUS;User:CN=" + clientCertCN
		if c.security.ClientUser != "" {
			super += ";User:" + c.security.ClientUser
		}
		out["super.users"] = super
	}
	return out
}

// scramArgs are the storage tool's --add-scram arguments: every user with
// both SCRAM mechanisms.
func (c *processCluster) scramArgs() []string {
	if c.security == nil || c.security.Mode != SecuritySASLSSL {
		return nil
	}
	var args []string
	for _, u := range slices.Sorted(maps.Keys(c.security.Users)) {
		for _, m := range []string{connection.MechScram256, connection.MechScram512} {
			args = append(args, "--add-scram", fmt.Sprintf("%s=[name=%s,password=%s]", m, u, c.security.Users[u]))
		}
	}
	return args
}

// writeSecurityFiles generates a CA, a broker certificate for 127.0.0.1
// and localhost, and a client certificate, and writes them under dir.
func writeSecurityFiles(dir string, sec *ClusterSecurity) (securityFiles, error) {
	f := securityFiles{dir: dir}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return f, err
	}
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return f, err
	}
	now := time.Now().Add(-time.Hour)
	caTmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "sharebench test CA " + randomHex(4)},
		NotBefore: now, NotAfter: now.Add(30 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return f, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	leaf := func(cn string, usage x509.ExtKeyUsage, hosts bool) (certPEM, keyPEM string, err error) {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return "", "", err
		}
		t := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: cn},
			NotBefore: now, NotAfter: now.Add(30 * 24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, ExtKeyUsage: []x509.ExtKeyUsage{usage}}
		if hosts {
			t.IPAddresses = []net.IP{net.ParseIP(loopback)}
			t.DNSNames = []string{"localhost"}
		}
		der, err := x509.CreateCertificate(rand.Reader, t, ca, &key.PublicKey, caKey)
		if err != nil {
			return "", "", err
		}
		k, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return "", "", err
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
			string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: k})), nil
	}
	f.caCert = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	if f.brokerChain, f.brokerKey, err = leaf("localhost", x509.ExtKeyUsageServerAuth, true); err != nil {
		return f, err
	}
	f.brokerChain += f.caCert
	clientCert, clientKey, err := leaf(clientCertCN, x509.ExtKeyUsageClientAuth, false)
	if err != nil {
		return f, err
	}
	f.caFile = filepath.Join(dir, "ca.pem")
	f.clientCert = filepath.Join(dir, "client.pem")
	f.clientKey = filepath.Join(dir, "client-key.pem")
	files := map[string]string{f.caFile: f.caCert, f.clientCert: clientCert, f.clientKey: clientKey}
	if sec.Mode == SecuritySASLSSL {
		f.passwordFile = filepath.Join(dir, "client.password")
		files[f.passwordFile] = sec.Users[sec.ClientUser]
	}
	for path, text := range files {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			return f, err
		}
	}
	return f, nil
}

func serial() *big.Int {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return new(big.Int).SetBytes(b)
}
