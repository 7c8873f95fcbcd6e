//go:build !linux

package infra

import (
	"os"
	"syscall"
)

// processAlive reports whether pid is a live process.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}
