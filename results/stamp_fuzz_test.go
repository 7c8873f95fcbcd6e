package results

import (
	"bytes"
	"testing"
)

// Any record value, stamped by this harness or not, decodes to a stamp or
// ErrNotStamped; a decoded stamp with any field values goes through the
// hot path (delivery, completion, release, reject, audit, merge) without a
// panic, counted as foreign when it lies outside the ledger.
func FuzzDecodeStamp(f *testing.F) {
	good := make([]byte, StampSize)
	Stamp{Producer: 1, Run: 7, Seq: 3, Intended: 1e9, Sent: 1e9 + 5}.Put(good)
	f.Add(good)
	f.Add(good[:StampSize-1])
	f.Add([]byte{})
	huge := bytes.Clone(good)
	for i := 4; i < StampSize; i++ {
		huge[i] = 0xff
	}
	f.Add(huge)
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := DecodeStamp(b)
		if err != nil {
			if err != ErrNotStamped {
				t.Fatalf("DecodeStamp error %v, want ErrNotStamped", err)
			}
			return
		}
		if len(b) >= StampSize {
			back := make([]byte, StampSize)
			st.Put(back)
			if !bytes.Equal(back, b[:StampSize]) {
				t.Fatalf("stamp does not round-trip: %x → %+v → %x", b[:StampSize], st, back)
			}
		}
		rec := NewRecorder(NewClock(), st.Run, NewLedger(2, 16), NewSeries(0, 4))
		rec.SetWindow(Window{Start: 0, End: 2e9})
		sh := rec.MemberRecorder()
		sh.RecordDelivery(st, 1, st.Sent, st.Sent+1)
		sh.RecordCompletion(st, st.Sent+1, st.Sent+2, false)
		sh.RecordRelease(st, st.Sent+3, true)
		sh.RecordReject(st, st.Sent+4)
		_ = rec.Merge()
		_ = rec.Ledger.Audit()
	})
}
