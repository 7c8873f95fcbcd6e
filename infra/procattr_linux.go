package infra

import "syscall"

// procAttr puts a child in its own process group, so a Ctrl-C at the
// terminal reaches only the harness (which then stops the brokers in order),
// and has the kernel SIGKILL it if the harness dies without cleaning up.
// See proc for why the starting thread matters.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// signalGroup sends sig to the process group led by pid.
func signalGroup(pid int, sig syscall.Signal) error { return syscall.Kill(-pid, sig) }
