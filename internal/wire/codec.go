package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync"
)

// The codec writes a value of a plain data type as the walk of its type:
//
//   - bool: one byte, 0 or 1;
//   - signed integers: zig-zag varints; unsigned integers: varints;
//   - float64 and float32: their IEEE 754 bits, 8 bytes big-endian;
//   - string and []byte: the length as a varint, then the bytes;
//   - a slice: its length as a varint, then its elements;
//   - an array: its elements (the length is the type's);
//   - a pointer: one byte (0 nil, 1 set), then what it points to;
//   - a struct: its fields in declaration order; a []uint64 field tagged
//     `wire:"fixed64"` writes each word as 8 bytes big-endian (bitset words,
//     most of whose high bits are set, would take 10 as varints).
//
// A type with an unexported field, a map, an interface, a channel or a
// function is refused: the codec writes every field or none, so nothing is
// dropped without a word. Unmarshal reads the same walk; it checks every
// length against the bytes left before it allocates (each element of a
// slice takes at least one byte), every integer against its type's range
// and every bool's byte, and it refuses bytes left over. A decoded nil and
// a decoded empty slice are both nil.

// Marshal appends v's encoding to dst; a pointer v is written as what it
// points to, so Marshal(dst, &x) and Marshal(dst, x) write the same bytes,
// which Unmarshal(b, &x) reads.
func Marshal(dst []byte, v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return dst, fmt.Errorf("wire: marshal a nil %T", v)
		}
		rv = rv.Elem()
	}
	c, err := codecOf(rv.Type())
	if err != nil {
		return dst, err
	}
	return c.enc(dst, rv), nil
}

// Unmarshal reads what Marshal wrote into *ptr (a non-nil pointer), using all of b.
func Unmarshal(b []byte, ptr any) error {
	rv := reflect.ValueOf(ptr)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("wire: unmarshal into %T, want a non-nil pointer", ptr)
	}
	c, err := codecOf(rv.Type().Elem())
	if err != nil {
		return err
	}
	d := decoder{b: b}
	if err := c.dec(&d, rv.Elem()); err != nil {
		return err
	}
	if len(d.b) != 0 {
		return fmt.Errorf("wire: %d bytes left after the last field", len(d.b))
	}
	return nil
}

// A codec is a type's encoder and decoder, built once per type from its
// walk (codecOf) so the per-value work is no type switch.
type codec struct {
	enc func(b []byte, v reflect.Value) []byte
	dec func(d *decoder, v reflect.Value) error
}

var codecs sync.Map // reflect.Type → *codec

// codecOf returns t's codec, building it on first use; it refuses a type
// the codec cannot write whole.
func codecOf(t reflect.Type) (*codec, error) {
	if c, ok := codecs.Load(t); ok {
		return c.(*codec), nil
	}
	c, err := build(t, map[reflect.Type]*codec{})
	if err != nil {
		return nil, err
	}
	codecs.Store(t, c)
	return c, nil
}

var (
	typeBytes   = reflect.TypeFor[[]byte]()
	typeInt64s  = reflect.TypeFor[[]int64]()
	typeUint64s = reflect.TypeFor[[]uint64]()
)

// build makes t's codec; building holds the codecs under construction, so
// a recursive type refers to its own (filled in before any use).
func build(t reflect.Type, building map[reflect.Type]*codec) (*codec, error) {
	if c, ok := building[t]; ok {
		return c, nil
	}
	c := &codec{}
	building[t] = c
	switch t.Kind() {
	case reflect.Bool:
		c.enc = func(b []byte, v reflect.Value) []byte {
			if v.Bool() {
				return append(b, 1)
			}
			return append(b, 0)
		}
		c.dec = func(d *decoder, v reflect.Value) error {
			x, err := d.bool()
			v.SetBool(x)
			return err
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c.enc = func(b []byte, v reflect.Value) []byte { return binary.AppendVarint(b, v.Int()) }
		c.dec = func(d *decoder, v reflect.Value) error {
			x, err := d.varint()
			if err != nil {
				return err
			}
			if v.OverflowInt(x) {
				return fmt.Errorf("%d overflows %s", x, v.Type())
			}
			v.SetInt(x)
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		c.enc = func(b []byte, v reflect.Value) []byte { return binary.AppendUvarint(b, v.Uint()) }
		c.dec = func(d *decoder, v reflect.Value) error {
			x, err := d.uvarint()
			if err != nil {
				return err
			}
			if v.OverflowUint(x) {
				return fmt.Errorf("%d overflows %s", x, v.Type())
			}
			v.SetUint(x)
			return nil
		}
	case reflect.Float32, reflect.Float64:
		c.enc = func(b []byte, v reflect.Value) []byte {
			return binary.BigEndian.AppendUint64(b, math.Float64bits(v.Float()))
		}
		c.dec = func(d *decoder, v reflect.Value) error {
			if len(d.b) < 8 {
				return errTruncated
			}
			x := math.Float64frombits(binary.BigEndian.Uint64(d.b))
			if v.Kind() == reflect.Float32 && v.OverflowFloat(x) {
				return fmt.Errorf("%g overflows float32", x)
			}
			v.SetFloat(x)
			d.b = d.b[8:]
			return nil
		}
	case reflect.String:
		c.enc = func(b []byte, v reflect.Value) []byte {
			return append(binary.AppendUvarint(b, uint64(v.Len())), v.String()...)
		}
		c.dec = func(d *decoder, v reflect.Value) error {
			n, err := d.length(1)
			if err != nil {
				return err
			}
			v.SetString(string(d.b[:n]))
			d.b = d.b[n:]
			return nil
		}
	case reflect.Slice:
		return c, buildSlice(c, t, building)
	case reflect.Array:
		elem, err := build(t.Elem(), building)
		if err != nil {
			return nil, err
		}
		c.enc = func(b []byte, v reflect.Value) []byte {
			for i := range v.Len() {
				b = elem.enc(b, v.Index(i))
			}
			return b
		}
		c.dec = func(d *decoder, v reflect.Value) error { return d.each(elem, v) }
	case reflect.Pointer:
		elem, err := build(t.Elem(), building)
		if err != nil {
			return nil, err
		}
		c.enc = func(b []byte, v reflect.Value) []byte {
			if v.IsNil() {
				return append(b, 0)
			}
			return elem.enc(append(b, 1), v.Elem())
		}
		c.dec = func(d *decoder, v reflect.Value) error {
			set, err := d.bool()
			if err != nil {
				return fmt.Errorf("pointer: %w", err)
			}
			if !set {
				v.SetZero()
				return nil
			}
			v.Set(reflect.New(v.Type().Elem()))
			return elem.dec(d, v.Elem())
		}
	case reflect.Struct:
		return c, buildStruct(c, t, building)
	default:
		return nil, fmt.Errorf("wire: %s (%s) has no encoding", t, t.Kind())
	}
	return c, nil
}

func buildSlice(c *codec, t reflect.Type, building map[reflect.Type]*codec) error {
	switch t {
	case typeBytes:
		c.enc = func(b []byte, v reflect.Value) []byte {
			return append(binary.AppendUvarint(b, uint64(v.Len())), v.Bytes()...)
		}
		c.dec = func(d *decoder, v reflect.Value) error {
			n, err := d.length(1)
			if err != nil || n == 0 {
				return err
			}
			v.SetBytes(append([]byte(nil), d.b[:n]...))
			d.b = d.b[n:]
			return nil
		}
		return nil
	case typeInt64s: // the bulk of a shard export: series counters
		c.enc = func(b []byte, v reflect.Value) []byte {
			s := v.Interface().([]int64)
			b = binary.AppendUvarint(b, uint64(len(s)))
			for _, x := range s {
				b = binary.AppendVarint(b, x)
			}
			return b
		}
		c.dec = func(d *decoder, v reflect.Value) error {
			n, err := d.length(1)
			if err != nil || n == 0 {
				return err
			}
			s := make([]int64, n)
			for i := range s {
				if s[i], err = d.varint(); err != nil {
					return fmt.Errorf("[%d]: %w", i, err)
				}
			}
			v.Set(reflect.ValueOf(s))
			return nil
		}
		return nil
	}
	elem, err := build(t.Elem(), building)
	if err != nil {
		return err
	}
	c.enc = func(b []byte, v reflect.Value) []byte {
		b = binary.AppendUvarint(b, uint64(v.Len()))
		for i := range v.Len() {
			b = elem.enc(b, v.Index(i))
		}
		return b
	}
	c.dec = func(d *decoder, v reflect.Value) error {
		n, err := d.length(1)
		if err != nil || n == 0 {
			return err
		}
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		return d.each(elem, v)
	}
	return nil
}

func buildStruct(c *codec, t reflect.Type, building map[reflect.Type]*codec) error {
	type field struct {
		name string
		c    *codec
	}
	fields := make([]field, t.NumField())
	for i := range fields {
		f := t.Field(i)
		if !f.IsExported() {
			return fmt.Errorf("wire: %s.%s is unexported; the codec writes every field or none", t, f.Name)
		}
		fc, err := build(f.Type, building)
		if tag, ok := f.Tag.Lookup("wire"); ok {
			if tag != "fixed64" || f.Type != typeUint64s {
				return fmt.Errorf("wire: %s.%s: tag wire:%q, want wire:\"fixed64\" on a []uint64", t, f.Name, tag)
			}
			fc, err = fixed64Codec, nil
		}
		if err != nil {
			return err
		}
		fields[i] = field{f.Name, fc}
	}
	c.enc = func(b []byte, v reflect.Value) []byte {
		for i, f := range fields {
			b = f.c.enc(b, v.Field(i))
		}
		return b
	}
	c.dec = func(d *decoder, v reflect.Value) error {
		for i, f := range fields {
			if err := f.c.dec(d, v.Field(i)); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
		return nil
	}
	return nil
}

// fixed64Codec writes a []uint64 as its length, then each word as 8 bytes
// big-endian.
var fixed64Codec = &codec{
	enc: func(b []byte, v reflect.Value) []byte {
		s := v.Interface().([]uint64)
		b = binary.AppendUvarint(b, uint64(len(s)))
		for _, w := range s {
			b = binary.BigEndian.AppendUint64(b, w)
		}
		return b
	},
	dec: func(d *decoder, v reflect.Value) error {
		n, err := d.length(8)
		if err != nil || n == 0 {
			return err
		}
		s := make([]uint64, n)
		for i := range s {
			s[i] = binary.BigEndian.Uint64(d.b[8*i:])
		}
		d.b = d.b[8*n:]
		v.Set(reflect.ValueOf(s))
		return nil
	},
}

type decoder struct{ b []byte }

var errTruncated = errors.New("truncated")

func (d *decoder) bool() (bool, error) {
	if len(d.b) == 0 {
		return false, errTruncated
	}
	x := d.b[0]
	if x > 1 {
		return false, fmt.Errorf("bool byte %d, want 0 or 1", x)
	}
	d.b = d.b[1:]
	return x == 1, nil
}

func (d *decoder) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		if n == 0 {
			return 0, errTruncated
		}
		return 0, errors.New("varint overflows 64 bits")
	}
	d.b = d.b[n:]
	return v, nil
}

func (d *decoder) varint() (int64, error) {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		if n == 0 {
			return 0, errTruncated
		}
		return 0, errors.New("varint overflows 64 bits")
	}
	d.b = d.b[n:]
	return v, nil
}

// length reads a length and checks it against the bytes left: each of its
// items takes at least minBytes.
func (d *decoder) length(minBytes int) (int, error) {
	n, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	if n > uint64(len(d.b)/minBytes) {
		return 0, fmt.Errorf("length %d exceeds the %d bytes left", n, len(d.b))
	}
	return int(n), nil
}

// each decodes v's items (a slice made to its length, or an array).
func (d *decoder) each(elem *codec, v reflect.Value) error {
	for i := range v.Len() {
		if err := elem.dec(d, v.Index(i)); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return nil
}
