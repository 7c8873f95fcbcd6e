package scenarios

import "fmt"

// rateMode is load_mode rate: an open-loop schedule of rate records/s for
// warmup + duration, the consumers running throughout, then the drain.
// The only mode a sharded run splits over agents (by producer and member
// index).
type rateMode struct{}

func (rateMode) Name() LoadMode { return LoadRate }

// problems: every producer sends at least one record in the window (of a
// rate_schedule: checkRateSchedule), the window holds whole seconds, the
// events fit it.
func (rateMode) problems(r RunSpec, p *problems) {
	if len(r.RateSchedule) == 0 && r.Rate > 0 && r.Rate <= maxRateLimit && r.Producers >= 1 && r.Duration >= minWindow && r.Duration <= maxPhase {
		if n := r.Rate * r.Duration.Seconds(); n < float64(r.Producers) {
			p.addf("rate", "%s records/s for duration %v is %s records in the measurement window, fewer than the %d producers; "+
				"every producer must send at least one record in it: raise rate or duration, or lower producers",
				num(r.Rate), r.Duration, num(n), r.Producers)
		}
	}
	r.checkWindow(p)
	r.checkUnusedBacklog(p)
	r.checkEvents(p)
}

func (rateMode) Plan(r RunSpec) Plan {
	d := r.Warmup + r.Duration
	return Plan{Load: d, Text: fmt.Sprintf("%s warm-up + %s window = %s, drain up to %s", r.Warmup, r.Duration, d, r.DrainTimeout)}
}

func (rateMode) Sizing(r RunSpec) (Sizing, error) {
	return Sizing{Rate: r.Rate, Span: r.scheduleSpan()}, nil
}
