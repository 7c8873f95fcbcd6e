//go:build unix && !linux

package infra

import "syscall"

// procAttr puts a child in its own process group, so a Ctrl-C at the
// terminal reaches only the harness. Without Linux's Pdeathsig, a harness
// killed hard (SIGKILL) leaves its brokers running; Stop and the signal
// handling of the CLI cover every other exit.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends sig to the process group led by pid.
func signalGroup(pid int, sig syscall.Signal) error { return syscall.Kill(-pid, sig) }
