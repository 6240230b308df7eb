package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestTryLock: a second open file cannot take a held lock, and can once the
// holder is closed.
func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "train.lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a := open()
	if err := TryLock(a); err != nil {
		t.Fatalf("first lock: %v", err)
	}
	b := open()
	defer b.Close()
	if err := TryLock(b); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock while the first is held: %v, want ErrLocked", err)
	}
	a.Close()
	if err := TryLock(b); err != nil {
		t.Fatalf("lock after the holder closed: %v", err)
	}
}
