//go:build !unix

package infra

import (
	"errors"
	"os"
	"syscall"
)

const (
	terminateSignal = syscall.SIGTERM
	killSignal      = syscall.SIGKILL
	// Without POSIX signals signalPid kills: no thread dump by signal.
	dumpSignal      = syscall.SIGKILL
	canDumpBySignal = false
)

// detachedAttr has nothing to add without sessions.
func detachedAttr() *syscall.SysProcAttr { return nil }

// signalPid kills pid: without POSIX signals there is no graceful stop. A
// process already gone is no error.
func signalPid(pid int, _ syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}
