package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"tabula/replay"
)

// TestLedgerCompactionKeepsDedup: chunks that left the window are removed
// and their ledger lines become gone lines, so every game delivered again
// is still dropped, in this process and after a restart; once the stream's
// oldest game is newer than them, their games are forgotten and the ledger
// holds only the lines of the chunks on disk.
func TestLedgerCompactionKeepsDedup(t *testing.T) {
	g, dir, open := ingestFixture(t, 40, 2, 1, 0)
	rdir := filepath.Join(dir, replayDir)
	buf, in := open()
	all := testGames(t, g, "wa", 0, 24)
	feed := &fakeFeed{acked: map[string]int{}}
	for i := 0; i < len(all); i += 2 { // one chunk of 2 games a step
		feed.queue = all[i : i+2]
		if _, _, err := in.step(context.Background(), feed, time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	expired := buf.Expired()
	if len(expired) == 0 {
		t.Fatal("no chunk left a window of 40 examples after 12 chunks")
	}
	removing := map[string]bool{}
	for _, n := range expired {
		removing[n] = true
	}
	if _, _, err := in.compact(removing, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := buf.Remove(expired); err != nil {
		t.Fatal(err)
	}
	redeliver := func(in *ingest, want int) {
		t.Helper()
		before := in.total()
		feed.queue = append([]busGame(nil), all...)
		for {
			n, _, err := in.step(context.Background(), feed, time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
		}
		if got := in.total().Games - before.Games; got != want {
			t.Fatalf("all %d games delivered again: %d stored again, want %d", len(all), got, want)
		}
	}
	redeliver(in, 0)
	inReplay, _, _, err := ledgerIDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, gm := range all {
		if inReplay[gm.ID] != 1 {
			t.Errorf("game %s counted %d times in the ledger, want 1", gm.ID, inReplay[gm.ID])
		}
	}
	in.close()

	// A restart reads the compacted ledger: still no game is taken twice.
	buf, in = open()
	redeliver(in, 0)

	// The stream's oldest game is newer than every line: only the lines of
	// chunks still on disk stay, and the ledger shrinks.
	before, _ := os.ReadFile(filepath.Join(dir, ingestLedger))
	expired = buf.Expired()
	removing = map[string]bool{}
	for _, n := range expired {
		removing[n] = true
	}
	if _, _, err := in.compact(removing, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	buf.Remove(expired)
	after, _ := os.ReadFile(filepath.Join(dir, ingestLedger))
	chunks, _ := filepath.Glob(filepath.Join(rdir, "chunk-*"+replay.ChunkSuffix))
	if n := bytes.Count(after, []byte("\n")); n != len(chunks) || len(after) >= len(before) {
		t.Fatalf("ledger of %d lines (%d bytes, %d before) for %d chunks on disk, want one line a chunk", n, len(after), len(before), len(chunks))
	}
	// It still appends after the compaction.
	more := testGames(t, g, "wb", 0, 2)
	feed.queue = more
	if _, _, err := in.step(context.Background(), feed, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	in.close()
	if inReplay, _, _, err = ledgerIDs(dir); err != nil || inReplay[more[0].ID] != 1 {
		t.Fatalf("after compaction, a new game: %v, %v", inReplay[more[0].ID], err)
	}
}

// TestRunRemovesChunksThatLeftTheWindow: a run whose replay window is
// smaller than what self-play writes keeps on disk about one window of
// chunks, and its ingest ledger one line per chunk on disk or game the bus
// still holds; a resumed run still has a full window.
func TestRunRemovesChunksThatLeftTheWindow(t *testing.T) {
	dir := t.TempDir()
	sets := []string{"ladder.every=0", "bench.every=0", "replay.window=100", "train.min_examples=32", "iterations=3"}
	runOnce(t, smoke(t, dir, sets...))
	total, per := replayExamples(t, dir)
	biggest := 0
	for _, n := range per {
		biggest = max(biggest, n)
	}
	if total > 100+2*biggest {
		t.Fatalf("%d examples in %d chunks on disk for a window of 100 (largest chunk %d)", total, len(per), biggest)
	}
	data, err := os.ReadFile(filepath.Join(dir, ingestLedger))
	if err != nil {
		t.Fatal(err)
	}
	lines, err := parseLedger(data)
	if err != nil {
		t.Fatal(err)
	}
	gone := 0
	for _, l := range lines {
		if l.kind == "gone" {
			gone++
		}
	}
	if gone == 0 {
		t.Errorf("no gone lines in the ledger: removed chunks' games are forgotten while the bus holds them")
	}
	tr, err := New(smoke(t, dir, sets...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if tr.buf.Len() != 100 {
		t.Fatalf("resumed window holds %d examples, want 100", tr.buf.Len())
	}
}
