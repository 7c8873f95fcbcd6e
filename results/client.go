package results

// ClientClock is how the clock of a client running outside the harness
// process (the Java runner) was aligned with the run's Clock: OffsetNs is
// added to the client's readings, BoundNs bounds the alignment's error
// (half the smallest ping round trip).
type ClientClock struct {
	OffsetNs int64 `json:"offset_ns"`
	BoundNs  int64 `json:"bound_ns"`
}

// SetClientClock records the client clock alignment of the run.
func (r *Recorder) SetClientClock(c ClientClock) { r.clientClock.Store(&c) }

// ClientClock returns the client clock alignment; ok is false when the
// consumers ran in the harness process (one clock, nothing to align).
func (r *Recorder) ClientClock() (c ClientClock, ok bool) {
	p := r.clientClock.Load()
	if p == nil {
		return ClientClock{}, false
	}
	return *p, true
}
