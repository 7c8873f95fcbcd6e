package results

import "testing"

// A stamp fills exactly StampSize bytes: a value of that size is stamped
// and decoded.
func TestStampExactSize(t *testing.T) {
	b := make([]byte, StampSize)
	st := Stamp{Run: 7, Producer: 1, Seq: 2, Intended: 3, Sent: 4}
	st.Put(b)
	if got, err := DecodeStamp(b); err != nil || got != st {
		t.Errorf("exact-size stamp: %+v %v", got, err)
	}
}
