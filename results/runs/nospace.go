package runs

import (
	"errors"
	"fmt"
	"syscall"
)

// NoSpaceError is a write into a campaign folder that failed because its
// file system is full (ENOSPC) or the user's disk quota is spent (EDQUOT).
// WriteFileAtomic and WriteRunDir return it; the campaign turns it into the
// error that says what to do (campaign.DiskFullError), and sharebench exits
// with its own status on it (docs/how-to/run-long-campaigns.md#a-full-disk).
type NoSpaceError struct {
	// Path is the file being written, or the folder being created.
	Path string
	// Bytes is the size of the failed write: the whole file, since every
	// file is written to a temporary name first and renamed when complete;
	// 0 for a folder.
	Bytes int64
	// Folder is set when the failure was creating the folder Path.
	Folder bool
	// Free is what its file system had free for this user just after the
	// failure (statfs f_bavail × f_bsize), -1 when it could not be read.
	Free int64
	// Err is the error as the system returned it (wrapping ENOSPC or EDQUOT).
	Err error
}

func (e *NoSpaceError) Error() string {
	what := "writing " + BytesText(e.Bytes)
	if e.Folder {
		what = "creating the folder"
	}
	free := ""
	if e.Free >= 0 {
		free = ", " + BytesText(e.Free) + " free on its file system"
	}
	return fmt.Sprintf("%s: %s failed: %s%s", e.Path, what, noSpaceReason(e.Err), free)
}

func (e *NoSpaceError) Unwrap() error { return e.Err }

// IsNoSpace reports whether err says the file system is full or the disk
// quota spent: ENOSPC or EDQUOT anywhere in its chain (a NoSpaceError
// included).
func IsNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// noSpaceReason is the system's words for err: "no space left on device"
// or "disk quota exceeded", without the temporary file's name.
func noSpaceReason(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	if err == nil {
		return syscall.ENOSPC.Error()
	}
	return err.Error()
}

// noSpace wraps err as a NoSpaceError on path when it is one (IsNoSpace),
// reading the free space of the folder dir; any other error is returned as
// it is.
func noSpace(err error, path, dir string, bytes int64, folder bool) error {
	if err == nil || !IsNoSpace(err) {
		return err
	}
	free := int64(-1)
	if f, ok := FreeBytes(dir); ok {
		free = int64(min(f, uint64(1<<62)))
	}
	return &NoSpaceError{Path: path, Bytes: bytes, Folder: folder, Free: free, Err: err}
}

// BytesText writes a byte count exactly, with binary units beside it from
// 1 KiB on: "830 bytes", "831488 bytes (812.0 KiB)".
func BytesText(b int64) string {
	if b < 1024 {
		return fmt.Sprintf("%d bytes", b)
	}
	v, unit := float64(b), ""
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB", "PiB"} {
		if v < 1024 {
			break
		}
		v /= 1024
		unit = u
	}
	return fmt.Sprintf("%d bytes (%.1f %s)", b, v, unit)
}
