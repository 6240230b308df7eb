package pipeline

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"tabula/internal/cputime"
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
		// Keys added after the golden lines were written.
		w = append(w, "cpu", "cpu.process_s", "cpu.selfplay_s", "cpu.train_s")
		slices.Sort(w)
		if !slices.Equal(g, w) {
			t.Errorf("line %d keys:\n got %s\nwant %s", i+1, strings.Join(g, " "), strings.Join(w, " "))
		}
	}
}

// TestMetricsCPUSection runs the Connect Four smoke run: every iteration's
// line has a cpu section whose self-play and training parts are positive,
// and over the run they add up to no more than the process's CPU time (a
// game's CPU is counted when it ends, so one line's parts may spill over
// the line before; the sums cannot).
func TestMetricsCPUSection(t *testing.T) {
	if cputime.Process() == 0 || !cputime.ThreadMeasured() {
		t.Skip("CPU clocks are not measured on this system")
	}
	dir := t.TempDir()
	tr := runOnce(t, smoke(t, dir))
	if sum := tr.Summary(); !regexp.MustCompile(`CPU: \d+ s in the trainer's process: self-play \d+%, training \d+%`).MatchString(sum) {
		t.Errorf("the summary has no CPU shares:\n%s", sum)
	}
	data, err := os.ReadFile(filepath.Join(dir, metricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var proc, sp, train float64
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for i, line := range lines {
		var rec metrics.Record
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.FinalLadder {
			continue
		}
		c := rec.CPU
		if c == nil || c.SelfPlayS == nil || c.TrainS == nil {
			t.Fatalf("line %d: cpu section %+v, want process_s, selfplay_s and train_s", i+1, c)
		}
		if c.ProcessS <= 0 || *c.SelfPlayS <= 0 || *c.TrainS <= 0 {
			t.Errorf("line %d: cpu %v s, self-play %v s, training %v s: want each > 0", i+1, c.ProcessS, *c.SelfPlayS, *c.TrainS)
		}
		proc += float64(c.ProcessS)
		sp += float64(*c.SelfPlayS)
		train += float64(*c.TrainS)
	}
	if sp+train > proc*1.01 {
		t.Errorf("self-play %.3f s + training %.3f s > the process's %.3f s", sp, train, proc)
	}
	t.Logf("process %.2f s: self-play %.2f s, training %.2f s", proc, sp, train)
}
