package blocks_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/blocks"
)

// The keys, enums, bounds and defaults are the ones the structs declare:
// a key without its tag, or a default not in DestinationDefaults, fails.
func TestKeys(t *testing.T) {
	d := blocks.Keys(blocks.DestinationDefaults)
	if got, want := blocks.Names(d), []string{"kind", "dsn", "key", "idempotent", "batch_size", "batch_wait", "pool", "connections"}; !slices.Equal(got, want) {
		t.Fatalf("destination keys %v, want %v (dsn_source is not a file key)", got, want)
	}
	if k := blocks.Find(d, "key"); !slices.Equal(k.Enum, []string{"offset", "key_sequence"}) || k.Default != blocks.KeyOffset {
		t.Errorf("destination.key: enum %v, default %v", k.Enum, k.Default)
	}
	if k := blocks.Find(d, "pool"); blocks.Int(k.Min) != 1 || blocks.Int(k.Max) != 64 || k.Default != 2 {
		t.Errorf("destination.pool: %+v", k)
	}
	if k := blocks.Find(d, "batch_wait"); blocks.Duration(k.Max) != 10*time.Second || k.Default != 5*time.Millisecond {
		t.Errorf("destination.batch_wait: %+v", k)
	}
	a := blocks.Keys(blocks.AutoscaleDefaults)
	if len(a) != 15 {
		t.Errorf("autoscale has %d keys, want 15: %v", len(a), blocks.Names(a))
	}
	if k := blocks.Find(a, "remove"); !slices.Equal(k.Enum, []string{"leave", "crash"}) || k.Default != blocks.RemoveLeave {
		t.Errorf("autoscale.remove: %+v", k)
	}
	if k := blocks.Find(a, "threshold"); k.Gt != "0" || k.Required {
		t.Errorf("autoscale.threshold: %+v", k)
	}
	if k := blocks.Find(a, "max"); !k.Required {
		t.Errorf("autoscale.max is required: %+v", k)
	}
}

// Derive fills only what was left out (-1), from the other keys.
func TestDerive(t *testing.T) {
	a := blocks.AutoscaleDefaults
	a.Threshold = 500
	a.Derive(time.Hour)
	if a.InBelow != 50 || a.FlapWindow != a.Cooldown+a.InAfter {
		t.Errorf("derived in_below %v, flap_window %v", a.InBelow, a.FlapWindow)
	}
	a = blocks.AutoscaleDefaults
	a.Signal, a.InBelow = blocks.SignalETD, 3
	a.Derive(time.Second)
	if a.InBelow != 3 || a.FlapWindow != time.Second {
		t.Errorf("given in_below %v kept, flap_window %v capped at 1s", a.InBelow, a.FlapWindow)
	}
}

func TestOr(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "a", "a b": "a or b", "a b c": "a, b or c"} {
		var vals []string
		if in != "" {
			vals = strings.Fields(in)
		}
		if got := blocks.Or(vals); got != want {
			t.Errorf("Or(%q) = %q, want %q", vals, got, want)
		}
	}
}
