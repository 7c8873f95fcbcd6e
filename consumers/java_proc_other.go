//go:build !unix

package consumers

import (
	"os"
	"syscall"
)

// javaProcAttr has nothing to add where there are no process groups.
func javaProcAttr() *syscall.SysProcAttr { return nil }

// killJavaGroup kills pid.
func killJavaGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
