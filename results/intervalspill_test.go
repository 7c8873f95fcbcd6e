package results

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// fillLog records 600 seconds of latencies, 50 a second, into a new log.
func fillLog() *IntervalLog {
	l := NewIntervalLog("completion", 0)
	for i := range int64(600 * 50) {
		l.Record(i*intervalNs/50, 1e6+(i%97)*1e5)
	}
	return l
}

// A log whose text went to its file reads back byte for byte as one kept
// in memory, through Bytes and through the shard export, and holds at most
// spillBytes and a line of text in memory; the file is unlinked, so no
// file of it is left in $TMPDIR.
func TestIntervalLogSpillsToAnUnlinkedFile(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	old := spillBytes
	spillBytes = 1 << 30 // in memory
	mem := fillLog()
	spillBytes = 2048
	defer func() { spillBytes = old }()
	spilled := fillLog()

	want, err := mem.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	got, err := spilled.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || len(want) < 10*2048 {
		t.Fatalf("spilled log: %d bytes, in memory: %d; equal %v", len(got), len(want), bytes.Equal(got, want))
	}
	if spilled.spill == nil || spilled.spill.size == 0 {
		t.Fatal("nothing was spilled")
	}
	if c := spilled.buf.Cap(); c > 2*2048+4096 {
		t.Errorf("buffer capacity %d B after spilling at 2,048", c)
	}
	if c := mem.buf.Cap(); c < len(want)-4096 {
		t.Errorf("the in-memory log's buffer %d B, its text %d", c, len(want))
	}
	ew, err := mem.export(nil)
	if err != nil {
		t.Fatal(err)
	}
	eg, err := spilled.export(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(eg, ew) || len(ew) < 590 {
		t.Errorf("export: %d intervals spilled, %d in memory", len(eg), len(ew))
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
		t.Errorf("files left in TMPDIR: %v", left)
	}
	// Recording goes on after a read, and reads back again the same.
	for _, l := range []*IntervalLog{mem, spilled} {
		for i := range int64(200) {
			l.Record(600*intervalNs+i*intervalNs/10, 2e6)
		}
	}
	want, _ = mem.Bytes()
	got, _ = spilled.Bytes()
	if !bytes.Equal(got, want) {
		t.Error("after more recording the two logs differ")
	}
}

// Without a writable $TMPDIR the text stays in memory and nothing is lost.
func TestIntervalLogWithoutTempDirKeepsText(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	old := spillBytes
	spillBytes = 1 << 30
	mem := fillLog()
	spillBytes = 2048
	defer func() { spillBytes = old }()
	l := fillLog()
	if l.spill != nil || !l.noSpill {
		t.Fatalf("spill %v noSpill %v", l.spill, l.noSpill)
	}
	want, _ := mem.Bytes()
	got, err := l.Bytes()
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("kept in memory: %d bytes, %v; want %d", len(got), err, len(want))
	}
	if _, err := os.Stat(os.TempDir()); err == nil {
		t.Error("the missing TMPDIR exists")
	}
}
