package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"tabula/bench"
	"tabula/internal/metrics"
	"tabula/internal/progress"
	"tabula/internal/refdata"
	"tabula/players"
)

// benchSet measures f's mistake rate on the first n positions of the Pons set
// file dir/set. The solver's verdicts never change, so a run takes them from
// the shipped file known/<set>.json if it covers them, or else computes them
// once, and keeps them in runRoot/bench/<set>-<n>.json; each benchmark after
// that costs only the network's moves. Progress (solving, then playing) goes
// to bars from newBar, if not nil.
func benchSet(ctx context.Context, runRoot, dir, known, set string, n int, f *players.Factory, seed uint64,
	newBar func(n int, desc string) progress.Bar) (float64, int, error) {
	if newBar == nil {
		newBar = func(int, string) progress.Bar { return progress.New(nil, 0, "") }
	}
	file, err := os.Open(filepath.Join(dir, set))
	if err != nil {
		return 0, 0, fmt.Errorf("bench: %w", err)
	}
	pos, err := bench.ReadPositions(file, set)
	file.Close()
	if err != nil {
		return 0, 0, err
	}
	if len(pos) > n {
		pos = pos[:n]
	}
	cache := filepath.Join(runRoot, "bench", fmt.Sprintf("%s-%d.json", set, len(pos)))
	var shipped []string
	if known != "" {
		shipped = append(shipped, filepath.Join(known, set+".json"))
	}
	if err := os.MkdirAll(filepath.Dir(cache), 0o755); err != nil {
		return 0, 0, fmt.Errorf("bench: %w", err)
	}
	// The cache is the run's own: a damaged one is replaced (force).
	solving := newBar(len(pos), "bench "+set+": solving (once per run)")
	v, err := bench.LoadOrSolveVerdicts(ctx, cache, pos, 0, true, func(done, _ int) { solving.Set(done) }, shipped...)
	solving.Finish()
	if err != nil {
		return 0, 0, err
	}
	playing := newBar(len(pos), "bench "+set)
	defer playing.Finish()
	res, err := bench.Bench(ctx, bench.BenchConfig{Seed: seed, Verdicts: v,
		Progress: func(done, _ int) { playing.Set(done) }}, f, pos)
	if err != nil {
		return 0, 0, err
	}
	return res.MistakeRate(), res.Positions, nil
}

// bench measures the best network's mistake rate on the configured Pons sets.
func (t *Trainer) bench(ctx context.Context) (*metrics.Bench, error) {
	bc := t.cfg.Bench
	dir := bc.Dir
	if dir == "" {
		d, err := refdata.Dir()
		if err != nil {
			t.log.Warn("bench skipped: no reference data", "err", err)
			return &metrics.Bench{Skipped: err.Error()}, nil
		}
		dir = filepath.Join(d, "connect4")
	}
	f, err := netFactory(t.g, t.bestPath, bc.Simulations)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := &metrics.Bench{Rates: map[string]metrics.Float{}}
	for _, set := range bc.Sets {
		rate, n, err := benchSet(ctx, t.cfg.RunDir, dir, bc.Verdicts, set, bc.Positions, f, t.cfg.Seed, t.bar)
		if err != nil {
			return nil, err
		}
		out.Rates[set] = metrics.Float(rate)
		t.log.Info("bench", "set", set, "mistake_rate", fmt.Sprintf("%.3f", rate), "positions", n)
	}
	return out, nil
}
