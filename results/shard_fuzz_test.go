package results

import (
	"reflect"
	"testing"
)

// FuzzDecodeShardExport: no input makes DecodeShardExport (or Absorb of
// what it decodes) panic, and whatever decodes re-encodes to an export
// that decodes equal. Each input is tried as it is and as a body framed with a valid
// header and checksum, so the fuzzer reaches the field parser.
func FuzzDecodeShardExport(f *testing.F) {
	small := NewRecorder(NewClock(), 7, NewLedger(2, 64), NewSeries(0, 3))
	p, m := small.ProducerRecorder(), small.MemberRecorder()
	st := Stamp{Run: 7, Producer: 1, Seq: 3, Intended: 1e9, Sent: 1e9 + 10}
	p.RecordAck(st, 1e9+1e6)
	m.RecordDelivery(st, 1, 1e9+1e6, 1e9+2e6)
	m.RecordCompletion(st, 1e9+2e6, 1e9+3e6, false)
	exports := []*ShardExport{}
	if e, err := small.Export(); err == nil {
		exports = append(exports, e)
	}
	if !testing.Short() {
		w, recs := swSharded()
		w.run(false)
		if e, err := recs[0].Export(); err == nil {
			exports = append(exports, e)
		}
	}
	for _, e := range exports {
		b, err := e.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[5 : len(b)-4]) // the body alone
	}
	f.Add(SealFrame(shardMagic, shardVersion, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		framed := SealFrame(shardMagic, shardVersion, data)
		for _, in := range [][]byte{data, framed} {
			e, err := DecodeShardExport(in)
			if err != nil {
				continue
			}
			out, err := e.Encode()
			if err != nil {
				t.Fatalf("decoded export does not encode: %v", err)
			}
			e2, err := DecodeShardExport(out)
			if err != nil || !reflect.DeepEqual(e, e2) {
				t.Fatalf("re-encoded export decodes to something else (%v)", err)
			}
			if len(e.ledger.capacity) > 64 || firstOr(e.ledger.capacity, 0) > 1<<16 {
				continue // a coordinator that size is not this test's business
			}
			coord := NewRecorder(NewClock(), e.Run, NewLedger(len(e.ledger.capacity), firstOr(e.ledger.capacity, 0)),
				NewSeries(e.seriesStart, max(1, len(e.counters)/int(numCounters))))
			_ = coord.Absorb(e)
			_ = coord.Merge()
			_ = coord.Ledger.Audit()
		}
	})
}

func firstOr(s []uint64, d uint64) uint64 {
	if len(s) == 0 {
		return d
	}
	return s[0]
}
