package runs

// DrainEstimate is the estimated time to drain a backlog of records while
// producing at producedPerSec and consuming at completedPerSec:
// backlog / (completed − produced) seconds (the ETD). It is nil when
// consumption is not faster than production, 0 when there is no backlog.
func DrainEstimate(backlog int64, producedPerSec, completedPerSec float64) *float64 {
	if backlog <= 0 {
		zero := 0.0
		return &zero
	}
	net := completedPerSec - producedPerSec
	if !(net > 0) {
		return nil
	}
	sec := float64(backlog) / net
	return &sec
}
