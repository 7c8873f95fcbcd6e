package destination

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharebench/sharebench/internal/redact"
)

// dsnKeys are the connection string keys a destination's dsn may hold:
// libpq's keywords that pgx reads, and the server settings it passes on
// at connect (application_name, client_encoding, options). Any other key
// pgx would pass to the server as a setting of that name, which the server
// refuses, or a misspelt password would go out as one.
var dsnKeys = []string{"host", "port", "dbname", "user", "password", "passfile", "connect_timeout",
	"sslmode", "ssl", "sslkey", "sslcert", "sslcertmode", "sslrootcert", "sslnegotiation", "sslpassword", "sslsni",
	"krbspn", "krbsrvname", "target_session_attrs", "service", "servicefile", "min_protocol_version",
	"max_protocol_version", "channel_binding", "require_auth", "application_name", "client_encoding", "options"}

// ParseDSN reads a destination's connection string (a URL or key=value
// pairs in libpq's grammar, redact.DSNFields), refuses a key outside
// dsnKeys, and has pgx check the values (the port, the sslmode, the
// files it names). It registers the dsn's secrets for masking first
// (redact.AddDSNSecrets), and its error says what is wrong without
// quoting the dsn. The dry run's check, Open and the writers all read
// the dsn through it.
func ParseDSN(dsn string) (*pgxpool.Config, error) {
	redact.AddDSNSecrets(dsn)
	fields, err := redact.DSNFields(dsn)
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		if !slices.Contains(dsnKeys, f.Key) {
			return nil, fmt.Errorf("unknown key %q; expected keys among %s", f.Key, strings.Join(dsnKeys, ", "))
		}
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		var pe *pgconn.ParseConfigError
		if errors.As(err, &pe) {
			e := *pe
			e.ConnString = "" // its message without the dsn
			err = errors.New(strings.TrimPrefix(e.Error(), "cannot parse ``: "))
		}
		if err.Error() == "invalid port" {
			err = errors.New("port: expected a whole number from 1 to 65535 (one for every host, or one for all)")
		}
		return nil, errors.New(redact.Text(err.Error()))
	}
	return cfg, nil
}
