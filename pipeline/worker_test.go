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
	w, ok := workers["leaver"].(map[string]any)
	if !ok || w["alive"] != false || w["exited"] != true || !strings.Contains(line, "leaver") || !strings.Contains(line, "gone") {
		t.Fatalf("a worker that exited: %v (%s), want alive false, exited true", workers["leaver"], line)
	}
}
