//go:build !unix

package consumers

// processCPU is not read here: the benchmarks report wall time only.
func processCPU() int64 { return 0 }
