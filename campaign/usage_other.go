//go:build !unix

package campaign

// selfUsage is not measured here.
func selfUsage() (cpuSec float64, maxRSS int64) { return 0, 0 }
