package wire

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

type inner struct {
	A int32
	B []uint64
	C *inner
}

type every struct {
	Bool  bool
	I     int
	I8    int8
	I64   int64
	U8    uint8
	U32   uint32
	U64   uint64
	F     float64
	S     string
	Bytes []byte
	Ints  []int64
	Words []uint64
	Arr   [2][]byte
	Ptr   *inner
	Nil   *inner
	Inner []inner
	Named []named
	Fixed []uint64 `wire:"fixed64"`
}

type named int16

func sample() every {
	return every{Bool: true, I: -7, I8: -128, I64: math.MinInt64, U8: 255, U32: math.MaxUint32, U64: math.MaxUint64,
		F: -1.5, S: "shard ✓", Bytes: []byte{0, 1, 2}, Ints: []int64{-1, 0, math.MaxInt64}, Words: []uint64{1 << 63, 5},
		Arr: [2][]byte{{9}, nil}, Ptr: &inner{A: -3, C: &inner{B: []uint64{7}}},
		Inner: []inner{{A: 1}, {B: []uint64{2, 3}}}, Named: []named{-1, 300}, Fixed: []uint64{^uint64(0), 1}}
}

// Every kind the codec writes comes back as it was.
func TestRoundTrip(t *testing.T) {
	want := sample()
	b, err := Marshal(nil, want)
	if err != nil {
		t.Fatal(err)
	}
	if bp, err := Marshal(nil, &want); err != nil || !bytes.Equal(bp, b) {
		t.Errorf("Marshal of a pointer: % x, %v; want what the value writes", bp, err)
	}
	var got every
	if err := Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// The layout is the documented one: a hand-encoded value reads the same.
func TestLayout(t *testing.T) {
	type small struct {
		B bool
		I int64
		U uint16
		S []int32
		P *uint8
		W []uint64 `wire:"fixed64"`
	}
	b, err := Marshal(nil, small{B: true, I: -2, U: 300, S: []int32{1, -1}, P: nil, W: []uint64{1}})
	if err != nil {
		t.Fatal(err)
	}
	// true; zig-zag(-2) = 3; uvarint(300) = ac 02; length 2, zig-zag 1 = 2, zig-zag -1 = 1; nil pointer 0;
	// one fixed64 word
	if want := []byte{1, 3, 0xac, 0x02, 2, 2, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1}; !bytes.Equal(b, want) {
		t.Errorf("encoded % x, want % x", b, want)
	}
}

func TestRefusesWhatItCannotWriteWhole(t *testing.T) {
	type hidden struct {
		A int
		b int //lint:ignore U1000 the unexported field the codec must refuse
	}
	for name, v := range map[string]any{
		"unexported field": hidden{},
		"map":              struct{ M map[string]int }{},
		"interface":        struct{ X any }{},
		"func":             struct{ F func() }{},
		"fixed64 on ints": struct {
			F []int64 `wire:"fixed64"`
		}{},
	} {
		if _, err := Marshal(nil, v); err == nil {
			t.Errorf("%s: Marshal accepted it", name)
		}
	}
	var h hidden
	if err := Unmarshal([]byte{0, 0}, &h); err == nil || !strings.Contains(err.Error(), "unexported") {
		t.Errorf("Unmarshal into a type with an unexported field: %v", err)
	}
	if err := Unmarshal(nil, every{}); err == nil {
		t.Error("Unmarshal into a non-pointer accepted")
	}
}

// Every truncation, a byte too many, and corrupt bools, lengths and
// ranges fail with an error naming the field, and nothing panics.
func TestUnmarshalRefuses(t *testing.T) {
	b, err := Marshal(nil, sample())
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(b) {
		var e every
		if err := Unmarshal(b[:n], &e); err == nil {
			t.Fatalf("truncated to %d of %d bytes: accepted", n, len(b))
		}
	}
	var e every
	if err := Unmarshal(append(bytes.Clone(b), 0), &e); err == nil || !strings.Contains(err.Error(), "1 bytes left") {
		t.Errorf("a byte too many: %v", err)
	}
	c := bytes.Clone(b)
	c[0] = 2 // Bool
	if err := Unmarshal(c, &e); err == nil || !strings.Contains(err.Error(), "Bool: bool byte 2") {
		t.Errorf("bool byte 2: %v", err)
	}
	// I8 = 200 does not fit int8.
	type i8 struct{ I int8 }
	var x i8
	if err := Unmarshal([]byte{0x90, 0x03}, &x); err == nil || !strings.Contains(err.Error(), "I: 200 overflows int8") {
		t.Errorf("int8 of 200: %v", err)
	}
	// A length beyond the bytes left is refused before anything is allocated.
	type list struct{ L []inner }
	var l list
	if err := Unmarshal([]byte{0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2}, &l); err == nil || !strings.Contains(err.Error(), "L: length 4294967295 exceeds the 2 bytes left") {
		t.Errorf("huge length: %v", err)
	}
}

func FuzzUnmarshal(f *testing.F) {
	b, _ := Marshal(nil, sample())
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		var e every
		if Unmarshal(in, &e) != nil {
			return
		}
		out, err := Marshal(nil, e)
		if err != nil {
			t.Fatal(err)
		}
		var e2 every
		if err := Unmarshal(out, &e2); err != nil || !reflect.DeepEqual(e, e2) {
			t.Fatalf("re-encoded value differs: %v", err)
		}
	})
}

func TestFrame(t *testing.T) {
	f := Seal("TEST", 3, []byte("body"))
	body, err := Open(f, "TEST", 3, "test blob")
	if err != nil || string(body) != "body" {
		t.Fatalf("Open: %q, %v", body, err)
	}
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"short":    {f[:8], "too short"},
		"magic":    {Seal("OTHR", 3, nil), `starts with "OTHR", want "TEST"`},
		"version":  {Seal("TEST", 4, nil), "format version 4, want 3"},
		"checksum": {append(bytes.Clone(f[:6]), f[7:]...), "checksum mismatch"},
	} {
		if _, err := Open(c.b, "TEST", 3, "test blob"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}
