package pipeline

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tabula/internal/metrics"
)

// goldenMetrics holds metrics.jsonl lines written by the map-built writer
// that metrics.Record replaced: two iterations of the Connect Four smoke
// run (a gating match, the ladder, a skipped bench), gate.games = 0, the
// opponent-policy and ownership/score losses, an Elo difference written as
// null, a numeric bench, a final ladder's line, an iteration resumed after
// a stop in training (steps_before_restart) and one finished by a restart
// (resumed), and two lines built by hand with the old writer's map and its
// null for non-finite numbers (a failed Elo fit, exited workers, NaN
// losses, an empty bench and workers).
const goldenMetrics = "testdata/metrics-golden.jsonl"

// TestMetricsRecordReadsAndWritesOldLines: every golden line reads into a
// metrics.Record and writes back byte for byte.
func TestMetricsRecordReadsAndWritesOldLines(t *testing.T) {
	data, err := os.ReadFile(goldenMetrics)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) < 10 {
		t.Fatalf("%d golden lines", len(lines))
	}
	for i, line := range lines {
		var rec metrics.Record
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		got, err := json.Marshal(&rec)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if !bytes.Equal(got, line) {
			t.Errorf("line %d written back differs:\n got %s\nwant %s", i+1, got, line)
		}
	}
}

// keyPaths lists the keys of a JSON object and of the objects inside it,
// as dotted paths; the names of workers, ladder opponents and bench sets
// are written as *.
func keyPaths(t *testing.T, line []byte) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			switch prefix {
			case "workers.", "ladder.scores.", "bench.":
				k = "*"
			}
			out = append(out, prefix+k)
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
			}
		}
	}
	walk("", m)
	slices.Sort(out)
	return slices.Compact(out)
}

// TestMetricsLinesKeepTheirKeys runs the Connect Four smoke run that wrote
// the first two golden lines: its lines have the same keys, section by
// section.
func TestMetricsLinesKeepTheirKeys(t *testing.T) {
	data, err := os.ReadFile(goldenMetrics)
	if err != nil {
		t.Fatal(err)
	}
	golden := bytes.Split(data, []byte("\n"))[:2]
	dir := t.TempDir()
	runOnce(t, smoke(t, dir))
	got, err := os.ReadFile(filepath.Join(dir, metricsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(got, []byte("\n")), []byte("\n"))
	if len(lines) != len(golden) {
		t.Fatalf("%d lines, want %d", len(lines), len(golden))
	}
	for i := range lines {
		g, w := keyPaths(t, lines[i]), keyPaths(t, golden[i])
		if !slices.Equal(g, w) {
			t.Errorf("line %d keys:\n got %s\nwant %s", i+1, strings.Join(g, " "), strings.Join(w, " "))
		}
	}
}
