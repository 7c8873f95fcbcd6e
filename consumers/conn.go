package consumers

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
)

// dial is a member's dialer: the crash dialer's connection (crash.go),
// wrapped in TLS when the cluster's listener is TLS (Config.TLS). The
// crash freezes the TCP connection under TLS, so a crashed member's TLS
// sessions go silent as its plaintext ones do.
func (m *member) dial(ctx context.Context, network, host string) (net.Conn, error) {
	conn, err := m.dialer.dial(ctx, network, host)
	if err != nil || m.c.TLS == nil {
		return conn, err
	}
	cfg := m.c.TLS.Clone()
	if cfg.ServerName == "" {
		h, _, err := net.SplitHostPort(host)
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("tls: broker address %q: %w", host, err)
		}
		cfg.ServerName = h
	}
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tc, nil
}
