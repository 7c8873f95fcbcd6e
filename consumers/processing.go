package consumers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// ProcessingModel names a processing-time distribution. Its values are
// spelled as a scenario's processing.model.
type ProcessingModel string

const (
	ModelNone        ProcessingModel = "none"        // no processing time
	ModelConstant    ProcessingModel = "constant"    // Time
	ModelUniform     ProcessingModel = "uniform"     // Min..Max
	ModelExponential ProcessingModel = "exponential" // Mean
	ModelLognormal   ProcessingModel = "lognormal"   // Median, P99
)

// Processing is a processing-time model: how long a worker is busy with one
// attempt at one record.
type Processing struct {
	// Model selects the distribution and which of the durations below
	// parametrise it.
	Model  ProcessingModel
	Time   time.Duration
	Min    time.Duration
	Max    time.Duration
	Mean   time.Duration
	Median time.Duration
	P99    time.Duration
}

// z99 is the standard normal quantile at 0.99: a lognormal's p99 is
// median·exp(z99·σ).
const z99 = 2.3263478740408408

// Sampler draws processing times.
type Sampler struct {
	p     Processing
	sigma float64 // lognormal shape
}

// NewSampler checks the model and prepares it.
func NewSampler(p Processing) (Sampler, error) {
	s := Sampler{p: p}
	switch p.Model {
	case ModelNone:
	case ModelConstant:
		if p.Time < 0 {
			return s, fmt.Errorf("processing.time: must be ≥ 0, got %v", p.Time)
		}
	case ModelUniform:
		if p.Min < 0 || p.Max < p.Min {
			return s, fmt.Errorf("processing: uniform needs 0 ≤ min ≤ max, got min %v max %v", p.Min, p.Max)
		}
	case ModelExponential:
		if p.Mean <= 0 {
			return s, fmt.Errorf("processing.mean: must be > 0 for exponential, got %v", p.Mean)
		}
	case ModelLognormal:
		if p.Median <= 0 || p.P99 < p.Median {
			return s, fmt.Errorf("processing: lognormal needs 0 < median ≤ p99, got median %v p99 %v", p.Median, p.P99)
		}
		s.sigma = math.Log(float64(p.P99)/float64(p.Median)) / z99
	default:
		return s, fmt.Errorf("processing.model: expected %s, %s, %s, %s or %s, got %q",
			ModelNone, ModelConstant, ModelUniform, ModelExponential, ModelLognormal, p.Model)
	}
	return s, nil
}

// Sample draws one processing time.
func (s Sampler) Sample(r *rand.Rand) time.Duration {
	switch s.p.Model {
	case ModelConstant:
		return s.p.Time
	case ModelUniform:
		return s.p.Min + time.Duration(r.Float64()*float64(s.p.Max-s.p.Min))
	case ModelExponential:
		return time.Duration(r.ExpFloat64() * float64(s.p.Mean))
	case ModelLognormal:
		return time.Duration(float64(s.p.Median) * math.Exp(s.sigma*r.NormFloat64()))
	default:
		return 0
	}
}
