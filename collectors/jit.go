package collectors

import "time"

// JITCompiled is the brokers' JIT compilation time over their scrapes
// (Samples, one slice per broker in time order): per broker, the
// compile-time counter's increase from its first scrape to its last,
// summed over brokers. ok is false when a broker has no scrape or a scrape
// without the series (a sum over some brokers would read low).
func JITCompiled(samples [][]BrokerSample) (sec float64, ok bool) {
	if len(samples) == 0 {
		return 0, false
	}
	for _, ss := range samples {
		if len(ss) == 0 || !ss[0].HasJIT() || !ss[len(ss)-1].HasJIT() {
			return 0, false
		}
		sec += ss[len(ss)-1].JITCompileSeconds - ss[0].JITCompileSeconds
	}
	return sec, true
}

// JITRate is the brokers' JIT compilation rate (compile-seconds per second,
// summed over brokers) over the last window of their scrapes: per broker,
// the counter's increase from its last scrape at least window before its
// newest to its newest, ÷ the time between the two. ok is false until every
// broker has such a pair with the series.
func JITRate(samples [][]BrokerSample, window time.Duration) (rate float64, ok bool) {
	if len(samples) == 0 {
		return 0, false
	}
	for _, ss := range samples {
		if len(ss) < 2 {
			return 0, false
		}
		last := ss[len(ss)-1]
		from := -1
		for i := len(ss) - 2; i >= 0; i-- {
			if last.At.Sub(ss[i].At) >= window {
				from = i
				break
			}
		}
		if from < 0 || !last.HasJIT() || !ss[from].HasJIT() {
			return 0, false
		}
		rate += (last.JITCompileSeconds - ss[from].JITCompileSeconds) / last.At.Sub(ss[from].At).Seconds()
	}
	return rate, true
}
