package infra

// ConnectionRef is a Connection as the `cluster up` state file keeps it:
// file paths and names only, never a secret (a password or token is
// referred to by the file that holds it).
type ConnectionRef struct {
	Describe         string `json:"describe"`
	TLS              bool   `json:"tls,omitempty"`
	CAFile           string `json:"ca_file,omitempty"`
	CertFile         string `json:"cert_file,omitempty"`
	KeyFile          string `json:"key_file,omitempty"`
	SASLMechanism    string `json:"sasl_mechanism,omitempty"`
	SASLUsername     string `json:"sasl_username,omitempty"`
	SASLPasswordFile string `json:"sasl_password_file,omitempty"`
}

// ConnectionRefOf is the reference to c's connection, nil when c is
// plaintext. Inline secrets are not kept: a Connection with an inline
// password or token yields a reference without it.
func ConnectionRefOf(c Cluster) *ConnectionRef {
	conn := ConnectionOf(c)
	if !conn.Secured() {
		return nil
	}
	r := &ConnectionRef{Describe: conn.Describe()}
	if t := conn.TLS; t != nil {
		r.TLS, r.CAFile, r.CertFile, r.KeyFile = true, t.CAFile, t.CertFile, t.KeyFile
	}
	if s := conn.SASL; s != nil {
		r.SASLMechanism, r.SASLUsername, r.SASLPasswordFile = s.Mechanism, s.Username, s.PasswordFile
	}
	return r
}

// Connection turns the reference back into settings (nil: plaintext).
func (r *ConnectionRef) Connection() Connection {
	if r == nil {
		return Connection{}
	}
	c := Connection{Source: "cluster state"}
	if r.TLS {
		c.TLS = &TLSSettings{CAFile: r.CAFile, CertFile: r.CertFile, KeyFile: r.KeyFile}
	}
	if r.SASLMechanism != "" {
		c.SASL = &SASLSettings{Mechanism: r.SASLMechanism, Username: r.SASLUsername, PasswordFile: r.SASLPasswordFile}
	}
	return c
}
