package retry

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Policy says how often and how long Do tries.
type Policy struct {
	// Wait is the pause after a failed attempt (0: try again at once).
	Wait time.Duration
	// MaxWait, when above Wait, makes the pauses double from Wait up to it.
	MaxWait time.Duration
	// Attempts bounds the number of attempts (0: no bound).
	Attempts int
	// Timeout bounds the whole (0: until the context ends).
	Timeout time.Duration
	// AttemptTimeout bounds each attempt's context (0: no bound).
	AttemptTimeout time.Duration
}

// ErrTimeout is the cause of a GiveUpError when Policy.Timeout passed.
var ErrTimeout = errors.New("timed out")

// GiveUpError is what Do returns when the context ended or the policy's
// Timeout passed before an attempt succeeded.
type GiveUpError struct {
	Cause    error // context.Cause of the caller's context, or ErrTimeout
	Last     error // the last attempt's error
	Attempts int
}

func (e *GiveUpError) Error() string {
	return fmt.Sprintf("%v after %d attempt(s) (last: %v)", e.Cause, e.Attempts, e.Last)
}

// Unwrap yields the cause, so that errors.Is(err, context.Canceled) or
// errors.Is(err, ErrTimeout) tell why Do gave up.
func (e *GiveUpError) Unwrap() error { return e.Cause }

type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// Permanent marks err as not worth retrying: Do returns err at once.
// Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanent{err}
}

// Do calls try until it returns nil. It returns nil; the error itself
// (without the Permanent mark) when try returned a Permanent error or the
// last of p.Attempts failed; or a *GiveUpError when ctx ended or p.Timeout
// passed first.
func Do(ctx context.Context, p Policy, try func(ctx context.Context) error) error {
	parent := ctx
	if p.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, p.Timeout, ErrTimeout)
		defer cancel()
	}
	wait := p.Wait
	var err error
	for n := 1; ; n++ {
		err = attempt(ctx, p.AttemptTimeout, try)
		if err == nil {
			return nil
		}
		if perm, ok := errors.AsType[permanent](err); ok {
			return perm.err
		}
		if p.Attempts > 0 && n >= p.Attempts {
			return err
		}
		if ctx.Err() == nil && wait > 0 {
			Sleep(ctx, wait)
		}
		if ctx.Err() != nil {
			cause := context.Cause(parent)
			if cause == nil {
				cause = context.Cause(ctx)
			}
			return &GiveUpError{Cause: cause, Last: err, Attempts: n}
		}
		if p.MaxWait > wait {
			wait = min(2*wait, p.MaxWait)
		}
	}
}

func attempt(ctx context.Context, timeout time.Duration, try func(context.Context) error) error {
	if timeout <= 0 {
		return try(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return try(ctx)
}

// Sleep sleeps d unless ctx ends first; it reports whether it slept
// fully. With d ≤ 0 it does not sleep and reports whether ctx is still
// live, so a caller that missed its moment (a start instant already past)
// goes on at once unless it was cancelled.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
