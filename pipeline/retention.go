package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"time"
)

// pruneReplay removes from disk the replay chunks whose examples have all
// left the window (a restart would not load them either), and bounds the
// ingest ledger to the games the bus can still deliver: those from the
// stream's oldest game on. The ledger is compacted first, marking the
// removed chunks' games as gone, so that a crash between the two steps
// leaves chunks the next start removes rather than games taken twice.
// Failures are logged, not fatal: they cost only disk space.
func (t *Trainer) pruneReplay(ctx context.Context) {
	expired := t.buf.Expired()
	if len(expired) == 0 && !t.in.worthCompacting() {
		return
	}
	var cutoff time.Time // zero: the ledger forgets nothing
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	oldest, ok, err := t.bus.Oldest(octx)
	cancel()
	switch {
	case err != nil:
		t.log.Warn("replay retention: the bus's oldest game is unknown; the ingest ledger keeps every game this time", "err", err)
	case ok:
		cutoff = oldest.Add(-ledgerMargin)
	default: // an empty stream: no game that came before can come again
		cutoff = time.Now().Add(-ledgerMargin)
	}
	removing := make(map[string]bool, len(expired))
	for _, name := range expired {
		removing[name] = true
	}
	kept, dropped, err := t.in.compact(removing, cutoff)
	if err != nil {
		t.log.Warn("replay retention: compacting the ingest ledger failed; chunks that left the window stay on disk", "err", err)
		return
	}
	if err := t.buf.Remove(expired); err != nil {
		t.log.Warn("replay retention: removing chunks that left the window failed", "err", err)
	}
	t.log.Debug("replay retention", "chunks_removed", len(expired), "ledger_lines", kept, "ledger_lines_dropped", dropped)
}

// prune deletes the checkpoints that retention no longer keeps: those older
// than the last keep_checkpoints that gating turned down (as metrics.jsonl
// records). Promoted checkpoints, the best, the first, and any checkpoint
// whose gating result is not on record are kept. A failure is logged, not
// fatal: it costs only disk space.
func (t *Trainer) prune() {
	keep := t.cfg.KeepCheckpoints
	if keep == 0 {
		return
	}
	cks, err := t.dir.checkpoints()
	if err != nil {
		t.log.Warn("checkpoint retention: listing failed", "err", err)
		return
	}
	best := filepath.Base(t.best())
	removed := 0
	for _, path := range cks[:max(0, len(cks)-keep)] {
		name := filepath.Base(path)
		if name == best || t.promoted[name] || !t.rejected[name] || path == t.dir.checkpointPath(0) {
			continue
		}
		if err := os.Remove(path); err != nil {
			t.log.Warn("checkpoint retention: remove failed", "file", path, "err", err)
			continue
		}
		removed++
	}
	if removed > 0 {
		t.log.Debug("checkpoint retention", "removed", removed, "keep_last", keep)
	}
}
