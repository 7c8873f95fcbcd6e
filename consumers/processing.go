package consumers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Processing is a processing-time model: how long a worker is busy with one
// attempt at one record.
type Processing struct {
	// Model is none, constant (Time), uniform (Min..Max),
	// exponential (Mean) or lognormal (Median, P99).
	Model  string
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
	case "none", "":
	case "constant":
		if p.Time < 0 {
			return s, fmt.Errorf("processing.time: must be ≥ 0, got %v", p.Time)
		}
	case "uniform":
		if p.Min < 0 || p.Max < p.Min {
			return s, fmt.Errorf("processing: uniform needs 0 ≤ min ≤ max, got min %v max %v", p.Min, p.Max)
		}
	case "exponential":
		if p.Mean <= 0 {
			return s, fmt.Errorf("processing.mean: must be > 0 for exponential, got %v", p.Mean)
		}
	case "lognormal":
		if p.Median <= 0 || p.P99 < p.Median {
			return s, fmt.Errorf("processing: lognormal needs 0 < median ≤ p99, got median %v p99 %v", p.Median, p.P99)
		}
		s.sigma = math.Log(float64(p.P99)/float64(p.Median)) / z99
	default:
		return s, fmt.Errorf("processing.model: expected none, constant, uniform, exponential or lognormal, got %q", p.Model)
	}
	return s, nil
}

// Sample draws one processing time.
func (s Sampler) Sample(r *rand.Rand) time.Duration {
	switch s.p.Model {
	case "constant":
		return s.p.Time
	case "uniform":
		return s.p.Min + time.Duration(r.Float64()*float64(s.p.Max-s.p.Min))
	case "exponential":
		return time.Duration(r.ExpFloat64() * float64(s.p.Mean))
	case "lognormal":
		return time.Duration(float64(s.p.Median) * math.Exp(s.sigma*r.NormFloat64()))
	default:
		return 0
	}
}
