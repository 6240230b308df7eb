//go:build !windows

package atomicfile

import (
	"fmt"
	"os"
)

// rename moves the finished temporary file over path.
func rename(tmp, path string) error { return os.Rename(tmp, path) }

// SyncDir fsyncs a folder so that a rename inside it is durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
