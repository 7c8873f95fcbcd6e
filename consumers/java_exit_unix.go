//go:build unix

package consumers

import (
	"os"
	"syscall"
)

// exitSignal names the signal that ended a process ("killed", "terminated"),
// or "" when it exited.
func exitSignal(ps *os.ProcessState) string {
	if ps == nil {
		return ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
