package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesAndCleans(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.bin")
	for _, s := range []string{"first", "second, longer"} {
		if err := Write(p, []byte(s)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != s {
			t.Fatalf("read back %q, %v; want %q", got, err, s)
		}
	}
	// A leftover temp file from a killed writer is removed, other files kept.
	os.WriteFile(filepath.Join(dir, ".f.bin.123"+TempSuffix), []byte("partial"), 0o644)
	n, err := RemoveTemps(dir)
	if err != nil || n != 1 {
		t.Fatalf("RemoveTemps = %d, %v; want 1", n, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "f.bin" {
		t.Fatalf("folder holds %v, want only f.bin", entries)
	}
	if err := Write(filepath.Join(dir, "missing", "x"), nil); err == nil {
		t.Fatal("Write into a missing folder succeeded")
	}
}
