package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/blocks"
	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/vocab"
)

// Destination is the destination: block, declared once in package blocks
// with its defaults and bounds; package destination's Config embeds it.
type Destination = blocks.Destination

// destinationKeys are the keys of the destination: block.
var destinationKeys = blocks.Keys(blocks.DestinationDefaults)

// destinationKey is the destination: block's key called name.
func destinationKey(name string) blocks.Key { return blocks.Find(destinationKeys, name) }

// maxDestinationConnections is the connections a run may open in all.
var maxDestinationConnections = blocks.Int(destinationKey("connections").Max)

// destination reads the destination: block.
func (c *fileChecker) destination(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		c.errorf(v.Line, "destination: expected a map like {kind: postgres, pool: 2}, got %s", nodeKind(v))
		return
	}
	d := blocks.DestinationDefaults
	bad := false
	fail := func(line int, format string, args ...any) {
		c.errorf(line, format, args...)
		bad = true
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], resolve(v.Content[i+1])
		c.info.lines["destination."+k.Value] = k.Line
		if !slices.Contains(blocks.Names(destinationKeys), k.Value) {
			fail(k.Line, "unknown key %q in destination%s", k.Value, suggest(k.Value, blocks.Names(destinationKeys)))
			continue
		}
		if val.Kind != yaml.ScalarNode || isNull(val) {
			fail(val.Line, "destination.%s: expected a single value, got %s (destination is not swept)", k.Value, nodeKind(val))
			continue
		}
		key := destinationKey(k.Value)
		lo, hi := blocks.Int(key.Min), blocks.Int(key.Max)
		switch k.Value {
		case "kind":
			if d.Kind = blocks.DestinationKind(val.Value); !slices.Contains(key.Enum, val.Value) {
				fail(val.Line, "destination.kind: expected one of %v, got %q", key.Enum, val.Value)
			}
		case "dsn":
			if d.DSN, d.DSNSource = val.Value, fmt.Sprintf("%s:%d", c.src, val.Line); d.DSN == "" {
				fail(val.Line, "destination.dsn: expected a connection string (postgres://user:${PGPASSWORD}@host:5432/db), or leave dsn out for an embedded server")
			}
			redact.AddDSNSecrets(d.DSN) // a password written in the file is masked wherever it is shown
		case "key":
			if d.Key = blocks.RowKey(val.Value); !slices.Contains(key.Enum, val.Value) {
				fail(val.Line, "destination.key: expected one of %v, got %q", key.Enum, val.Value)
			}
		case "idempotent":
			b, err := strconv.ParseBool(val.Value)
			if err != nil {
				fail(val.Line, "destination.idempotent: expected true or false, got %q", val.Value)
			}
			d.Idempotent = b
		case "batch_size":
			n, err := strconv.Atoi(val.Value)
			if err != nil || n < lo || n > hi {
				fail(val.Line, "destination.batch_size: expected a whole number of records from %d to %d, got %q", lo, hi, val.Value)
			}
			d.BatchSize = n
		case "batch_wait":
			w, err := time.ParseDuration(val.Value)
			if err != nil || w < blocks.Duration(key.Min) || w > blocks.Duration(key.Max) {
				fail(val.Line, "destination.batch_wait: expected a duration from %s to %s (like 5ms), got %q", key.Min, key.Max, val.Value)
			}
			d.BatchWait = w
		case "pool":
			n, err := strconv.Atoi(val.Value)
			if err != nil || n < lo || n > hi {
				fail(val.Line, "destination.pool: expected a whole number of connections per member from %d to %d, got %q", lo, hi, val.Value)
			}
			d.Pool = n
		case "connections":
			n, err := strconv.Atoi(val.Value)
			if err != nil || n < lo || n > hi {
				fail(val.Line, "destination.connections: expected a whole number of connections for the whole group from 1 to %d (%d: no cap, a pool per member), got %q", hi, lo, val.Value)
			}
			d.Connections = n
		}
	}
	if !bad {
		c.info.destination = &d
	}
}

// checkDestination checks the destination: block against a run: the
// write stage is in every client's members, in one process, after
// processing (a client runner's writes one record per statement).
func (r RunSpec) checkDestination(p *problems) {
	if r.Destination == nil {
		return
	}
	if r.Client != "" && r.Client != vocab.ClientFranzGo && r.Destination.BatchSize > 1 {
		p.addf("destination.batch_size", "client %s writes one record per statement (batch_size %d); use batch_size 1 or client franz-go", r.Client, r.Destination.BatchSize)
	}
	if c := r.Destination.Connections; c > 0 && c < r.ShardCount() {
		p.addf("destination.connections", "%d connections cannot be shared by %d agents: each agent process holds its own pool, "+
			"and a connection belongs to one process; raise connections to at least %d or lower shards", c, r.ShardCount(), r.ShardCount())
	}
	if r.ConsumerType == vocab.ConsumerGroup && r.Commit == vocab.CommitAuto {
		p.addf("destination", "commit auto commits what was polled before it is written; use commit after_processing")
	}
	if n := r.MaxMembers() * r.Destination.Pool; n > maxDestinationConnections && r.Destination.Connections == 0 {
		p.addf("destination.pool", "%d members × pool %d = %d connections; a run may open at most %d (a real server usually allows fewer): lower pool or members, or cap them with destination.connections", r.MaxMembers(), r.Destination.Pool, n, maxDestinationConnections)
	}
}
