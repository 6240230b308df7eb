package atomicfile

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// rename moves the finished temporary file over path and returns once the
// move is on disk (MOVEFILE_WRITE_THROUGH), which is what a folder fsync
// gives on Unix.
func rename(tmp, path string) error {
	from, err := windows.UTF16PtrFromString(tmp)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
	}
	to, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
	}
	if err := windows.MoveFileEx(from, to, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH); err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
	}
	return nil
}

// SyncDir checks that dir is a folder and otherwise does nothing: Windows
// cannot flush a folder opened for reading, and Write's renames are written
// through instead.
func SyncDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("sync %s: not a folder", dir)
	}
	return nil
}
