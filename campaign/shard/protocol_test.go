package shard

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results"
)

func TestMessagesRoundTrip(t *testing.T) {
	msgs := []Msg{
		{Type: TypeHello, Run: "c", Shard: 2, Version: ProtocolVersion, ScenarioHash: "ab", PID: 7, Host: "h"},
		{Type: TypeRun, Run: "c", Shard: 2, Setup: &Setup{Spec: json.RawMessage(`{"rate":10}`), RunID: "r", Topic: "t", Group: "g",
			RunTag: 42, SeriesStartNs: 5, SeriesSeconds: 30, Producers: 3, PerProducer: 100}},
		{Type: TypePing, Run: "c", Shard: 1, Seq: 3, SendNs: 11},
		{Type: TypePong, Run: "c", Shard: 1, Seq: 3, SendNs: 11, RemoteNs: 99},
		{Type: TypeReady, Run: "c", Shard: 0, OffsetNs: -2_000_000_000, UncertaintyNs: 1500, Pings: 12},
		{Type: TypeMembers, Run: "c", Shard: All, Cmd: &Command{Seq: 1, Hold: true}},
		{Type: TypeRelease, Run: "c", Shard: All, Cmd: &Command{Seq: 2}},
		{Type: TypeProduce, Run: "c", Shard: All, Cmd: &Command{Seq: 3, StartNs: 10, WindowStartNs: 20, WindowEndNs: 30, FlushNs: 5, UntilNs: 40}},
		{Type: TypeAct, Run: "c", Shard: 1, Cmd: &Command{Seq: 4, Action: ActJoin, IDs: []int{7, 9}}},
		{Type: TypeAct, Run: "c", Shard: 1, Cmd: &Command{Seq: 5, Action: ActCrash, N: 2}},
		{Type: TypeAct, Run: "c", Shard: All, Cmd: &Command{Seq: 6, Action: ActSlow, Factor: 3, DurationNs: 1e9}},
		{Type: TypeReply, Run: "c", Shard: 1, Reply: &Reply{Seq: 5, IDs: []int{1, 3}, AtNs: 12}},
		{Type: TypeReply, Run: "c", Shard: 1, Reply: &Reply{Seq: 4, Error: "no"}},
		{Type: TypeProgress, Run: "c", Shard: 1, Progress: &Progress{Counts: progressCounts(), ProducersDone: true, Producers: []int{1}, Members: []int{1, 4}, Live: 2}},
		{Type: TypeProgress, Run: "c", Shard: 1, Progress: &Progress{Counts: progressCounts(), Live: 1,
			Delivered: results.EncodeDeliveredWords([]results.DeliveredWord{{P: 0, W: 3, V: 0xf0}})}},
		{Type: TypeDrainCheck, Run: "c", Shard: All, Seq: 2},
		{Type: TypeDelivered, Run: "c", Shard: All, From: 1, Delivered: results.EncodeDeliveredWords([]results.DeliveredWord{{P: 0, W: 3, V: 0xf0}})},
		{Type: TypeStop, Run: "c", Shard: All},
		{Type: TypeDone, Run: "c", Shard: 0, Progress: &Progress{CPUSec: 1.5, MaxRSSBytes: 1 << 20}},
		{Type: TypeFailed, Run: "c", Shard: 0, Error: "boom"},
	}
	for _, m := range msgs {
		b, err := m.Encode()
		if err != nil {
			t.Fatalf("%s: %v", m.Type, err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", m.Type, err)
		}
		g, _ := json.Marshal(got)
		if !bytes.Equal(g, b) {
			t.Errorf("%s: round trip %s, want %s", m.Type, g, b)
		}
		if got.FromAgent() != !strings.Contains("run pong members release produce act drain_check delivered stop", m.Type) {
			t.Errorf("%s: FromAgent %v", m.Type, got.FromAgent())
		}
	}
}

func TestMessagesRefused(t *testing.T) {
	for _, tt := range []struct {
		name string
		m    Msg
		want string
	}{
		{"no run", Msg{Type: TypeHello}, "without a run"},
		{"unknown type", Msg{Type: "hi", Run: "c"}, `message type "hi"`},
		{"negative shard", Msg{Type: TypePing, Run: "c", Shard: -1}, "from shard -1"},
		{"empty setup", Msg{Type: TypeRun, Run: "c", Setup: &Setup{}}, "without a complete setup"},
		{"failed without error", Msg{Type: TypeFailed, Run: "c"}, "without an error"},
		{"produce without window", Msg{Type: TypeProduce, Run: "c", Shard: All, Cmd: &Command{Seq: 1, StartNs: 1}}, "without a start instant and a window"},
		{"command without seq", Msg{Type: TypeRelease, Run: "c", Shard: All, Cmd: &Command{}}, "release message without a numbered command"},
		{"command without cmd", Msg{Type: TypeMembers, Run: "c", Shard: All}, "members message without a numbered command"},
		{"join without ids", Msg{Type: TypeAct, Run: "c", Shard: 0, Cmd: &Command{Seq: 1, Action: ActJoin}}, "act join without member ids"},
		{"join negative id", Msg{Type: TypeAct, Run: "c", Shard: 0, Cmd: &Command{Seq: 1, Action: ActJoin, IDs: []int{-1}}}, "act join without member ids"},
		{"leave none", Msg{Type: TypeAct, Run: "c", Shard: 0, Cmd: &Command{Seq: 1, Action: ActLeave}}, "act leave of 0 members"},
		{"slow by zero", Msg{Type: TypeAct, Run: "c", Shard: 0, Cmd: &Command{Seq: 1, Action: ActSlow}}, "want a factor > 0"},
		{"unknown action", Msg{Type: TypeAct, Run: "c", Shard: 0, Cmd: &Command{Seq: 1, Action: "dance", N: 1}}, `act "dance"`},
		{"reply without seq", Msg{Type: TypeReply, Run: "c", Shard: 0, Reply: &Reply{}}, "without the command's sequence number"},
		{"delivered without words", Msg{Type: TypeDelivered, Run: "c", Shard: All, From: 1}, "delivered message from shard 1 with 0 bytes"},
		{"delivered from a negative shard", Msg{Type: TypeDelivered, Run: "c", Shard: All, From: -1, Delivered: make([]byte, 16)}, "from shard -1"},
		{"delivered words cut short", Msg{Type: TypeDelivered, Run: "c", Shard: All, From: 1, Delivered: make([]byte, 17)}, "17 bytes of delivered words"},
		{"progress words cut short", Msg{Type: TypeProgress, Run: "c", Shard: 1, Progress: &Progress{Delivered: make([]byte, 15)}}, "15 bytes of delivered words"},
		{"progress words beyond the bound", Msg{Type: TypeProgress, Run: "c", Shard: 1, Progress: &Progress{Delivered: make([]byte, 16*(MaxDeliveredWords+1))}},
			"want a multiple of 16, at most 131072"},
	} {
		if _, err := tt.m.Encode(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to mention %q", tt.name, err, tt.want)
		}
	}
	if _, err := Decode([]byte("{")); err == nil {
		t.Error("malformed JSON decoded")
	}
	if (Msg{Shard: 3}).For(2) || !(Msg{Shard: All}).For(2) || !(Msg{Shard: 2}).For(2) {
		t.Error("For addresses the wrong shards")
	}
}

// A blob cut into chunks comes back whole whatever order its chunks arrive
// in; chunks of another run are skipped; bad headers are refused.
func TestChunksReassemble(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), ChunkBytes/5+7) // a little over 2 chunks
	recs := Chunks("c", 3, KindExport, 0, data, "")
	if len(recs) != 3 {
		t.Fatalf("%d bytes in %d chunks, want 3", len(data), len(recs))
	}
	for _, r := range recs {
		if len(r.Value) > ChunkBytes {
			t.Fatalf("chunk of %d bytes above %d", len(r.Value), ChunkBytes)
		}
	}
	a := Assembler{Run: "c"}
	for _, i := range []int{2, 0} {
		if b, err := a.Add(recs[i]); b != nil || err != nil {
			t.Fatalf("chunk %d: blob %v err %v before the last chunk", i, b, err)
		}
	}
	if b, _ := (&Assembler{Run: "other"}).Add(recs[1]); b != nil {
		t.Fatal("another run's chunk assembled")
	}
	b, err := a.Add(recs[1])
	if err != nil || b == nil || b.Shard != 3 || b.Kind != KindExport || !bytes.Equal(b.Data, data) {
		t.Fatalf("blob %v err %v, want shard 3's %d bytes", b != nil, err, len(data))
	}
	empty := Chunks("c", 0, KindMarks, 4, nil, "")
	if b, err := a.Add(empty[0]); err != nil || b == nil || len(b.Data) != 0 || b.Seq != 4 {
		t.Fatalf("an empty blob: %v %v", b, err)
	}
	bad := Chunks("c", 0, KindMarks, 1, []byte("x"), "")[0]
	bad.Headers[4].Value = []byte("7")
	if _, err := a.Add(bad); err == nil {
		t.Fatal("chunk 7 of 1 accepted")
	}
}

// A message signed with one shard's token verifies with it alone, and any
// change to it (the shard it names, its offset) breaks the signature; the
// signature survives the trip through JSON.
func TestSignedMessages(t *testing.T) {
	t0, _ := NewToken()
	t1, _ := NewToken()
	if t0 == t1 || len(t0) != 64 {
		t.Fatalf("tokens %q %q", t0, t1)
	}
	m := Msg{Type: TypeReady, Run: "r", Shard: 0, OffsetNs: 12, UncertaintyNs: 3, Pings: 12}.Signed(t0)
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil || !got.SignedBy(t0) {
		t.Fatalf("decoded %+v %v: not signed by its token", got, err)
	}
	if got.SignedBy(t1) {
		t.Error("signed by another shard's token")
	}
	for name, change := range map[string]func(*Msg){"shard": func(m *Msg) { m.Shard = 1 }, "offset": func(m *Msg) { m.OffsetNs = 1e18 }} {
		c := got
		change(&c)
		if c.SignedBy(t0) {
			t.Errorf("a changed %s still verifies", name)
		}
	}
	if (Msg{Type: TypeHello, Run: "r"}).SignedBy(t0) {
		t.Error("an unsigned message verifies")
	}
}

// TestSignedBlobs: a blob reassembled from chunks signed with a shard's
// token verifies under that token only, and not when its data, shard,
// kind or sequence changed; an unsigned blob never verifies.
func TestSignedBlobs(t *testing.T) {
	t0, _ := NewToken()
	t1, _ := NewToken()
	data := make([]byte, 2*ChunkBytes+10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	var a Assembler
	a.Run = "r"
	var got *Blob
	for _, rec := range Chunks("r", 2, KindExport, 0, data, t0) {
		b, err := a.Add(rec)
		if err != nil {
			t.Fatal(err)
		}
		if b != nil {
			got = b
		}
	}
	if got == nil || !got.SignedBy("r", t0) {
		t.Fatalf("blob %v: not signed by its shard's token", got != nil)
	}
	if got.SignedBy("r", t1) || got.SignedBy("other-run", t0) {
		t.Error("verifies under another token or run")
	}
	for name, change := range map[string]func(*Blob){
		"data":  func(b *Blob) { b.Data = append([]byte{}, b.Data...); b.Data[5] ^= 1 },
		"shard": func(b *Blob) { b.Shard = 1 },
		"kind":  func(b *Blob) { b.Kind = KindMarks },
		"seq":   func(b *Blob) { b.Seq = 3 },
	} {
		c := *got
		change(&c)
		if c.SignedBy("r", t0) {
			t.Errorf("a changed %s still verifies", name)
		}
	}
	var u Assembler
	u.Run = "r"
	b, err := u.Add(Chunks("r", 0, KindMarks, 1, []byte("x"), "")[0])
	if err != nil || b == nil || b.Mac != "" || b.SignedBy("r", t0) {
		t.Errorf("unsigned blob %+v %v", b, err)
	}
}

// progressCounts are counters with a few fields set, as a shard sends them.
func progressCounts() results.Counts {
	var c results.Counts
	c.Acked, c.Delivered, c.Completed, c.DestinationWrites = 5, 4, 4, 3
	c.DeliveryCounts[1] = 2
	return c
}
