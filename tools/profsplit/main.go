// Command profsplit splits a pprof CPU profile of the harness (sharebench
// run --cpu-profile FILE) into who spent the CPU, per record:
//
//   - each sample goes to its innermost frame that is neither the Go runtime
//     nor the standard library: the harness (module
//     github.com/sharebench/sharebench, or package main), franz-go
//     (github.com/twmb/franz-go), or franz-go's compression: a compression
//     library (klauspost/compress, pierrec/lz4, golang/snappy) called from
//     franz-go, or a franz-go function named *ompress*;
//   - another third-party library counts for its caller: the frames further
//     out are read until the harness or franz-go is found (hdrhistogram-go
//     called by the recorder is the harness's work); without one the sample
//     is "other libraries";
//   - a franz-go sample whose frames below its franz-go frame include the
//     runtime's allocator (mallocgc, newobject, makeslice, growslice, ...) is
//     also counted as that line's allocation;
//   - the members' connection wrapper (consumers/crash.go) is harness code
//     that every member's client reads and writes through, so the network
//     system calls below it are the harness's by the rule above: the table
//     shows them apart, under the harness line;
//   - a sample with no frame outside the runtime and the standard library is
//     the Go garbage collector's background work if one of its frames is
//     gcBgMarkWorker, bgsweep or bgscavenge, and "write barriers, assists,
//     other" otherwise.
//
// CPU seconds are the profile's cpu sample values; ns per record divides them
// by -records. With -tag key=value only samples carrying that profiler label
// are split (sharebench=member: the consumer side), and the collector's
// background work, which carries no label, is kept whole.
//
// Usage: go run ./tools/profsplit -records 300000 [-tag sharebench=member] cpu.prof
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/google/pprof/profile"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "profsplit:", err)
		os.Exit(2)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("profsplit", flag.ContinueOnError)
	records := fs.Int64("records", 0, "records the profiled run drained (ns per record = CPU ÷ records)")
	tag := fs.String("tag", "", "only samples with this profiler label, `key=value` (sharebench=member: the consumer side); the collector's background work is kept whole")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: profsplit -records N [-tag key=value] FILE (one profile file)")
	}
	if *records <= 0 {
		return fmt.Errorf("-records %d: want the number of records the profiled run drained, above 0", *records)
	}
	filter, err := parseTag(*tag)
	if err != nil {
		return err
	}
	p, err := load(fs.Arg(0))
	if err != nil {
		return err
	}
	s, err := split(p, filter)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	return s.write(out, *records)
}

// tagFilter keeps samples carrying one profiler label; the zero value keeps all.
type tagFilter struct{ key, value string }

func parseTag(s string) (tagFilter, error) {
	if s == "" {
		return tagFilter{}, nil
	}
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return tagFilter{}, fmt.Errorf("-tag %q: want key=value, e.g. sharebench=member", s)
	}
	return tagFilter{k, v}, nil
}

func (f tagFilter) keeps(s *profile.Sample) bool {
	return f.key == "" || s.HasLabel(f.key, f.value)
}

func load(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: not a pprof profile: %w", path, err)
	}
	return p, nil
}
