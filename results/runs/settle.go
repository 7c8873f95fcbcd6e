package runs

// SettleStep is one settle: a wait, bounded, until the brokers' CPU rate is
// back near the idle baseline (docs/explanation/measurement.md#settle), after priming,
// before a run and after a produce-only phase.
type SettleStep struct {
	// After names what it followed: "priming", "previous_run" (the
	// campaign's previous run or the scrape calibration) or "produce_only".
	After string  `json:"after"`
	Sec   float64 `json:"duration_s"`
	// EndCores is the brokers' CPU rate (CPU-s per s, all brokers) over
	// the last sampled interval.
	EndCores float64 `json:"end_cores"`
	// BaselineCores is the idle baseline it waited for (the scrape
	// calibration's idle_cores; absent before the calibration, when the
	// settle waits for the rate to stop falling) and MarginCores the
	// allowance above it.
	BaselineCores *float64 `json:"baseline_cores,omitempty"`
	MarginCores   float64  `json:"margin_cores"`
	Samples       int      `json:"samples"`
	// Settled is false when the bound ended the wait first.
	Settled bool `json:"settled"`
}

// Settle is a run's settles before its measurement (run.json settle).
type Settle struct {
	// Seconds is their total length; EndCores the last one's end rate,
	// the brokers' CPU just before the run's consumers start.
	Seconds  float64      `json:"duration_s"`
	EndCores float64      `json:"end_cores"`
	Steps    []SettleStep `json:"steps"`
}

// NewSettle sums steps into a run's Settle; nil without steps.
func NewSettle(steps []SettleStep) *Settle {
	if len(steps) == 0 {
		return nil
	}
	s := &Settle{Steps: steps, EndCores: steps[len(steps)-1].EndCores}
	for _, st := range steps {
		s.Seconds += st.Sec
	}
	return s
}
