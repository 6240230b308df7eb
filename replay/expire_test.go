package replay

import (
	"os"
	"path/filepath"
	"testing"
)

// TestExpiredChunksAreRemoved: a chunk whose examples have all left the
// window is reported by Expired, and Remove deletes it; what is left on disk
// is still a full window at the next Open. Chunks older than the window at
// Open are expired at once.
func TestExpiredChunksAreRemoved(t *testing.T) {
	g := connect4(t)
	dir := t.TempDir()
	cfg := Config{Window: 10, Augment: false}
	b := open(t, dir, cfg, "w")
	var paths []string
	for i := 0; i < 3; i++ {
		p, err := b.Write(examples(g, 4, uint64(i)))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Base(p))
	}
	if e := b.Expired(); len(e) != 0 {
		t.Fatalf("12 examples in a window of 10: expired %v, want none (the first chunk is half in)", e)
	}
	p, err := b.Write(examples(g, 4, 9))
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Base(p))
	e := b.Expired()
	if len(e) != 1 || e[0] != paths[0] {
		t.Fatalf("expired %v, want [%s]", e, paths[0])
	}
	if err := b.Remove(e); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, paths[0])); !os.IsNotExist(err) {
		t.Fatalf("expired chunk still on disk: %v", err)
	}
	if n, err := b.Refresh(); err != nil || n != 0 {
		t.Fatalf("Refresh after Remove: %d, %v", n, err)
	}
	if err := b.Remove([]string{"../config.yaml"}); err == nil {
		t.Error("Remove took a name that is not a chunk file")
	}
	b2 := open(t, dir, cfg, "w2")
	if b2.Len() != 10 {
		t.Fatalf("reopened window holds %d examples, want 10", b2.Len())
	}
	if e := b2.Expired(); len(e) != 0 {
		t.Fatalf("at reopen: expired %v, want none", e)
	}
	b3 := open(t, dir, Config{Window: 4}, "w3")
	if e := b3.Expired(); len(e) != 2 {
		t.Fatalf("a window of 4 over 3 chunks of 4: expired %v, want the 2 older ones", e)
	}
}

// TestExpiredNeedsAWindowOnDisk: a chunk is reported only while the folder
// holds a full window of newer examples that this buffer has read: with
// newer chunks gone from disk, or written by another process and not read
// yet, nothing older is given up.
func TestExpiredNeedsAWindowOnDisk(t *testing.T) {
	g := connect4(t)
	dir := t.TempDir()
	cfg := Config{Window: 10, Augment: false}
	b := open(t, dir, cfg, "w")
	var paths []string
	for i := 0; i < 4; i++ {
		p, err := b.Write(examples(g, 4, uint64(i)))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	if e := b.Expired(); len(e) != 1 {
		t.Fatalf("16 examples in a window of 10: expired %v, want the oldest chunk", e)
	}
	if err := os.Remove(paths[3]); err != nil {
		t.Fatal(err)
	}
	if e := b.Expired(); len(e) != 0 {
		t.Fatalf("8 newer examples on disk for a window of 10: expired %v, want none", e)
	}
	other := open(t, dir, cfg, "other")
	if _, err := other.Write(examples(g, 4, 7)); err != nil {
		t.Fatal(err)
	}
	if e := b.Expired(); len(e) != 0 {
		t.Fatalf("a newer chunk not read yet counted: expired %v, want none", e)
	}
	if _, err := b.Refresh(); err != nil {
		t.Fatal(err)
	}
	if e := b.Expired(); len(e) != 1 || e[0] != filepath.Base(paths[0]) {
		t.Fatalf("after reading the other process's chunk: expired %v, want [%s]", e, filepath.Base(paths[0]))
	}
}
