package connection

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/aws"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/sharebench/sharebench/internal/redact"
)

// ClientOpts are the franz-go options that connect a client as the
// settings say: the dial timeout, TLS (kgo.DialTLSConfig) and the SASL
// mechanism. Every client the harness creates appends them to its own
// options. A client that needs a dialer of its own (the consumer fleet's
// crash simulation) takes TLSConfig and WithoutTLS instead of the TLS
// option.
func (c Settings) ClientOpts() ([]kgo.Opt, error) {
	opts, err := c.WithoutTLS()
	if err != nil {
		return nil, err
	}
	cfg, err := c.TLSConfig()
	if err != nil {
		return nil, err
	}
	if cfg != nil {
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	return opts, nil
}

// WithoutTLS is ClientOpts without the TLS dial option: for a client that
// dials through its own dialer and wraps the connection in TLSConfig.
func (c Settings) WithoutTLS() ([]kgo.Opt, error) {
	d := c.DialTimeout
	if d == 0 {
		d = DefaultDialTimeout
	}
	opts := []kgo.Opt{kgo.DialTimeout(d)}
	if c.SASL != nil {
		m, err := c.SASL.mechanism()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.sourceName(), err)
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

func (c Settings) sourceName() string {
	if c.Source == "" {
		return "connection"
	}
	return c.Source
}

// TLSConfig is the client TLS configuration, or nil for plaintext.
func (c Settings) TLSConfig() (*tls.Config, error) {
	t := c.TLS
	if t == nil {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify} //nolint:gosec // explicit, flagged tls_insecure
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("%s: tls.ca_file: %w", c.sourceName(), err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: tls.ca_file %s: no PEM certificate in it", c.sourceName(), t.CAFile)
		}
		cfg.RootCAs = pool
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("%s: tls.cert_file/tls.key_file: %w", c.sourceName(), err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// mechanism builds the franz-go SASL mechanism. Credentials are read at
// each authentication (files, the environment), so a rotated secret is
// picked up by the next connection.
func (s *SASL) mechanism() (sasl.Mechanism, error) {
	switch s.Mechanism {
	case MechPlain:
		return plain.Plain(func(context.Context) (plain.Auth, error) {
			pw, err := s.password()
			return plain.Auth{User: s.Username, Pass: pw}, err
		}), nil
	case MechScram256, MechScram512:
		fn := func(context.Context) (scram.Auth, error) {
			pw, err := s.password()
			return scram.Auth{User: s.Username, Pass: pw}, err
		}
		if s.Mechanism == MechScram256 {
			return scram.Sha256(fn), nil
		}
		return scram.Sha512(fn), nil
	case MechOAuthBearer:
		src := s.tokenSource()
		return oauth.Oauth(func(ctx context.Context) (oauth.Auth, error) {
			tok, err := src.token(ctx)
			return oauth.Auth{Token: tok, Extensions: s.Extensions}, err
		}), nil
	case MechAWSMSKIAM:
		profile := s.AWSProfile
		return aws.ManagedStreamingIAM(func(context.Context) (aws.Auth, error) {
			return awsCredentials(profile)
		}), nil
	}
	return nil, fmt.Errorf("sasl.mechanism %q: expected one of %s", s.Mechanism, strings.Join(mechanisms, ", "))
}

func (s *SASL) password() (string, error) {
	if s.PasswordFile == "" {
		return s.Password, nil
	}
	b, err := os.ReadFile(s.PasswordFile)
	if err != nil {
		return "", fmt.Errorf("sasl.password_file: %w", err)
	}
	pw := strings.TrimRight(string(b), "\r\n")
	redact.AddSecret(pw)
	return pw, nil
}

// tokenSource is an OAUTHBEARER token, fetched when needed and reused until
// shortly before it expires. Sources are shared by settings, so that the
// clients of one run (every member is a client) run a token command once.
type tokenSource struct {
	s       SASL
	mu      sync.Mutex
	tok     string
	expires time.Time
}

var tokenSources sync.Map // key: kind + value → *tokenSource

func (s *SASL) tokenSource() *tokenSource {
	key := "token\x00" + s.Token + "\x00" + s.TokenFile + "\x00" + s.TokenCommand
	v, _ := tokenSources.LoadOrStore(key, &tokenSource{s: *s})
	return v.(*tokenSource)
}

// tokenRefreshMargin is how long before its expiry a token is replaced.
const tokenRefreshMargin = 30 * time.Second

// tokenCommandTimeout bounds a token command.
const tokenCommandTimeout = 30 * time.Second

// Now is the clock of token expiry (a variable for tests).
var tokenNow = time.Now

func (t *tokenSource) token(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok != "" && tokenNow().Before(t.expires.Add(-tokenRefreshMargin)) {
		return t.tok, nil
	}
	var tok string
	switch {
	case t.s.Token != "":
		tok = t.s.Token
	case t.s.TokenFile != "":
		b, err := os.ReadFile(t.s.TokenFile)
		if err != nil {
			return "", fmt.Errorf("sasl.token_file: %w", err)
		}
		tok = strings.TrimSpace(string(b))
	default:
		ctx, cancel := context.WithTimeout(ctx, tokenCommandTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", t.s.TokenCommand)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			// The command's error output may quote the token: redacted by
			// the writers, and cut short here.
			msg := strings.TrimSpace(stderr.String())
			if len(msg) > 300 {
				msg = msg[:300] + "..."
			}
			return "", fmt.Errorf("sasl.token_command: %w: %s", err, msg)
		}
		tok = strings.TrimSpace(string(out))
	}
	if tok == "" {
		return "", errors.New("sasl: OAUTHBEARER token is empty")
	}
	redact.AddSecret(tok)
	t.tok = tok
	t.expires = tokenNow().Add(tokenLifetime(tok, t.s))
	if t.s.Token != "" {
		t.expires = tokenNow().Add(100 * 365 * 24 * time.Hour) // static: never refreshed
	}
	return tok, nil
}

// tokenLifetime is how long a fresh token is good for: its JWT exp claim
// when it has one, else TokenLifetime (default 5m). A token file is read
// again after that, a command run again.
func tokenLifetime(tok string, s SASL) time.Duration {
	if exp, ok := jwtExpiry(tok); ok {
		return time.Until(exp)
	}
	if s.TokenLifetime > 0 {
		return s.TokenLifetime
	}
	return defaultTokenLifetime
}

// jwtExpiry reads the exp claim of a JWT (unverified: the broker verifies).
func jwtExpiry(tok string) (time.Time, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return time.Time{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return time.Time{}, false
	}
	var claims struct {
		Exp float64 `json:"exp"`
	}
	if json.Unmarshal(b, &claims) != nil || claims.Exp <= 0 {
		return time.Time{}, false
	}
	return time.Unix(int64(claims.Exp), 0), true
}

// awsCredentials reads AWS credentials the way the AWS tools' first steps
// do, without the AWS SDK: the AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_SESSION_TOKEN environment variables, else the profile (profile
// argument, $AWS_PROFILE, "default") of the shared credentials file
// ($AWS_SHARED_CREDENTIALS_FILE, ~/.aws/credentials). SSO, assumed roles
// and instance metadata are not read: export such credentials into the
// environment first (aws configure export-credentials --format env).
func awsCredentials(profile string) (aws.Auth, error) {
	if id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
		redact.AddSecret(secret)
		redact.AddSecret(os.Getenv("AWS_SESSION_TOKEN"))
		return aws.Auth{AccessKey: id, SecretKey: secret, SessionToken: os.Getenv("AWS_SESSION_TOKEN"), UserAgent: "sharebench"}, nil
	}
	if profile == "" {
		profile = os.Getenv("AWS_PROFILE")
	}
	if profile == "" {
		profile = "default"
	}
	path := os.Getenv("AWS_SHARED_CREDENTIALS_FILE")
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return aws.Auth{}, fmt.Errorf("AWS_MSK_IAM: no AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY and no home directory: %w", err)
		}
		path = filepath.Join(home, ".aws", "credentials")
	}
	kv, err := iniSection(path, profile)
	if err != nil {
		return aws.Auth{}, fmt.Errorf("AWS_MSK_IAM: no AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY in the environment, and profile %q: %w", profile, err)
	}
	a := aws.Auth{AccessKey: kv["aws_access_key_id"], SecretKey: kv["aws_secret_access_key"], SessionToken: kv["aws_session_token"], UserAgent: "sharebench"}
	if a.AccessKey == "" || a.SecretKey == "" {
		return aws.Auth{}, fmt.Errorf("AWS_MSK_IAM: profile %q in %s: aws_access_key_id and aws_secret_access_key are required", profile, path)
	}
	redact.AddSecret(a.SecretKey)
	redact.AddSecret(a.SessionToken)
	return a, nil
}

// iniSection returns the key = value pairs of [section] in an INI file.
func iniSection(path, section string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	in, found := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		if strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			name := strings.TrimSpace(l[1 : len(l)-1])
			in = name == section || name == "profile "+section
			found = found || in
			continue
		}
		if k, v, ok := strings.Cut(l, "="); ok && in {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("no [%s] section in %s", section, path)
	}
	return out, nil
}
