package results

import (
	"strings"
	"testing"

	"github.com/sharebench/sharebench/internal/wire"
)

// A record produced on shard A and completed on shard B is finished; one
// produced and only delivered is not; marks survive their encoding.
func TestLedgerMarksUnion(t *testing.T) {
	a, b := NewLedger(2, 100), NewLedger(2, 100)
	a.Produced(0, 1)
	a.Produced(0, 70)
	b.Produced(1, 5)
	b.Completed(0, 1) // cross-shard completion
	a.Archived(1, 5)  // archived on the other shard
	a.Delivered(0, 70)
	ma, err := DecodeLedgerMarks(a.Marks().Encode())
	if err != nil {
		t.Fatal(err)
	}
	prod, unf, err := Unfinished(ma, b.Marks())
	if err != nil || prod != 3 || unf != 1 {
		t.Fatalf("produced %d unfinished %d (%v), want 3 and 1 (record 0/70)", prod, unf, err)
	}
	b.Completed(0, 70)
	b.Completed(0, 70) // a duplicate does not make anything else finished
	if prod, unf, _ = Unfinished(ma, b.Marks()); prod != 3 || unf != 0 {
		t.Fatalf("produced %d unfinished %d, want 3 and 0", prod, unf)
	}
	if _, _, err := Unfinished(ma, NewLedger(3, 100).Marks()); err == nil {
		t.Fatal("marks of different shapes accepted")
	}
	if _, err := DecodeLedgerMarks(a.Marks().Encode()[:20]); err == nil {
		t.Fatal("truncated marks decoded")
	}
	enc := a.Marks().Encode()
	enc[len(enc)/2] ^= 1
	if _, err := DecodeLedgerMarks(enc); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("a flipped bit: %v, want a checksum error", err)
	}
	if _, err := DecodeLedgerMarks(wire.Seal(marksMagic, marksVersion, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})); err == nil {
		t.Fatal("2³² × 2³² words in 8 bytes decoded")
	}
}
