//go:build !unix

package campaign

// FileLimit is 0 (no check) where RLIMIT_NOFILE does not exist.
func FileLimit() uint64 { return 0 }
