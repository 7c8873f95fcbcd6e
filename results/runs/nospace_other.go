//go:build !unix

package runs

// FreeBytes cannot be read without statfs: false (no preflight check).
func FreeBytes(string) (uint64, bool) { return 0, false }
