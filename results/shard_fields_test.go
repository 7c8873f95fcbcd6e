package results

import (
	"reflect"
	"testing"
	"unsafe"
)

// fillEvery sets every field reachable from v, exported or not, to a
// non-zero value (each number the next of *n; slices of two, pointers
// allocated), so a field added to a type is filled without naming it.
func fillEvery(v reflect.Value, n *int) {
	if !v.CanSet() {
		v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	*n++
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n % 100))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n % 100))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.String:
		v.SetString("s")
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillEvery(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fallthrough
	case reflect.Array:
		for i := range v.Len() {
			fillEvery(v.Index(i), n)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fillEvery(v.Field(i), n)
		}
	default:
		panic("fillEvery: no filler for " + v.Type().String())
	}
}

// A shard export with every field set survives encodeExport
// and decodeExport whole (the wire codec walks the type, so a field added
// travels by construction; this guards the walk and Check). Where Check relates a field to another
// (lengths, ranges, order), the filled value is put in range.
func TestShardExportCarriesEveryField(t *testing.T) {
	e := &ShardExport{}
	n := 0
	fillEvery(reflect.ValueOf(e).Elem(), &n)
	e.Counters = make([]int64, 2*int(numCounters))
	for i := range e.Counters {
		e.Counters[i] = int64(i + 1)
	}
	for i := range e.Gauges {
		e.Gauges[i].Bucket, e.Gauges[i].Gauge = 1, Gauge(i+1)
	}
	l := &e.Ledger
	l.Capacity = []uint64{128, 128}
	for i := range l.Bits { // 4 × 2 words per producer
		l.Bits[i] = []WordRun{{At: 1, Words: []uint64{3, 5}}, {At: 6, Words: []uint64{7}}}
	}
	for i := range l.Repeats {
		l.Repeats[i] = RepeatExport{Producer: 1, Seq: uint64(10 + i), Extra: 2}
	}
	for k := range e.Intervals {
		for i := range e.Intervals[k] {
			e.Intervals[k][i].Buckets = []BucketCount{{Value: 5, Count: 2}, {Value: 9, Count: 1}}
		}
	}
	b, err := encodeExport(e)
	if err != nil {
		t.Fatal(err)
	}
	d, err := decodeExport(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e, d) {
		t.Errorf("decoded export differs from the encoded one:\n got %+v\nwant %+v", d, e)
	}
}
