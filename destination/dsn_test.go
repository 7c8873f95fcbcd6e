package destination_test

import (
	"strings"
	"testing"

	"github.com/sharebench/sharebench/destination"
	"github.com/sharebench/sharebench/internal/redact"
)

// ParseDSN accepts libpq's forms and refuses a bad port, an unknown key, an
// unterminated quote and a bad URL escape, saying what is wrong without
// quoting the dsn; the password it read is masked from then on.
func TestParseDSN(t *testing.T) {
	defer redact.ForgetSecrets()
	for _, c := range []struct {
		dsn, host, pass string
	}{
		{"host=db port=5433 user=app password='It\\'s Pw1' dbname=x", "db", "It's Pw1"},
		{"host = db password = PlainPw2", "db", "PlainPw2"},
		{"postgresql://app:p%40ssPw3@db1:5432,db2:5433/x?sslmode=disable", "db1", "p@ssPw3"},
		{"postgres://app@db/x?password=QueryPw4&application_name=sb", "db", "QueryPw4"},
	} {
		cfg, err := destination.ParseDSN(c.dsn)
		if err != nil {
			t.Errorf("ParseDSN(%q): %v", c.dsn, err)
			continue
		}
		if cfg.ConnConfig.Host != c.host || cfg.ConnConfig.Password != c.pass {
			t.Errorf("ParseDSN(%q): host %q password %q", c.dsn, cfg.ConnConfig.Host, cfg.ConnConfig.Password)
		}
		if got := redact.Text("auth failed for " + c.pass); strings.Contains(got, c.pass) {
			t.Errorf("%q not registered: %q", c.pass, got)
		}
	}
	for dsn, want := range map[string]string{
		"host=db port=abc password=BadPortPw5":                    "port: expected a whole number from 1 to 65535",
		"postgres://u:BadPortPw6@db:99999/x":                      "port: expected a whole number from 1 to 65535",
		"host=db passwrd=TypoPw7":                                 `unknown key "passwrd"; expected keys among host, port`,
		"host=db search_path=x password=ParamPw8":                 `unknown key "search_path"`,
		"host=db password='UnclosedPw9":                           "password: a quoted value without its closing quote",
		"postgres://u:Escape%zzPw10@db/x":                         "the password: invalid percent-encoding",
		"host=db connect_timeout=soon password=TimeoutPw11":       "invalid connect_timeout",
		"host=db sslmode=maybe password=SslPw12":                  "sslmode is invalid",
		"postgres://u:Ipv6Pw13@[::1/x":                            `matching "]"`,
		"host=db sslmode=verify-full sslrootcert=/nonexistent-ca": "unable to read CA file",
	} {
		_, err := destination.ParseDSN(dsn)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDSN(%q): %v, want %q", dsn, err, want)
			continue
		}
		if strings.Contains(err.Error(), "Pw") || strings.Contains(err.Error(), "host=") || strings.Contains(err.Error(), "://") {
			t.Errorf("ParseDSN(%q): the error quotes the dsn: %v", dsn, err)
		}
	}
}
