package consumers

import "syscall"

// javaProcAttr puts the runner JVM in its own process group (Ctrl-C reaches
// only the harness, which stops it in order; a kill reaches every thread and
// child) and has the kernel SIGKILL it if the harness dies. Pdeathsig fires
// when the starting thread exits, so the JVM is started from a locked thread
// (startJavaProc).
func javaProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killJavaGroup SIGKILLs the process group led by pid.
func killJavaGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
