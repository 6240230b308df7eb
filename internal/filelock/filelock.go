// Package filelock takes advisory, exclusive locks on open files, so that
// only one process at a time works in a folder. A lock lasts until the file
// is closed (or its process ends, however it ends).
package filelock

import "errors"

// ErrLocked is returned by TryLock when another open file holds the lock.
var ErrLocked = errors.New("file is locked by another process")
