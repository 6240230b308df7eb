package pipeline

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestPromotionPublishNotFatal: a promotion whose publication to the bus
// cannot finish (here the context is already cancelled, as at Ctrl-C or a
// bus that does not answer) is durable on disk, does not fail setBest, and is
// published by the next try (each iteration calls retryPublishBest).
func TestPromotionPublishNotFatal(t *testing.T) {
	dir := t.TempDir()
	tr, err := New(smoke(t, dir, "iterations=1"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	path := tr.dir.checkpointPath(1)
	if err := tr.save(path, nil); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := tr.setBest(cancelled, path); err != nil {
		t.Fatalf("setBest with a publication that cannot finish: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("setBest took %v with a cancelled context", d)
	}
	if best, err := tr.dir.best(); err != nil || best != path {
		t.Fatalf("best on disk %q, %v; want %q", best, err, path)
	}
	if !tr.bestUnpublished {
		t.Fatal("the unpublished promotion is not marked for a retry")
	}
	ctx := context.Background()
	if b, err := tr.bus.GetBest(ctx); err != nil || b.Name == filepath.Base(path) {
		t.Fatalf("bus best %+v, %v: published through a cancelled context?", b, err)
	}
	tr.retryPublishBest(ctx)
	if tr.bestUnpublished {
		t.Fatal("the retry did not publish")
	}
	if b, err := tr.bus.GetBest(ctx); err != nil || b.Name != filepath.Base(path) {
		t.Fatalf("bus best after the retry %+v, %v; want %s", b, err, filepath.Base(path))
	}
}
