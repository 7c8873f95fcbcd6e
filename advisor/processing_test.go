package advisor

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseProcessing(t *testing.T) {
	tests := []struct {
		in   string
		mean time.Duration // the model's mean, P
	}{
		{"10ms", 10 * msec}, // a bare duration is the mean
		{" 1.5s ", 1500 * msec},
		{"constant:10ms", 10 * msec},
		{"constant:time=10ms", 10 * msec},
		{"uniform:min=5ms,max=15ms", 10 * msec},       // (5+15)/2
		{"uniform: max=15ms, min=5ms", 10 * msec},     // any order, spaces allowed
		{"exponential:mean=10ms", 10 * msec},          // the mean is the parameter
		{"Exponential:mean=7ms", 7 * msec},            // model names are case-insensitive
		{"lognormal:median=10ms,p99=10ms", 10 * msec}, // σ = ln(1)/2.326 = 0: mean = median
	}
	for _, tc := range tests {
		p, err := ParseProcessing(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := p.Average(); got != tc.mean {
			t.Errorf("%q: mean %v, want %v", tc.in, got, tc.mean)
		}
	}
}

// Lognormal mean = median·exp(σ²/2), σ = ln(p99/median)/2.326348:
//
//	median 10ms, p99 50ms:  σ = ln 5/2.326348 = 1.6094379/2.326348 = 0.6918303
//	                        σ²/2 = 0.2393146, exp = 1.2703781 → mean 12.703781 ms
//	median 20ms, p99 200ms: σ = ln 10/2.326348 = 2.3025851/2.326348 = 0.9897854
//	                        σ²/2 = 0.4898375, exp = 1.6320511 → mean 32.641021 ms
func TestLognormalMean(t *testing.T) {
	for _, tc := range []struct {
		in     string
		meanMs float64
	}{
		{"lognormal:median=10ms,p99=50ms", 12.703781},
		{"lognormal:p99=200ms,median=20ms", 32.641021},
	} {
		p, err := ParseProcessing(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(p.Average()) / 1e6; math.Abs(got-tc.meanMs) > 1e-5 {
			t.Errorf("%s: mean %.6f ms, want %.6f ms", tc.in, got, tc.meanMs)
		}
		// and the advice uses that mean as P
		a, err := Advise(input(1000, p, 4))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(a.ProcessingMs-tc.meanMs) > 1e-5 || !strings.Contains(a.Processing, "lognormal") {
			t.Errorf("%s: advice P = %v ms (%s), want %v", tc.in, a.ProcessingMs, a.Processing, tc.meanMs)
		}
	}
}

func TestParseProcessingErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"", `--processing: expected a mean duration like "10ms"`},
		{"fast", `got "fast"`},
		{"10", `got "10"`}, // a bare number has no unit
		{"gaussian:mean=10ms", `got "gaussian:mean=10ms"`},
		{"lognormal", `got "lognormal"`},
		{"0s", "--processing: the processing time must be > 0, got 0s"},
		{"-5ms", "--processing: the processing time must be > 0, got -5ms"},
		{"lognormal:median=10ms", "--processing: the lognormal model needs median and p99, missing"},
		{"lognormal:median=50ms,p99=10ms", "--processing: lognormal needs p99 ≥ median > 0, got median 50ms p99 10ms"},
		{"uniform:min=15ms,max=5ms", "--processing: uniform needs 0 ≤ min ≤ max"},
		{"exponential:mean=10", `--processing: mean: expected a Go duration like 10ms, got "10"`},
		{"exponential:median=10ms", `--processing: "median" is not a parameter of the exponential model (it takes mean)`},
		{"constant:10ms,20ms", "--processing: time given twice"},
	}
	for _, tc := range tests {
		_, err := ParseProcessing(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to contain %q", tc.in, err, tc.want)
		}
	}
}
