//go:build unix

package campaign

import "syscall"

// FileLimit is the process's open-file limit (the soft RLIMIT_NOFILE, which
// the Go runtime raised to the hard one at start); 0 when it cannot be read,
// which CheckFiles takes as "no check".
func FileLimit() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	return l.Cur
}
