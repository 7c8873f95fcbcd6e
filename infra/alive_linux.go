package infra

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/prometheus/procfs"
)

// ProcessAlive reports whether pid may still run (see alive.go): the pid
// exists (signal 0) and /proc/<pid>/stat does not show it as a zombie. err
// is non-nil when alive is true only for want of knowing.
func ProcessAlive(pid int) (alive bool, err error) {
	if pid <= 0 {
		return false, nil
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false, nil
	} else if err != nil && !errors.Is(err, syscall.EPERM) { // EPERM: it exists, someone else's
		return true, fmt.Errorf("pid %d: signal 0: %w", pid, err)
	}
	p, err := procfs.NewProc(pid)
	var st procfs.ProcStat
	if err == nil {
		st, err = p.Stat()
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // gone between the two looks
	}
	if err != nil {
		return true, fmt.Errorf("pid %d: cannot tell whether it is a zombie: %w", pid, err)
	}
	return st.State != "Z" && st.State != "X", nil
}

// processCmdline returns pid's command line from /proc.
func processCmdline(pid int) ([]string, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return nil, err
	}
	return p.CmdLine()
}
