package testkit

import (
	"errors"
	"testing"
)

// fakeTB records how a test helper ended the test: Fatalf and Skipf stop
// the goroutine in a real test, so the helper runs in its own goroutine.
type fakeTB struct {
	testing.TB
	failed, skipped bool
	msg             string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = true
	f.msg = format
	panic(stop{})
}
func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped = true
	f.msg = format
	panic(stop{})
}
func (f *fakeTB) Skip(args ...any) { f.skipped = true; panic(stop{}) }

type stop struct{}

func runHelper(f func(testing.TB)) *fakeTB {
	tb := &fakeTB{}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stop); !ok {
					panic(r)
				}
			}
		}()
		f(tb)
	}()
	return tb
}

// NeedDocker fails, not skips, under CI=true or SHAREBENCH_REQUIRE_BROKERS=1
// when the container provider cannot run; skips otherwise; and lets the
// test go on when there is no error.
func TestNeedDockerFailsWhereRequired(t *testing.T) {
	if testing.Short() {
		t.Skip("NeedDocker always skips under -short")
	}
	noEngine := errors.New("no Docker engine answers")
	for _, c := range []struct {
		ci, require string
		err         error
		fail, skip  bool
	}{
		{"", "", noEngine, false, true},
		{"true", "", noEngine, true, false},
		{"1", "", noEngine, true, false},
		{"false", "", noEngine, false, true},
		{"", "1", noEngine, true, false},
		{"", "true", noEngine, true, false},
		{"true", "1", nil, false, false},
		{"", "", nil, false, false},
	} {
		t.Setenv(CIEnv, c.ci)
		t.Setenv(RequireEnv, c.require)
		got := runHelper(func(tb testing.TB) { NeedDocker(tb, c.err) })
		if got.failed != c.fail || got.skipped != c.skip {
			t.Errorf("CI=%q %s=%q err %v: failed %v skipped %v, want failed %v skipped %v",
				c.ci, RequireEnv, c.require, c.err, got.failed, got.skipped, c.fail, c.skip)
		}
	}
}
