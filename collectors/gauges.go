package collectors

import (
	"math"
	"slices"
	"time"

	"github.com/sharebench/sharebench/results"
)

// reading is one source's value at one instant.
type reading struct {
	At time.Time
	V  float64
}

// fillGauge writes the sum over sources of each source's last reading per
// second into series column g. A source that missed one second (ticker
// jitter across a bucket edge) carries its previous reading into it; longer
// gaps and seconds outside a source's first..last reading stay unknown for
// that source. A second no source covers stays empty.
func fillGauge(series *results.Series, g results.Gauge, sources [][]reading) {
	n := series.Len()
	sum := make([]float64, n)
	known := make([]bool, n)
	vals := make([]float64, n)
	for _, src := range sources {
		if len(src) == 0 {
			continue
		}
		for i := range vals {
			vals[i] = math.NaN()
		}
		for _, r := range src { // time order: the last reading of a second wins
			if !math.IsNaN(r.V) {
				vals[series.Bucket(r.At.UnixNano())] = r.V
			}
		}
		first, last := series.Bucket(src[0].At.UnixNano()), series.Bucket(src[len(src)-1].At.UnixNano())
		for i := first + 1; i < last; i++ {
			if math.IsNaN(vals[i]) && !math.IsNaN(vals[i-1]) && !math.IsNaN(vals[i+1]) {
				vals[i] = vals[i-1]
			}
		}
		for i, v := range vals {
			if !math.IsNaN(v) {
				sum[i] += v
				known[i] = true
			}
		}
	}
	for i := range sum {
		if known[i] {
			series.SetGaugeAt(g, i, sum[i])
		}
	}
}

// FillBrokerGauges writes broker_cpu_percent (each broker's process CPU time
// between consecutive scrapes ÷ the time between them ÷ cores, summed over
// brokers) and broker_heap_used_bytes (summed) into series from the scrapes
// of every broker (BrokerScraper.Samples).
func FillBrokerGauges(series *results.Series, samples [][]BrokerSample, cores int) {
	var cpu, heap [][]reading
	for _, ss := range samples {
		var c, h []reading
		for i, s := range ss {
			h = append(h, reading{s.At, s.HeapUsedBytes})
			if i == 0 || cores <= 0 {
				continue
			}
			if dt := s.At.Sub(ss[i-1].At).Seconds(); dt > 0 {
				c = append(c, reading{s.At, 100 * (s.ProcessCPUSeconds - ss[i-1].ProcessCPUSeconds) / dt / float64(cores)})
			}
		}
		cpu, heap = append(cpu, c), append(heap, h)
	}
	fillGauge(series, results.BrokerCPUPercent, cpu)
	fillGauge(series, results.BrokerHeapUsedBytes, heap)
}

// FillLagGauge writes the group lag readings into series column lag, and
// marks the seconds whose reading failed (gaps) in lag_unread.
func FillLagGauge(series *results.Series, samples []LagSample, gaps []time.Time) {
	src := make([]reading, len(samples))
	read := map[int]bool{}
	for i, s := range samples {
		src[i] = reading{s.At, float64(s.Lag)}
		read[series.Bucket(s.At.UnixNano())] = true
	}
	fillGauge(series, results.Lag, [][]reading{src})
	// A second whose reading failed and none succeeded is a gap: no lag
	// carried into it from the second before, and lag_unread says so.
	for _, at := range gaps {
		if i := series.Bucket(at.UnixNano()); !read[i] {
			series.SetGaugeAt(results.Lag, i, math.NaN())
			series.SetGaugeAt(results.LagUnread, i, 1)
		}
	}
}

// FillProcGauges writes harness_cpu_percent (the harness's CPU time between
// consecutive readings ÷ the time between them ÷ cores), harness_rss_bytes
// and broker_rss_bytes into series.
func FillProcGauges(series *results.Series, samples []ProcSample, cores int) {
	var cpu, rss, brokers, brokerCPU []reading
	for i, s := range samples {
		if s.HarnessRSSBytes > 0 {
			rss = append(rss, reading{s.At, float64(s.HarnessRSSBytes)})
		}
		if s.BrokerRSSKnown {
			brokers = append(brokers, reading{s.At, float64(s.BrokerRSSBytes)})
		}
		if i == 0 || cores <= 0 {
			continue
		}
		if dt := s.At.Sub(samples[i-1].At).Seconds(); dt > 0 && s.HarnessCPUSeconds >= 0 && samples[i-1].HarnessCPUSeconds >= 0 {
			cpu = append(cpu, reading{s.At, 100 * (s.HarnessCPUSeconds - samples[i-1].HarnessCPUSeconds) / dt / float64(cores)})
		}
		if dt := s.At.Sub(samples[i-1].At).Seconds(); dt > 0 && len(s.BrokerCPUPIDs) > 0 && slices.Equal(s.BrokerCPUPIDs, samples[i-1].BrokerCPUPIDs) {
			brokerCPU = append(brokerCPU, reading{s.At, 100 * (s.BrokerCPUSeconds - samples[i-1].BrokerCPUSeconds) / dt / float64(cores)})
		}
	}
	if len(brokerCPU) > 0 { // the brokers' /proc CPU every second, in place of the scrapes'
		fillGauge(series, results.BrokerCPUPercent, [][]reading{brokerCPU})
	}
	fillGauge(series, results.HarnessCPUPercent, [][]reading{cpu})
	fillGauge(series, results.HarnessRSSBytes, [][]reading{rss})
	fillGauge(series, results.BrokerRSSBytes, [][]reading{brokers})
}
