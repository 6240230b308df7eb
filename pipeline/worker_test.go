package pipeline

import (
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestRemoteWorkerSaysGoodbye: a worker that exits cleanly is shown as
// exited at the trainer's next metrics line, not alive for the seconds its
// last heartbeat stays fresh. The trainer's join hint names the token.
func TestRemoteWorkerSaysGoodbye(t *testing.T) {
	dir := t.TempDir()
	var logs syncLog
	tr, err := New(smoke(t, dir, "iterations=1", "ladder.every=0", "bench.every=0"),
		Options{Log: slog.New(slog.NewTextHandler(&logs, nil)), Bus: BusOptions{Token: "s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if !strings.Contains(logs.String(), `-token \"$TABULA_BUS_TOKEN\"`) {
		t.Errorf("the join hint leaves out -token:\n%s", logs.String())
	}
	wo := WorkerOptions{ID: "leaver", Workers: 1, Games: 1, Seed: 5}
	if err := RunRemoteWorker(context.Background(), RemoteOptions{WorkerOptions: wo, URL: tr.server.URL(), Token: "s3cret", Run: tr.cfg.Bus.Run}); err != nil {
		t.Fatal(err)
	}
	workers, line := tr.workerMetrics(context.Background())
	w, ok := workers["leaver"]
	if !ok || w.Alive || !w.Exited || !strings.Contains(line, "leaver") || !strings.Contains(line, "gone") {
		t.Fatalf("a worker that exited: %v (%s), want alive false, exited true", workers["leaver"], line)
	}
}

// TestFolderWorkerGamesUsedWhileTraining: games that a folder worker
// (selfplay -run) writes while the trainer runs are in the replay window by
// the next iteration, though the trainer never starves (no reuse cap), and
// the worker is shown in the metrics with its games and, once it exited, as
// gone.
func TestFolderWorkerGamesUsedWhileTraining(t *testing.T) {
	dir := t.TempDir()
	sets := []string{"ladder.every=0", "bench.every=0", "replay.max_reuse=0"}
	runOnce(t, smoke(t, dir, append(sets, "iterations=1")...))
	tr, err := New(smoke(t, dir, append(sets, "iterations=2")...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := RunWorker(context.Background(), dir, WorkerOptions{ID: "extra", Workers: 1, Games: 3, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n, err := tr.buf.Refresh(); err != nil || n != 0 {
		t.Errorf("after an iteration, %d examples (err %v) of the worker's chunks were still not in the window", n, err)
	}
	m := readMetrics(t, dir)
	w, ok := m[len(m)-1]["workers"].(map[string]any)["extra"].(map[string]any)
	if !ok || w["games"] != 3.0 || w["alive"] != false || w["exited"] != true || !(w["positions_per_s"].(float64) > 0) {
		t.Errorf("metrics of the folder worker: %v, want 3 games, a rate, and exited", m[len(m)-1]["workers"])
	}
}
