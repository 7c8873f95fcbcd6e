package results

import (
	"bytes"
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Latency histograms record microseconds from 1 µs to one hour with 3
// significant digits: wide enough for a minutes-long drain, fine enough for
// sub-millisecond publish latency.
const (
	histLowestUS  = 1
	histHighestUS = int64(3600 * 1e6)
	histSigDigits = 3
)

// NewLatencyHistogram returns an empty microsecond histogram with the
// harness-wide geometry, so any two of them merge without loss.
func NewLatencyHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(histLowestUS, histHighestUS, histSigDigits)
}

// RecordNanos records a duration given in nanoseconds, clamped into the
// histogram's range (negative values, from clock granularity, count as 1 µs;
// values beyond an hour as one hour) so no observation is dropped.
func RecordNanos(h *hdrhistogram.Histogram, ns int64) {
	us := ns / 1000
	if us < histLowestUS {
		us = histLowestUS
	}
	if us > histHighestUS {
		us = histHighestUS
	}
	_ = h.RecordValue(us) // in range by construction
}

// Percentiles is the fixed set of quantiles every report shows, in
// milliseconds.
type Percentiles struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	P9999 float64 `json:"p9999"`
	Max   float64 `json:"max"`
}

// SummarizeMillis reads the report percentiles of a microsecond histogram.
func SummarizeMillis(h *hdrhistogram.Histogram) Percentiles {
	if h.TotalCount() == 0 {
		return Percentiles{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	q := h.ValueAtPercentilesSlice([]float64{50, 90, 99, 99.9, 99.99})
	return Percentiles{
		Count: h.TotalCount(),
		Mean:  h.Mean() / 1000,
		P50:   ms(q[0]), P90: ms(q[1]), P99: ms(q[2]), P999: ms(q[3]), P9999: ms(q[4]),
		Max: ms(h.Max()),
	}
}

// PercentileText renders the HdrHistogram percentile distribution (.hgrm)
// in milliseconds, the format HdrHistogram's plotters read.
func PercentileText(h *hdrhistogram.Histogram) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := h.PercentilesPrint(&buf, 5, 1000); err != nil {
		return nil, fmt.Errorf("render percentiles: %w", err)
	}
	return buf.Bytes(), nil
}
