package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/google/pprof/profile"
)

// line is one row of the split, in the order printed.
type line int

const (
	harness line = iota
	franz
	franzCompression
	gcBackground
	runtimeOther
	otherLibraries
	nLines
)

var lineNames = [nLines]string{
	harness:          "harness (github.com/sharebench/sharebench)",
	franz:            "franz-go",
	franzCompression: "franz-go: compression, decompression",
	gcBackground:     "Go collector's background work",
	runtimeOther:     "write barriers, assists, other",
	otherLibraries:   "other libraries",
}

// tally is samples and CPU nanoseconds.
type tally struct{ samples, cpuNs int64 }

func (t *tally) add(samples, cpuNs int64) { t.samples += samples; t.cpuNs += cpuNs }

// splitResult is the profile's kept samples by line, the allocating part
// of the two franz-go lines, and the harness line's network I/O.
type splitResult struct {
	lines    [nLines]tally
	alloc    [nLines]tally
	netIO    tally
	filtered tagFilter
}

const (
	harnessModule = "github.com/sharebench/sharebench"
	franzModule   = "github.com/twmb/franz-go"
)

// connWrapper is the members' connection wrapper (consumers/crash.go: it
// freezes a crashed member's connections), which every member's franz-go
// client dials and reads and writes through. Under the innermost-frame rule
// the system calls below it are the harness's; the table shows them apart.
var connWrapper = []string{harnessModule + "/consumers.(*freezableConn).", harnessModule + "/consumers.(*crashDialer).dial"}

// compressionLibs are the compression libraries franz-go calls.
var compressionLibs = []string{"github.com/klauspost/compress", "github.com/pierrec/lz4", "github.com/golang/snappy"}

// split classifies every kept sample of a CPU profile.
func split(p *profile.Profile, f tagFilter) (*splitResult, error) {
	si, ci := -1, -1
	for i, st := range p.SampleType {
		switch {
		case st.Type == "samples" && st.Unit == "count":
			si = i
		case st.Type == "cpu" && st.Unit == "nanoseconds":
			ci = i
		}
	}
	if si < 0 || ci < 0 {
		return nil, errors.New("no samples/count and cpu/nanoseconds sample types: not a Go CPU profile (sharebench run --cpu-profile)")
	}
	r := &splitResult{filtered: f}
	for _, s := range p.Sample {
		fs := frames(s)
		ln, alloc := classify(fs)
		if ln != gcBackground && !f.keeps(s) {
			continue
		}
		r.lines[ln].add(s.Value[si], s.Value[ci])
		if alloc {
			r.alloc[ln].add(s.Value[si], s.Value[ci])
		}
		if ln == harness && inConnWrapper(fs) {
			r.netIO.add(s.Value[si], s.Value[ci])
		}
	}
	return r, nil
}

// frames are a sample's function names, innermost first (inlined calls
// before the function they were inlined into).
func frames(s *profile.Sample) []string {
	var fs []string
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			if l.Function != nil {
				fs = append(fs, l.Function.Name)
			}
		}
	}
	return fs
}

// classify gives a sample's line, and whether it is a franz-go line's
// allocation.
func classify(fs []string) (line, bool) {
	for i, fn := range fs {
		pkg := packageOf(fn)
		if isStd(pkg) {
			continue
		}
		ln := owner(fs[i:])
		alloc := (ln == franz || ln == franzCompression) && allocating(fs[:i])
		return ln, alloc
	}
	for _, fn := range fs {
		// Prefixes: a stack unwound from the system stack may end at the
		// worker's closure (runtime.gcBgMarkWorker.func2).
		for _, bg := range []string{"runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge"} {
			if strings.HasPrefix(fn, bg) {
				return gcBackground, false
			}
		}
	}
	return runtimeOther, false
}

// owner is the line of fs[0], the innermost frame outside the runtime and the
// standard library; a third-party library counts for its caller.
func owner(fs []string) line {
	for i, fn := range fs {
		pkg := packageOf(fn)
		switch {
		case inModule(pkg, harnessModule) || pkg == "main":
			return harness
		case inModule(pkg, franzModule):
			if strings.Contains(strings.ToLower(fn[len(pkg):]), "compress") {
				return franzCompression
			}
			return franz
		case isCompression(pkg) && calledFromFranz(fs[i+1:]):
			return franzCompression
		}
	}
	return otherLibraries
}

// inConnWrapper reports whether a sample's innermost frame outside the
// runtime and the standard library is the members' connection wrapper.
func inConnWrapper(fs []string) bool {
	for _, fn := range fs {
		if isStd(packageOf(fn)) {
			continue
		}
		for _, w := range connWrapper {
			if strings.HasPrefix(fn, w) {
				return true
			}
		}
		return false
	}
	return false
}

func calledFromFranz(fs []string) bool {
	for _, fn := range fs {
		if inModule(packageOf(fn), franzModule) {
			return true
		}
	}
	return false
}

func isCompression(pkg string) bool {
	for _, m := range compressionLibs {
		if inModule(pkg, m) {
			return true
		}
	}
	return false
}

// allocating reports whether the runtime frames below a sample's owner are
// the allocator's.
func allocating(fs []string) bool {
	for _, fn := range fs {
		switch {
		case strings.HasPrefix(fn, "runtime.malloc"),
			fn == "runtime.newobject", fn == "runtime.newarray",
			fn == "runtime.makeslice", fn == "runtime.makeslicecopy", fn == "runtime.growslice",
			fn == "runtime.makemap", fn == "runtime.makemap_small",
			fn == "runtime.rawstring", fn == "runtime.rawbyteslice", fn == "runtime.rawruneslice":
			return true
		}
	}
	return false
}

// packageOf is the import path of a Go function's symbol name:
// "github.com/twmb/franz-go/pkg/kgo.(*Client).PollFetches" →
// "github.com/twmb/franz-go/pkg/kgo"; type parameters in brackets are not
// part of it.
func packageOf(fn string) string {
	s := fn
	if i := strings.IndexByte(s, '['); i >= 0 {
		s = s[:i]
	}
	slash := strings.LastIndexByte(s, '/') + 1
	if dot := strings.IndexByte(s[slash:], '.'); dot >= 0 {
		return s[:slash+dot]
	}
	return s
}

// isStd: the Go runtime and the standard library, whose import paths have
// no dot in their first element. Compiler-made symbols ("type:.eq.T") count
// with the runtime, so their caller gets the sample; package main is the
// harness's command.
func isStd(pkg string) bool {
	if pkg == "main" {
		return false
	}
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".") || strings.HasPrefix(pkg, "type:")
}

func inModule(pkg, module string) bool {
	return pkg == module || strings.HasPrefix(pkg, module+"/")
}

// write prints the table: line, samples, CPU seconds, ns per record.
func (r *splitResult) write(w io.Writer, records int64) error {
	var b strings.Builder
	row := func(name string, t tally) {
		fmt.Fprintf(&b, "%-44s %8d %8.3f %10.0f\n", name, t.samples, float64(t.cpuNs)/1e9, float64(t.cpuNs)/float64(records))
	}
	fmt.Fprintf(&b, "%-44s %8s %8s %10s\n", "line", "samples", "CPU s", "ns/record")
	var total tally
	for ln := harness; ln < nLines; ln++ {
		row(lineNames[ln], r.lines[ln])
		if ln == harness {
			row("  of which network I/O in its conn wrapper", r.netIO)
		}
		if ln == franz || ln == franzCompression {
			row("  of which allocating", r.alloc[ln])
		}
		total.add(r.lines[ln].samples, r.lines[ln].cpuNs)
	}
	row("total", total)
	if r.filtered.key != "" {
		fmt.Fprintf(&b, "samples labelled %s=%s, and the collector's background work whole (it carries no label); %d records\n",
			r.filtered.key, r.filtered.value, records)
	} else {
		fmt.Fprintf(&b, "every sample of the profile; %d records\n", records)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
