//go:build !linux

package infra

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ProcessAlive reports whether pid may still run (see alive.go), from
// signal 0: there is no /proc to tell a zombie from a live process, and
// an orphan is reaped at once by init. err is non-nil when alive is true
// only for want of knowing.
func ProcessAlive(pid int) (alive bool, err error) {
	if pid <= 0 {
		return false, nil
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return true, fmt.Errorf("pid %d: %w", pid, err)
	}
	switch err := p.Signal(syscall.Signal(0)); {
	case err == nil, errors.Is(err, syscall.EPERM):
		return true, nil
	case errors.Is(err, os.ErrProcessDone), errors.Is(err, syscall.ESRCH):
		return false, nil
	default:
		return true, fmt.Errorf("pid %d: signal 0: %w", pid, err)
	}
}

// processCmdline is not available without /proc.
func processCmdline(pid int) ([]string, error) {
	return nil, fmt.Errorf("pid %d: no /proc to read its command line", pid)
}
