package shard

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/internal/wire"
	"github.com/sharebench/sharebench/results"
)

// smallExport is an agent's export of a run of one produced, delivered and
// completed record.
func smallExport(tb testing.TB) *results.ShardExport {
	tb.Helper()
	r := results.NewRecorder(results.NewClock(), 7, results.NewLedger(2, 64), results.NewSeries(0, 3))
	p, m := r.ProducerRecorder(), r.MemberRecorder()
	st := results.Stamp{Run: 7, Producer: 1, Seq: 3, Intended: 1e9, Sent: 1e9 + 10}
	p.RecordAck(st, 1e9+1e6)
	m.RecordDelivery(st, 1, 1e9+1e6, 1e9+2e6)
	m.RecordCompletion(st, 1e9+2e6, 1e9+3e6, false)
	r.SetClientClock(results.ClientClock{OffsetNs: -5, BoundNs: 9})
	e, err := r.Export()
	if err != nil {
		tb.Fatal(err)
	}
	e.Shard = 3
	return e
}

// coordinatorFor is a coordinator recorder an export of e's shape absorbs into.
func coordinatorFor(e *results.ShardExport) *results.Recorder {
	var perProducer uint64
	if len(e.Ledger.Capacity) > 0 {
		perProducer = e.Ledger.Capacity[0]
	}
	return results.NewRecorder(results.NewClock(), e.Run, results.NewLedger(len(e.Ledger.Capacity), perProducer),
		results.NewSeries(e.SeriesStart, max(1, e.Seconds())))
}

func TestExportRoundTrip(t *testing.T) {
	e := smallExport(t)
	b, err := EncodeExport(e)
	if err != nil {
		t.Fatal(err)
	}
	d, err := DecodeExport(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e, d) {
		t.Errorf("decoded export differs:\n got %+v\nwant %+v", d, e)
	}
	if len(d.Members) != 1 || d.ClientClock == nil || d.Shard != 3 {
		t.Errorf("decoded export lacks its member, client clock or shard: %+v", d)
	}
	c := coordinatorFor(d)
	if err := c.Absorb(d); err != nil {
		t.Fatal(err)
	}
	if a := c.Ledger.Audit(); a.CompletedOnce != 1 {
		t.Errorf("absorbed audit %+v, want 1 completed", a)
	}
}

// The frame refuses another magic, another version, a flipped byte, a
// truncation and a trailing byte, each with an error naming it.
func TestDecodeExportRefuses(t *testing.T) {
	b, err := EncodeExport(smallExport(t))
	if err != nil {
		t.Fatal(err)
	}
	body := b[5 : len(b)-4]
	for name, c := range map[string]struct {
		in   []byte
		want string
	}{
		"another kind of blob": {wire.Seal("SBLM", exportVersion, body), `starts with "SBLM", want "SBSX"`},
		"an agent of another build": {wire.Seal(exportMagic, exportVersion+1, body),
			"format version 5, want 4"},
		"a flipped byte":  {func() []byte { c := bytes.Clone(b); c[len(c)/2] ^= 0x20; return c }(), "checksum mismatch"},
		"truncated":       {b[:len(b)-1], "checksum mismatch"},
		"a trailing byte": {wire.Seal(exportMagic, exportVersion, append(bytes.Clone(body), 0)), "1 bytes left"},
		"a truncated body": {wire.Seal(exportMagic, exportVersion, body[:len(body)/2]),
			"shard export: "},
	} {
		if _, err := DecodeExport(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, c.want)
		}
	}
	// A body that decodes but does not fit together fails the export's own check.
	e := smallExport(t)
	e.Ledger.Repeats = append(e.Ledger.Repeats, results.RepeatExport{Producer: 9, Seq: 0, Extra: 1})
	raw, err := wire.Marshal(nil, e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeExport(wire.Seal(exportMagic, exportVersion, raw)); err == nil || !strings.Contains(err.Error(), "repeat completion (producer 9") {
		t.Errorf("repeat outside the ledger: %v", err)
	}
	if _, err := EncodeExport(e); err == nil {
		t.Error("EncodeExport of an inconsistent export: want an error")
	}
}

// FuzzDecodeExport: no input makes DecodeExport (or Absorb of what it
// decodes) panic, and whatever decodes re-encodes to an equal export. Each
// input is tried as it is and as a body in a valid frame, so the fuzzer
// reaches the field parser.
func FuzzDecodeExport(f *testing.F) {
	b, err := EncodeExport(smallExport(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[5 : len(b)-4])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, wire.Seal(exportMagic, exportVersion, data)} {
			e, err := DecodeExport(in)
			if err != nil {
				continue
			}
			out, err := EncodeExport(e)
			if err != nil {
				t.Fatalf("decoded export does not encode: %v", err)
			}
			if e2, err := DecodeExport(out); err != nil || !reflect.DeepEqual(e, e2) {
				t.Fatalf("re-encoded export decodes to something else (%v)", err)
			}
			if len(e.Ledger.Capacity) > 64 || (len(e.Ledger.Capacity) > 0 && e.Ledger.Capacity[0] > 1<<16) {
				continue // a coordinator that size is not this test's business
			}
			c := coordinatorFor(e)
			_ = c.Absorb(e)
			_ = c.Merge()
			_ = c.Ledger.Audit()
		}
	})
}
