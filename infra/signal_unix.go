//go:build unix

package infra

import (
	"errors"
	"syscall"
)

const (
	terminateSignal = syscall.SIGTERM
	killSignal      = syscall.SIGKILL
	// dumpSignal makes a JVM print its threads to its stdout (SIGQUIT);
	// canDumpBySignal says the platform has it.
	dumpSignal      = syscall.SIGQUIT
	canDumpBySignal = true
)

// detachedAttr starts a child in a session of its own: no terminal signal
// reaches it, and it outlives its parent.
func detachedAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// signalPid sends sig to pid; a process already gone is no error.
func signalPid(pid int, sig syscall.Signal) error {
	if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
