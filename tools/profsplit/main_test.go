package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// fakeProfile builds a CPU profile by hand: each sample is its frames
// (innermost first; a frame "a|b" is one location where a was inlined into
// b), its sample count, its CPU nanoseconds and an optional sharebench label.
type fakeSample struct {
	frames  []string
	samples int64
	cpuNs   int64
	label   string
}

func fakeProfile(samples []fakeSample) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000,
	}
	funcs := map[string]*profile.Function{}
	fn := func(name string) *profile.Function {
		if f, ok := funcs[name]; ok {
			return f
		}
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name}
		funcs[name] = f
		p.Function = append(p.Function, f)
		return f
	}
	for _, fs := range samples {
		s := &profile.Sample{Value: []int64{fs.samples, fs.cpuNs}}
		if fs.label != "" {
			s.Label = map[string][]string{"sharebench": {fs.label}}
		}
		for _, frame := range fs.frames {
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Address: uint64(0x1000 + len(p.Location))}
			for _, name := range strings.Split(frame, "|") {
				loc.Line = append(loc.Line, profile.Line{Function: fn(name), Line: 1})
			}
			p.Location = append(p.Location, loc)
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

const (
	handOver   = "github.com/sharebench/sharebench/consumers.(*member).handOver"
	complete   = "github.com/sharebench/sharebench/results.(*Completions).Add"
	record     = "github.com/sharebench/sharebench/results.record[go.shape.int64]"
	hdrRecord  = "github.com/HdrHistogram/hdrhistogram-go.(*Histogram).RecordValue"
	batch      = "github.com/twmb/franz-go/pkg/kgo.(*cursorOffsetNext).processRecordBatch"
	shareFetch = "github.com/twmb/franz-go/pkg/kgo.(*source).handleShareFetch"
	readFrom   = "github.com/twmb/franz-go/pkg/kmsg.(*ShareFetchResponse).ReadFrom"
	produce    = "github.com/twmb/franz-go/pkg/kgo.(*recBuf).bufferRecord"
	decompress = "github.com/twmb/franz-go/pkg/kgo.(*decompressor).decompress"
	s2Decode   = "github.com/klauspost/compress/s2.Decode"
	s2Encode   = "github.com/klauspost/compress/s2.Encode"
	connWrite  = "github.com/sharebench/sharebench/consumers.(*freezableConn).Write"
	expfmt     = "github.com/prometheus/common/expfmt.(*TextParser).TextToMetricFamilies"
)

// The samples below, split by hand (1,000 records):
//
//	line                 all samples, CPU ms      member-labelled + GC
//	harness              s1 s2 s11-s14: 9, 90      s1 s2 s12 s14: 7, 70
//	  conn wrapper       s14: 1, 10                s14: 1, 10
//	franz-go             s3 s4 s10: 7, 71          s3 s4: 5, 51
//	  allocating         s3: 2, 20                 s3: 2, 20
//	compression          s5 s6: 3, 30              s5 s6: 3, 30
//	  allocating         s6: 1, 10                 s6: 1, 10
//	collector background s7: 5, 50                 s7: 5, 50 (no label, kept)
//	runtime other        s8: 1, 10                 s8: 1, 10
//	other libraries      s9: 1, 10                 none
//	total                26, 261                   21, 211
var handMade = []fakeSample{
	// s1: a library called by the harness counts for the harness.
	{[]string{hdrRecord, handOver}, 4, 40e6, "member"},
	// s2: the standard library below the harness.
	{[]string{"sync.(*Mutex).Lock", complete}, 1, 10e6, "member"},
	// s3: franz-go allocating (runtime malloc below its frame).
	{[]string{"runtime.nextFreeFast", "runtime.mallocgc", "runtime.newobject", batch, shareFetch}, 2, 20e6, "member"},
	// s4: franz-go's kmsg module is franz-go; CPU not samples × period.
	{[]string{readFrom, shareFetch}, 3, 31e6, "member"},
	// s5: a compression library called from franz-go.
	{[]string{s2Decode, decompress, batch}, 2, 20e6, "member"},
	// s6: franz-go's decompressor allocating.
	{[]string{"runtime.memmove", "runtime.growslice", decompress, batch}, 1, 10e6, "member"},
	// s7: the collector's background work, no label, its stack ending at
	// the worker's closure on the system stack.
	{[]string{"runtime.scanObject", "runtime.gcDrain", "runtime.gcBgMarkWorker.func2", "runtime.systemstack"}, 5, 50e6, ""},
	// s8: the runtime alone, a member's goroutine.
	{[]string{"runtime.gcWriteBarrier2"}, 1, 10e6, "member"},
	// s9: a library called from the standard library only.
	{[]string{expfmt, "net/http.(*conn).serve"}, 1, 10e6, ""},
	// s10: a producer's franz-go work.
	{[]string{produce}, 2, 20e6, "producer"},
	// s11: package main is the harness's command.
	{[]string{"main.main", "runtime.main"}, 1, 10e6, ""},
	// s12: one location with inlined frames: the histogram inlined into
	// the harness's generic function, malloc below (harness, not franz-go).
	{[]string{"runtime.mallocgc", hdrRecord + "|" + record}, 1, 10e6, "member"},
	// s13: a compression library the harness calls is the harness's.
	{[]string{s2Encode, handOver}, 1, 10e6, ""},
	// s14: franz-go's write through the members' connection wrapper.
	{[]string{"internal/runtime/syscall/linux.Syscall6", "syscall.Syscall", "internal/poll.(*FD).Write", "net.(*conn).Write",
		connWrite, "github.com/twmb/franz-go/pkg/kgo.(*brokerCxn).writeConn"}, 1, 10e6, "member"},
}

func TestSplitByHand(t *testing.T) {
	cases := []struct {
		name         string
		filter       tagFilter
		lines, alloc [nLines]tally
		netIO        tally
	}{
		{"every sample", tagFilter{},
			[nLines]tally{harness: {9, 90e6}, franz: {7, 71e6}, franzCompression: {3, 30e6}, gcBackground: {5, 50e6}, runtimeOther: {1, 10e6}, otherLibraries: {1, 10e6}},
			[nLines]tally{franz: {2, 20e6}, franzCompression: {1, 10e6}}, tally{1, 10e6}},
		{"members", tagFilter{"sharebench", "member"},
			[nLines]tally{harness: {7, 70e6}, franz: {5, 51e6}, franzCompression: {3, 30e6}, gcBackground: {5, 50e6}, runtimeOther: {1, 10e6}},
			[nLines]tally{franz: {2, 20e6}, franzCompression: {1, 10e6}}, tally{1, 10e6}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := split(fakeProfile(handMade), c.filter)
			if err != nil {
				t.Fatal(err)
			}
			for ln := harness; ln < nLines; ln++ {
				if r.lines[ln] != c.lines[ln] || r.alloc[ln] != c.alloc[ln] {
					t.Errorf("%s: %+v (allocating %+v), want %+v (%+v)", lineNames[ln], r.lines[ln], r.alloc[ln], c.lines[ln], c.alloc[ln])
				}
			}
			if r.netIO != c.netIO {
				t.Errorf("harness's network I/O %+v, want %+v", r.netIO, c.netIO)
			}
		})
	}
}

// The tool end to end: the profile written to a file as pprof writes it
// (gzipped protobuf), read back, and the table's rows.
func TestTableFromFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	var buf bytes.Buffer
	if err := fakeProfile(handMade).Write(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]string{"-records", "1000", "-tag", "sharebench=member", path}, &out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	// name → samples, CPU s, ns/record (CPU ns ÷ 1,000 records).
	want := map[string][3]string{
		lineNames[harness]:          {"7", "0.070", "70000"},
		lineNames[franz]:            {"5", "0.051", "51000"},
		lineNames[franzCompression]: {"3", "0.030", "30000"},
		lineNames[gcBackground]:     {"5", "0.050", "50000"},
		lineNames[runtimeOther]:     {"1", "0.010", "10000"},
		lineNames[otherLibraries]:   {"0", "0.000", "0"},
		"total":                     {"21", "0.211", "211000"},
	}
	var allocating [][3]string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		f := strings.Fields(l)
		if len(f) < 4 {
			continue
		}
		name, got := strings.Join(f[:len(f)-3], " "), [3]string{f[len(f)-3], f[len(f)-2], f[len(f)-1]}
		if name == "of which network I/O in its conn wrapper" {
			if got != [3]string{"1", "0.010", "10000"} {
				t.Errorf("%s: %v, want 1 / 0.010 / 10000", name, got)
			}
			continue
		}
		if name == "of which allocating" {
			allocating = append(allocating, got)
			continue
		}
		if w, ok := want[name]; ok {
			if got != w {
				t.Errorf("%s: %v, want %v", name, got, w)
			}
			delete(want, name)
		}
	}
	if len(want) > 0 {
		t.Errorf("rows missing: %v", want)
	}
	if len(allocating) != 2 || allocating[0] != [3]string{"2", "0.020", "20000"} || allocating[1] != [3]string{"1", "0.010", "10000"} {
		t.Errorf("allocating rows %v, want franz-go 2 / 0.020 / 20000 and compression 1 / 0.010 / 10000", allocating)
	}
	if !strings.Contains(out.String(), "labelled sharebench=member") {
		t.Errorf("the table does not say it was filtered: %s", out.String())
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	notProfile := filepath.Join(dir, "notes.txt")
	os.WriteFile(notProfile, []byte("not a profile\n"), 0o644)
	heap := filepath.Join(dir, "heap.prof")
	hp := fakeProfile(handMade[:1])
	hp.SampleType = []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"}}
	var buf bytes.Buffer
	hp.Write(&buf)
	os.WriteFile(heap, buf.Bytes(), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{notProfile}, "-records 0"},
		{[]string{"-records", "-5", notProfile}, "-records -5"},
		{[]string{"-records", "10"}, "usage"},
		{[]string{"-records", "10", "-tag", "sharebench", notProfile}, `-tag "sharebench": want key=value`},
		{[]string{"-records", "10", filepath.Join(dir, "missing.prof")}, "missing.prof: no such file"},
		{[]string{"-records", "10", notProfile}, "notes.txt: not a pprof profile"},
		{[]string{"-records", "10", heap}, "heap.prof: no samples/count and cpu/nanoseconds"},
	} {
		err := run(c.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}

func TestPackageOf(t *testing.T) {
	for fn, want := range map[string]string{
		"github.com/twmb/franz-go/pkg/kgo.(*Client).PollFetches":          "github.com/twmb/franz-go/pkg/kgo",
		"github.com/sharebench/sharebench/results.record[go.shape.int64]": "github.com/sharebench/sharebench/results",
		"github.com/a/b.F[github.com/c/d.T]":                              "github.com/a/b",
		"github.com/sharebench/sharebench/consumers.(*member).run.func1":  "github.com/sharebench/sharebench/consumers",
		"github.com/sharebench/sharebench/cmd/sharebench.newRunCmd.func1": "github.com/sharebench/sharebench/cmd/sharebench",
		"runtime.mallocgc":                       "runtime",
		"internal/runtime/atomic.(*Uint32).Load": "internal/runtime/atomic",
		"hash/crc32.ieeeCLMUL":                   "hash/crc32",
		"main.main":                              "main",
		"type:.eq.github.com/sharebench/sharebench/results.Stamp": "type:.eq.github.com/sharebench/sharebench/results",
	} {
		if got := packageOf(fn); got != want {
			t.Errorf("packageOf(%q) = %q, want %q", fn, got, want)
		}
	}
	for pkg, want := range map[string]bool{"runtime": true, "internal/runtime/atomic": true, "hash/crc32": true, "main": false,
		"github.com/twmb/franz-go/pkg/kgo": false, "type:.eq.github.com/sharebench/sharebench/results": true} {
		if isStd(pkg) != want {
			t.Errorf("isStd(%q) = %v, want %v", pkg, !want, want)
		}
	}
}

// The connection wrapper the tool names is still the members' (a rename
// would leave its row silently at 0).
func TestConnWrapperExists(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../../consumers/crash.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil {
			continue
		}
		if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
			if id, ok := star.X.(*ast.Ident); ok {
				found["consumers.(*"+id.Name+")."+fd.Name.Name] = true
			}
		}
	}
	for _, want := range []string{"consumers.(*freezableConn).Read", "consumers.(*freezableConn).Write", "consumers.(*crashDialer).dial"} {
		if !found[want] {
			t.Errorf("consumers/crash.go has no %s: update connWrapper", want)
		}
	}
	for _, w := range connWrapper {
		if !strings.HasPrefix(w, harnessModule+"/consumers.(*freezableConn).") && w != harnessModule+"/consumers.(*crashDialer).dial" {
			t.Errorf("connWrapper %q is not checked here", w)
		}
	}
}
