//go:build unix

package campaign

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFolder takes an exclusive flock on the campaign folder itself and
// holds it for the campaign's life: a resume of a folder whose campaign
// still runs (or is being resumed) finds it taken. The kernel releases the
// lock when the process ends, however it ends (SIGKILL included), and the
// descriptor is close-on-exec, so no broker, runner or agent inherits it.
func lockFolder(dir string) (release func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("campaign folder %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: another sharebench process holds this campaign folder (the campaign still runs, or is being resumed): wait for it or stop it first", dir)
		}
		return nil, fmt.Errorf("campaign folder %s: lock: %w", dir, err)
	}
	return func() { _ = f.Close() }, nil
}
