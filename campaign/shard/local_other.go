//go:build !unix

package shard

import (
	"os"
	"syscall"
)

func procAttr() *syscall.SysProcAttr { return nil }

// signalGroup ends the process (no process groups here).
func signalGroup(pid int, _ bool) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
