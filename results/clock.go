package results

import "time"

// Clock turns the process's monotonic clock into Unix nanoseconds, so every
// timestamp of a run comes from one clock that cannot jump (NTP steps do not
// move it) yet still reads as wall time in reports.
type Clock struct {
	epoch     time.Time // carries the monotonic reading
	epochUnix int64
}

// NewClock starts a clock at the current wall time.
func NewClock() *Clock {
	now := time.Now()
	return &Clock{epoch: now, epochUnix: now.UnixNano()}
}

// Now returns the current time in Unix nanoseconds.
func (c *Clock) Now() int64 { return c.epochUnix + int64(time.Since(c.epoch)) }

// Time converts a Clock reading back to a time.Time.
func (c *Clock) Time(ns int64) time.Time { return time.Unix(0, ns).UTC() }
