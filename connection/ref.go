package connection

// Ref is a Settings as the `cluster up` state file keeps it:
// file paths and names only, never a secret (a password or token is
// referred to by the file that holds it).
type Ref struct {
	Describe         string `json:"describe"`
	TLS              bool   `json:"tls,omitempty"`
	CAFile           string `json:"ca_file,omitempty"`
	CertFile         string `json:"cert_file,omitempty"`
	KeyFile          string `json:"key_file,omitempty"`
	SASLMechanism    string `json:"sasl_mechanism,omitempty"`
	SASLUsername     string `json:"sasl_username,omitempty"`
	SASLPasswordFile string `json:"sasl_password_file,omitempty"`
}

// RefOf is the reference to conn, nil when conn is plaintext. Inline
// secrets are not kept: Settings with an inline password or token yield a
// reference without it.
func RefOf(conn Settings) *Ref {
	if !conn.Secured() {
		return nil
	}
	r := &Ref{Describe: conn.Describe()}
	if t := conn.TLS; t != nil {
		r.TLS, r.CAFile, r.CertFile, r.KeyFile = true, t.CAFile, t.CertFile, t.KeyFile
	}
	if s := conn.SASL; s != nil {
		r.SASLMechanism, r.SASLUsername, r.SASLPasswordFile = s.Mechanism, s.Username, s.PasswordFile
	}
	return r
}

// Settings turns the reference back into settings (nil: plaintext).
func (r *Ref) Settings() Settings {
	if r == nil {
		return Settings{}
	}
	c := Settings{Source: "cluster state"}
	if r.TLS {
		c.TLS = &TLS{CAFile: r.CAFile, CertFile: r.CertFile, KeyFile: r.KeyFile}
	}
	if r.SASLMechanism != "" {
		c.SASL = &SASL{Mechanism: r.SASLMechanism, Username: r.SASLUsername, PasswordFile: r.SASLPasswordFile}
	}
	return c
}
