package connection

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sharebench/sharebench/internal/boundedread"

	"go.yaml.in/yaml/v3"
)

// The connection file: YAML, keys below, ${ENV} in any value.
var fileKeys = map[string][]string{
	"":     {"bootstrap", "tls", "sasl", "dial_timeout"},
	"tls":  {"enabled", "ca_file", "cert_file", "key_file", "server_name", "insecure_skip_verify"},
	"sasl": {"mechanism", "username", "password", "password_file", "token", "token_file", "token_command", "token_lifetime", "extensions", "aws_profile"},
}

// Load reads a connection file. Every value may use ${NAME}
// (the environment variable NAME; unset is an error) and $$ for a dollar.
// Unknown keys and malformed values are errors naming the file, the key
// and what is expected.
func Load(path string) (Settings, error) {
	c, err := ParseFile(path)
	if err != nil {
		return Settings{}, err
	}
	return c, c.Validate()
}

// ParseFile is Load without Validate, for settings
// that flags complete.
func ParseFile(path string) (Settings, error) {
	b, err := ReadFile(path)
	if err != nil {
		return Settings{}, fmt.Errorf("connection file: %w", err)
	}
	return Parse(path, b, os.LookupEnv)
}

// MaxFileBytes is the largest connection file read: a real one is a few
// hundred bytes of YAML (certificates are named by path, not inlined).
const MaxFileBytes = 64 << 10

// ReadFile reads a connection file of at most MaxFileBytes, reading no
// more than one byte beyond that from anything (/dev/zero, a FIFO someone
// keeps writing), so a wrong path fails at once instead of exhausting
// memory.
func ReadFile(path string) ([]byte, error) {
	return boundedread.File(path, MaxFileBytes, "connection file", "a few hundred bytes of YAML")
}

// Parse parses connection-file text; name is used in messages,
// lookup resolves ${NAME}.
func Parse(name string, text []byte, lookup func(string) (string, bool)) (Settings, error) {
	c := Settings{Source: name}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return c, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Content) == 0 {
		return c, fmt.Errorf("%s: empty connection file", name)
	}
	p := parser{name: name, lookup: lookup}
	top := doc.Content[0]
	if err := p.mapping(top, "", func(key string, v *yaml.Node) error {
		switch key {
		case "bootstrap":
			if v.Kind == yaml.SequenceNode {
				for _, e := range v.Content {
					s, err := p.str(e, key)
					if err != nil {
						return err
					}
					c.Bootstrap = append(c.Bootstrap, s)
				}
				return nil
			}
			s, err := p.str(v, key)
			for _, a := range strings.Split(s, ",") {
				if a = strings.TrimSpace(a); a != "" {
					c.Bootstrap = append(c.Bootstrap, a)
				}
			}
			return err
		case "dial_timeout":
			d, err := p.duration(v, key)
			c.DialTimeout = d
			return err
		case "tls":
			t, err := p.tls(v)
			c.TLS = t
			return err
		case "sasl":
			s, err := p.sasl(v)
			c.SASL = s
			return err
		}
		return nil
	}); err != nil {
		return c, err
	}
	return c, nil
}

type parser struct {
	name   string
	lookup func(string) (string, bool)
}

func (p parser) errf(n *yaml.Node, key, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s: %s", p.name, n.Line, key, fmt.Sprintf(format, args...))
}

// mapping walks a mapping node, rejecting keys the section does not have.
func (p parser) mapping(n *yaml.Node, section string, f func(key string, v *yaml.Node) error) error {
	where := section
	if where == "" {
		where = "connection file"
	}
	if n.Kind != yaml.MappingNode {
		return p.errf(n, where, "expected a mapping of %s", strings.Join(fileKeys[section], ", "))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		full := k.Value
		if section != "" {
			full = section + "." + k.Value
		}
		if !slices.Contains(fileKeys[section], k.Value) {
			return p.errf(k, full, "unknown key; expected one of %s", strings.Join(fileKeys[section], ", "))
		}
		if seen[k.Value] {
			return p.errf(k, full, "given twice")
		}
		seen[k.Value] = true
		if err := f(k.Value, v); err != nil {
			return err
		}
	}
	return nil
}

var envRef = regexp.MustCompile(`\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$\{[^}]*\}?`)

// ExpandEnv replaces each ${NAME} in s by lookup(NAME) and each $$ by a
// dollar: the expansion of connection-file values and of the secret flags
// (--sasl-password, --sasl-token). An unset NAME, or a ${...} that does
// not hold a variable name, is an error; a lone $ stays as it is.
func ExpandEnv(s string, lookup func(string) (string, bool)) (string, error) {
	var err error
	out := envRef.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		if err != nil {
			return ""
		}
		sub := envRef.FindStringSubmatch(m)
		if sub[1] == "" {
			err = fmt.Errorf("%q: expected ${NAME} with NAME an environment variable name ($$ for a dollar)", m)
			return ""
		}
		v, ok := lookup(sub[1])
		if !ok {
			err = fmt.Errorf("environment variable %s is not set", sub[1])
			return ""
		}
		return v
	})
	return out, err
}

// str returns a scalar with ${ENV} expanded.
func (p parser) str(n *yaml.Node, key string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", p.errf(n, key, "expected a single value")
	}
	out, err := ExpandEnv(n.Value, p.lookup)
	if err != nil {
		return "", p.errf(n, key, "%v", err)
	}
	return out, nil
}

func (p parser) bool(n *yaml.Node, key string) (bool, error) {
	s, err := p.str(n, key)
	if err != nil {
		return false, err
	}
	b, perr := strconv.ParseBool(s)
	if perr != nil {
		return false, p.errf(n, key, "%q: expected true or false", s)
	}
	return b, nil
}

func (p parser) duration(n *yaml.Node, key string) (time.Duration, error) {
	s, err := p.str(n, key)
	if err != nil {
		return 0, err
	}
	d, perr := time.ParseDuration(s)
	if perr != nil || d <= 0 {
		return 0, p.errf(n, key, "%q: expected a positive duration such as 10s or 5m", s)
	}
	return d, nil
}

func (p parser) tls(n *yaml.Node) (*TLS, error) {
	t := &TLS{}
	enabled := true
	err := p.mapping(n, "tls", func(key string, v *yaml.Node) error {
		var err error
		full := "tls." + key
		switch key {
		case "enabled":
			enabled, err = p.bool(v, full)
		case "insecure_skip_verify":
			t.InsecureSkipVerify, err = p.bool(v, full)
		case "ca_file":
			t.CAFile, err = p.str(v, full)
		case "cert_file":
			t.CertFile, err = p.str(v, full)
		case "key_file":
			t.KeyFile, err = p.str(v, full)
		case "server_name":
			t.ServerName, err = p.str(v, full)
		}
		return err
	})
	if err != nil || !enabled {
		return nil, err
	}
	return t, nil
}

func (p parser) sasl(n *yaml.Node) (*SASL, error) {
	s := &SASL{}
	err := p.mapping(n, "sasl", func(key string, v *yaml.Node) error {
		var err error
		full := "sasl." + key
		switch key {
		case "mechanism":
			s.Mechanism, err = p.str(v, full)
			s.Mechanism = strings.ToUpper(s.Mechanism)
			if err == nil && !slices.Contains(mechanisms, s.Mechanism) {
				err = p.errf(v, full, "%q: expected one of %s", v.Value, strings.Join(mechanisms, ", "))
			}
		case "username":
			s.Username, err = p.str(v, full)
		case "password":
			s.Password, err = p.str(v, full)
		case "password_file":
			s.PasswordFile, err = p.str(v, full)
		case "token":
			s.Token, err = p.str(v, full)
		case "token_file":
			s.TokenFile, err = p.str(v, full)
		case "token_command":
			s.TokenCommand, err = p.str(v, full)
		case "token_lifetime":
			s.TokenLifetime, err = p.duration(v, full)
		case "aws_profile":
			s.AWSProfile, err = p.str(v, full)
		case "extensions":
			if v.Kind != yaml.MappingNode {
				return p.errf(v, full, "expected a mapping of extension names to values")
			}
			s.Extensions = map[string]string{}
			for i := 0; i+1 < len(v.Content); i += 2 {
				val, err := p.str(v.Content[i+1], full+"."+v.Content[i].Value)
				if err != nil {
					return err
				}
				s.Extensions[v.Content[i].Value] = val
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if s.Mechanism == "" {
		return nil, p.errf(n, "sasl.mechanism", "required: one of %s", strings.Join(mechanisms, ", "))
	}
	return s, nil
}
