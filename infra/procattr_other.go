//go:build !unix

package infra

import (
	"os"
	"syscall"
)

// procAttr has nothing to add where there are no process groups.
func procAttr() *syscall.SysProcAttr { return nil }

// signalGroup kills pid: without POSIX signals there is no graceful stop.
func signalGroup(pid int, _ syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
