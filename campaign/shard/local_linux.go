package shard

import "syscall"

// procAttr puts an agent in its own process group, so Stop reaches every
// process it started, and has the kernel SIGKILL it when the harness dies
// without stopping it (SIGKILL, a crash): an agent never outlives its
// coordinator. Its Java or librdkafka runners are tied to it the same way.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// signalGroup sends SIGTERM (or SIGKILL) to the process group led by pid.
func signalGroup(pid int, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-pid, sig)
}
