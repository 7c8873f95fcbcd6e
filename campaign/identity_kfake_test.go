package campaign

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/campaign/shard"
)

// Agents are who they say they are (kfake, not Kafka; agents in-process):
// shard 1 speaking as shard 0 is refused as an impostor, naming the shard
// it claimed and the genuine agent, and the failure is not blamed on
// shard 0; without tokens two agents claiming shard 0 are refused naming
// both.
func TestShardIdentity(t *testing.T) {
	asShard0 := func(m *shard.Msg) { m.Shard = 0 }
	for _, c := range []struct {
		name   string
		tokens bool
		want   []string
	}{
		{"impostor, signed with its own token", true, []string{"message claims to be shard 0 but is not signed with the token the launcher gave shard 0",
			"a message signed with another token", "Refused: an agent speaks as another shard"}},
		{"duplicate, no tokens", false, []string{"two agents claim shard 0: pid ", " and pid ", "refused"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			_, err := shardedRun(ctx, t, inProcess{skewShard: -1, fail: -1, tokens: c.tokens,
				tamper: map[int]func(*shard.Msg){1: asShard0}}, 2)
			if err == nil {
				t.Fatal("the run accepted shard 1 speaking as shard 0")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "shard 0 failed") {
				t.Errorf("the impostor's failure is blamed on shard 0: %v", err)
			}
		})
	}
}

// A ready whose clock claims break physics fails the shard that sent it
// (kfake, in-process agents with tokens): a negative uncertainty, an
// offset of 1e18 ns, an offset beyond its round trips' bounds.
func TestShardClockRepliesOutsidePhysicalBounds(t *testing.T) {
	for _, c := range []struct {
		name string
		lie  func(*shard.Msg)
		want string
	}{
		{"offset 1e18, uncertainty -5", func(m *shard.Msg) { m.OffsetNs, m.UncertaintyNs = 1e18, -5 }, "shard 1 failed: its clock offset +1000000000000000000 ns has a negative uncertainty"},
		{"offset 1e18", func(m *shard.Msg) { m.OffsetNs = 1e18 }, "shard 1 failed: its clock offset +1000000000000000000 ns ± "},
		{"offset 10 s off", func(m *shard.Msg) { m.OffsetNs += int64(10 * time.Second) }, "is outside what its 12 round trips allow"},
		{"more pings than sent", func(m *shard.Msg) { m.Pings = 99 }, "rests on 99 pings; the coordinator answered 12"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			lie := func(m *shard.Msg) {
				if m.Type == shard.TypeReady {
					c.lie(m)
				}
			}
			_, err := shardedRun(ctx, t, inProcess{skewShard: -1, fail: -1, tokens: true, tamper: map[int]func(*shard.Msg){1: lie}}, 2)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// checkClock on constructed pings: θ = coordinator − agent = 5000 ns, each
// reply 100 ns (coordinator's view) after the ping, the next ping 300 ns
// (agent's clock) after the previous one. The bounds are θ ≤ reply − send
// = 5100 and θ ≥ reply_k − send_{k+1} = 4800.
func TestCheckClockBounds(t *testing.T) {
	var pings []pingSeen
	for k := range 3 {
		send := int64(1_000_000 + 300*k)
		pings = append(pings, pingSeen{seq: k + 1, sendNs: send, replyNs: send + 5000 + 100})
	}
	ready := func(off, unc int64, n int) shard.Msg {
		return shard.Msg{Type: shard.TypeReady, OffsetNs: off, UncertaintyNs: unc, Pings: n}
	}
	for _, c := range []struct {
		m    shard.Msg
		want string // "" passes
	}{
		{ready(5000, 50, 3), ""},
		{ready(5100, 0, 3), ""},
		{ready(4800, 0, 3), ""},
		{ready(7000, 100, 3), "outside what its 3 round trips allow (between 4800 and 5100 ns)"},
		{ready(3000, 100, 3), "outside what its 3 round trips allow"},
		{ready(3000, 1900, 3), ""}, // its ± reaches the interval
		{ready(5000, -1, 3), "negative uncertainty"},
		{ready(5000, 10, 0), "rests on 0 pings"},
		{ready(5000, 10, 4), "rests on 4 pings; the coordinator answered 3"},
	} {
		err := checkClock(c.m, pings)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("offset %d ± %d (%d pings): %v, want %q", c.m.OffsetNs, c.m.UncertaintyNs, c.m.Pings, err, c.want)
		}
	}
	backwards := append([]pingSeen(nil), pings...)
	backwards[2].sendNs = backwards[0].sendNs - 1
	if err := checkClock(ready(5000, 50, 3), backwards); err == nil || !strings.Contains(err.Error(), "ran backwards") {
		t.Errorf("a ping sent before the one before it: %v", err)
	}
}

// A results blob (export, ledger marks, client statistics) is taken only
// from the shard whose token signed it: one signed by another shard's
// token, unsigned, or from a shard outside the run is refused, naming the
// shard it claims; without tokens (a launcher that carries none) any
// in-range blob is taken.
func TestShardResultsMustBeSigned(t *testing.T) {
	t0, _ := shard.NewToken()
	t1, _ := shard.NewToken()
	tokens := []string{t0, t1}
	data := []byte("an export")
	signed := func(token string, sh int) shard.Blob {
		return shard.Blob{Shard: sh, Kind: shard.KindExport, Data: data, Mac: shard.BlobMac(token, "run", sh, shard.KindExport, 0, data)}
	}
	if err := checkBlob(signed(t1, 1), 2, "run", tokens); err != nil {
		t.Errorf("shard 1's own blob refused: %v", err)
	}
	for name, c := range map[string]struct {
		b    shard.Blob
		want string
	}{
		"another shard's token": {signed(t1, 0), "claim to be shard 0's but are signed with another token: refused"},
		"unsigned":              {shard.Blob{Shard: 1, Kind: shard.KindMarks, Data: data}, "claim to be shard 1's but are unsigned: refused"},
		"outside the run":       {signed(t1, 5), "from shard 5 of a run split over 2"},
	} {
		err := checkBlob(c.b, 2, "run", tokens)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	if err := checkBlob(shard.Blob{Shard: 1, Kind: shard.KindExport, Data: data}, 2, "run", nil); err != nil {
		t.Errorf("no tokens: %v", err)
	}
}
