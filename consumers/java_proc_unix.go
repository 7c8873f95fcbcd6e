//go:build unix && !linux

package consumers

import "syscall"

// javaProcAttr puts the runner JVM in its own process group. Without Linux's
// Pdeathsig, the end of its stdin (the harness is gone) is what stops it.
func javaProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killJavaGroup SIGKILLs the process group led by pid.
func killJavaGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
