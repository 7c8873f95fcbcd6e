//go:build unix

package runs

import "syscall"

// FreeBytes is what the file system holding dir has free for this user
// (statfs: f_bavail × f_bsize, which leaves out the blocks reserved for
// root); false when it cannot be read.
func FreeBytes(dir string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
