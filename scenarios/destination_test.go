package scenarios

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/blocks"
	"github.com/sharebench/sharebench/internal/redact"
)

func TestDestinationBlock(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want       []string // substrings of the error; none: loads
	}{
		{"defaults", "destination: {kind: postgres}", nil},
		{"every key", "destination:\n  dsn: postgres://u:pw@db:5432/x\n  key: key_sequence\n  idempotent: false\n  batch_size: 50\n  batch_wait: 2ms\n  pool: 4\n  connections: 3", nil},
		{"connections", "destination:\n  connections: -1", []string{"s.yaml:3:", "destination.connections: expected a whole number of connections for the whole group from 1 to 250"}},
		{"a cap allows many members", "members: 40\ndestination: {pool: 8, connections: 16}", nil},
		{"unknown key", "destination:\n  kind: postgres\n  pools: 2", []string{"s.yaml:4:", `unknown key "pools" in destination`, `did you mean "pool"`}},
		{"kind", "destination:\n  kind: mysql", []string{"s.yaml:3:", "destination.kind: expected one of [postgres]"}},
		{"key", "destination:\n  key: uuid", []string{"s.yaml:3:", "destination.key: expected one of [offset key_sequence]"}},
		{"pool", "destination:\n  pool: 0", []string{"s.yaml:3:", "destination.pool: expected a whole number of connections per member from 1 to 64"}},
		{"batch", "destination:\n  batch_size: lots", []string{"s.yaml:3:", "destination.batch_size"}},
		{"wait", "destination:\n  batch_wait: soon", []string{"s.yaml:3:", "destination.batch_wait: expected a duration"}},
		{"not swept", "destination:\n  pool: [1, 2]", []string{"destination is not swept"}},
		{"empty dsn", "destination:\n  dsn: ''", []string{"destination.dsn: expected a connection string"}},
		{"java writes", "client: java\ndestination: {pool: 1}", nil},
		{"java batches nothing", "client: java\ndestination: {pool: 1, batch_size: 10}", []string{"s.yaml:3:", "destination.batch_size: client java writes one record per statement (batch_size 10)"}},
		{"commit auto", "consumer_type: consumer\ncommit: auto\ndestination: {pool: 1}", []string{"destination: commit auto"}},
		{"too many connections", "members: 40\ndestination:\n  pool: 8", []string{"s.yaml:4:", "destination.pool: 40 members × pool 8 = 320 connections; a run may open at most 250 "}},
		{"not from --set", "", []string{"destination: written in the scenario file"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var set []string
			if c.yaml == "" {
				set = []string{"destination.pool=3"}
			}
			s, err := LoadBytes("s.yaml", []byte("name: x\n"+c.yaml+"\n"), nil, set)
			if len(c.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				d := s.Runs[0].Destination
				if d == nil || d.Kind != "postgres" || d.Pool < 1 || d.BatchSize < 1 || (c.name == "defaults" && (d.Key != "offset" || !d.Idempotent || d.BatchWait != 5*time.Millisecond || d.Pool != 2 || d.Connections != 0)) || (c.name == "every key" && d.Connections != 3) {
					t.Errorf("destination %+v", d)
				}
				return
			}
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "pw@") {
				t.Errorf("error leaks the dsn: %v", err)
			}
		})
	}
}

// The dsn keeps where it is written, for the check before the campaign,
// and a password written in the file is masked wherever it is shown from
// then on (scenarios show prints the file): quoted, escaped or in a URL,
// and as YAML quotes it.
func TestDestinationDSNSourceAndSecret(t *testing.T) {
	defer redact.ForgetSecrets()
	for _, c := range []struct{ yaml, secret string }{
		{`dsn: "host=h password='Se cret\\'Pw1'"`, "Pw1"},
		{`dsn: 'host=h password=''Quoted Pw2'''`, "Quoted Pw2"},
		{`dsn: host=h password=Plain\ Pw3`, `Plain\ Pw3`},
		{`dsn: postgres://u:UrlPw4@h/db`, "UrlPw4"},
	} {
		body := "name: x\ndestination:\n  " + c.yaml + "\n"
		s, err := LoadBytes("s.yaml", []byte(body), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := s.Runs[0].Destination; d.DSNSource != "s.yaml:3" {
			t.Errorf("DSNSource %q", d.DSNSource)
		}
		if got := redact.Text(body); strings.Contains(got, c.secret) {
			t.Errorf("shown %q", got)
		}
	}
}

// The checker's bounds are the block's tags (package blocks): each
// bounded whole-number key loads at its bounds, and one past either is
// refused with the key, its line and the bounds in the message.
func TestDestinationBoundsFromTags(t *testing.T) {
	for _, k := range destinationKeys {
		if k.Type.Kind() != reflect.Int || k.Max == "" {
			continue
		}
		lo, hi := blocks.Int(k.Min), blocks.Int(k.Max)
		load := func(n int) error {
			// connections: 1 keeps members × pool within the run's budget.
			body := fmt.Sprintf("name: x\nmembers: 1\ndestination:\n  connections: 1\n  %s: %d\n", k.Name, n)
			if k.Name == "connections" {
				body = fmt.Sprintf("name: x\nmembers: 1\ndestination:\n  %s: %d\n", k.Name, n)
			}
			_, err := LoadBytes("s.yaml", []byte(body), nil, nil)
			return err
		}
		for _, n := range []int{lo, hi} {
			if err := load(n); err != nil {
				t.Errorf("destination.%s: %d refused: %v", k.Name, n, err)
			}
		}
		for _, n := range []int{lo - 1, hi + 1} {
			err := load(n)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("destination.%s: expected", k.Name)) || !strings.Contains(err.Error(), fmt.Sprintf("to %d", hi)) {
				t.Errorf("destination.%s: %d: got %v, want the key and its bound %d", k.Name, n, err, hi)
			}
		}
	}
}
