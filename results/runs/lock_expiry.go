package runs

import "math"

// UsefulShare is the share of an acquisition's records that workers finish
// before the acquisition lock expires: a member hands an acquisition of a
// records to w workers, which take them in waves of w, one attempt of p ms
// each, after the records waited b ms in the client; a record of wave j
// finishes at b + j·p, inside a lock of l ms while j ≤ floor((l − b) ÷ p).
// So w·floor((l − b) ÷ p) records finish in time and the rest expire: the
// broker makes them available again and they are processed a second time
// (the work redone). 1 when the whole acquisition fits.
func UsefulShare(a, p, l, b float64, w int) float64 {
	if a <= 0 || p <= 0 || l <= 0 {
		return 1
	}
	inTime := float64(max(1, w)) * math.Floor((l-b)/p+1e-9)
	if inTime >= a {
		return 1
	}
	return max(0, inTime) / a
}

// ClientWaitMs is UsefulShare's b from the measured buffered time
// (latency.buffered_ms p50, handed to a worker − buffered by the client):
// that time also holds the wait for the earlier waves of the record's own
// acquisition, which UsefulShare counts as j·p, so it is taken off: the
// median record of an acquisition of a records on w workers waits
// p·(ceil(a ÷ w) − 1) ÷ 2 for them. What is left is the wait before the
// acquisition's first wave (a prefetched acquisition waiting for the
// previous one), at least 0.
func ClientWaitMs(bufferedP50, a, p float64, w int) float64 {
	waves := math.Ceil(a / float64(max(1, w)))
	return max(0, bufferedP50-p*(waves-1)/2)
}

// applyLockExpiry sets the lock-expiry bound: the records finished inside
// their lock per second, min(workers, lock holders) × UsefulShare. It binds
// whenever an acquisition outlives its lock, since the redone work then
// caps the rate below what the workers would complete.
func (c *Ceiling) applyLockExpiry(in CeilingInput) {
	if in.LockDurationMs <= 0 || in.ProcessingMs <= 0 || in.RecordsPerAcquisition <= 0 {
		return
	}
	b := ClientWaitMs(in.BufferedMs, in.RecordsPerAcquisition, in.ProcessingMs, in.Workers)
	u := UsefulShare(in.RecordsPerAcquisition, in.ProcessingMs, in.LockDurationMs, b, in.Workers)
	if u >= 1 {
		return
	}
	base := c.Workers
	if c.LockHolders > 0 && c.LockHolders < base {
		base = c.LockHolders
	}
	c.UsefulShare, c.LockExpiry = u, base*u
	if c.LockExpiry < c.RecordsPerSec {
		c.RecordsPerSec, c.Bound = c.LockExpiry, "lock_expiry"
	}
}
