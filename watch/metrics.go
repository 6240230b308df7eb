// Package watch shows a training run while it trains: it reads the run
// folder that pipeline writes (metrics.jsonl and the replay chunks), turns
// the metrics into plots (Elo with its confidence band, the loss terms,
// policy entropy, the mistake rate on each Pons set, self-play throughput,
// all against the run's time, summed over its processes) and the newest replay chunks into games that can be
// replayed move by move, and serves both as a web page that refreshes itself.
//
// The same plots feed scripts/curve, which draws them as PNG files.
package watch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"

	"tabula/internal/metrics"
	"tabula/internal/runclock"
)

// maxLine bounds one metrics line.
const maxLine = 1 << 22

// ReadMetrics reads a metrics.jsonl file. A last line without its newline
// (the trainer writing it right now) is ignored; any other line that does
// not parse is an error naming it.
func ReadMetrics(path string) ([]metrics.Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	recs, err := ParseMetrics(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// ParseMetrics reads metrics lines from r (see ReadMetrics).
func ParseMetrics(r io.Reader) ([]metrics.Record, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var recs []metrics.Record
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err == io.EOF {
			return recs, nil // b is empty or a torn last line
		}
		if err != nil {
			return nil, err
		}
		if len(b) > maxLine {
			return nil, fmt.Errorf("line %d: %d bytes exceeds %d", line, len(b), maxLine)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var rec metrics.Record
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		recs = append(recs, rec)
	}
}

// RunSeconds returns the run time of each record: its run_seconds, or for
// lines without it, one rebuilt from wall_seconds, which restarts in each
// process (package runclock).
func RunSeconds(recs []metrics.Record) []float64 {
	lines := make([]runclock.Line, len(recs))
	for i, r := range recs {
		lines[i] = runclock.LineOf(r)
	}
	return runclock.Seconds(lines)
}

// Iterations is the number of iterations the records cover: the highest
// iteration number (a run's lines can repeat one, such as a final ladder's).
func Iterations(recs []metrics.Record) int {
	n := 0
	for _, r := range recs {
		n = max(n, r.Iteration)
	}
	return n
}

// Plot is one chart: lines against the run's time in minutes.
type Plot struct {
	Name   string `json:"name"`  // short identifier, used for file names
	Title  string `json:"title"` // heading
	YLabel string `json:"ylabel"`
	Lines  []Line `json:"lines"`
}

// Line is one series of a Plot. Low and High, when present, are a band
// around Y (a confidence interval) with the same X; NaN marks a missing
// bound.
type Line struct {
	Label string    `json:"label"`
	X     []float64 `json:"x"`
	Y     []float64 `json:"y"`
	Low   []float64 `json:"low,omitempty"`
	High  []float64 `json:"high,omitempty"`
}

// MarshalJSON writes NaN and infinities as null.
func (l Line) MarshalJSON() ([]byte, error) {
	type out struct {
		Label string     `json:"label"`
		X     []*float64 `json:"x"`
		Y     []*float64 `json:"y"`
		Low   []*float64 `json:"low,omitempty"`
		High  []*float64 `json:"high,omitempty"`
	}
	conv := func(xs []float64) []*float64 {
		if xs == nil {
			return nil
		}
		p := make([]*float64, len(xs))
		for i := range xs {
			if !math.IsNaN(xs[i]) && !math.IsInf(xs[i], 0) {
				p[i] = &xs[i]
			}
		}
		return p
	}
	return json.Marshal(out{l.Label, conv(l.X), conv(l.Y), conv(l.Low), conv(l.High)})
}

// Plots turns metrics into the charts, each line holding only the
// iterations that have its value. Charts without any point are left out.
func Plots(recs []metrics.Record) []Plot {
	runSecs := RunSeconds(recs)
	minutes := func(i int) float64 { return runSecs[i] / 60 }
	series := func(label string, get func(metrics.Record) (float64, bool)) Line {
		l := Line{Label: label}
		for i, r := range recs {
			if y, ok := get(r); ok {
				l.X = append(l.X, minutes(i))
				l.Y = append(l.Y, y)
			}
		}
		return l
	}
	// A value written as null (read as NaN) is missing, as an absent one.
	trainVal := func(f func(*metrics.Train) *metrics.Float) func(metrics.Record) (float64, bool) {
		return func(r metrics.Record) (float64, bool) {
			if r.Train == nil {
				return 0, false
			}
			return f(r.Train).Get()
		}
	}

	var plots []Plot
	add := func(p Plot) {
		var kept []Line
		for _, l := range p.Lines {
			if len(l.X) > 0 {
				kept = append(kept, l)
			}
		}
		if len(kept) > 0 {
			p.Lines = kept
			plots = append(plots, p)
		}
	}

	// Elo of the best network with its 95% interval.
	elo := Line{Label: "best network"}
	anchor := ""
	for i, r := range recs {
		l := r.Ladder
		if l == nil || len(l.Elo) == 0 || math.IsNaN(float64(l.Elo[0])) {
			continue
		}
		if len(l.Players) > 1 && anchor == "" {
			anchor = l.Players[1]
		}
		lo, hi := math.NaN(), math.NaN() // NaN also where the line has null
		if len(l.Low) > 0 {
			lo = float64(l.Low[0])
		}
		if len(l.High) > 0 {
			hi = float64(l.High[0])
		}
		elo.X = append(elo.X, minutes(i))
		elo.Y = append(elo.Y, float64(l.Elo[0]))
		elo.Low = append(elo.Low, lo)
		elo.High = append(elo.High, hi)
	}
	ylabel := "Elo"
	if anchor != "" {
		ylabel = "Elo (" + anchor + " = 0)"
	}
	add(Plot{Name: "elo", Title: "Elo of the best network (95% interval)", YLabel: ylabel, Lines: []Line{elo}})

	add(Plot{Name: "loss", Title: "Training loss", YLabel: "loss", Lines: []Line{
		series("total", trainVal(func(t *metrics.Train) *metrics.Float { return t.LossTotal })),
		series("value", trainVal(func(t *metrics.Train) *metrics.Float { return t.LossValue })),
		series("policy", trainVal(func(t *metrics.Train) *metrics.Float { return t.LossPolicy })),
		series("L2", trainVal(func(t *metrics.Train) *metrics.Float { return t.LossL2 })),
		// Unweighted, as the trainer reports them; lines only for the heads
		// the network has.
		series("ownership", trainVal(func(t *metrics.Train) *metrics.Float { return t.LossOwnership })),
		series("score", trainVal(func(t *metrics.Train) *metrics.Float { return t.LossScore })),
		series("opponent policy", trainVal(func(t *metrics.Train) *metrics.Float { return t.LossOppPolicy })),
	}})
	add(Plot{Name: "entropy", Title: "Policy entropy", YLabel: "nats", Lines: []Line{
		series("policy entropy", trainVal(func(t *metrics.Train) *metrics.Float { return t.PolicyEntropy })),
	}})

	sets := map[string]bool{}
	for _, r := range recs {
		if r.Bench != nil {
			for k := range r.Bench.Rates {
				sets[k] = true
			}
		}
	}
	var mistakes []Line
	for _, s := range slices.Sorted(maps.Keys(sets)) {
		mistakes = append(mistakes, series(s, func(r metrics.Record) (float64, bool) {
			if r.Bench == nil {
				return 0, false
			}
			v, ok := r.Bench.Rates[s]
			return 100 * float64(v), ok && !math.IsNaN(float64(v))
		}))
	}
	add(Plot{Name: "mistakes", Title: "Mistake rate on the Pons sets", YLabel: "% of positions", Lines: mistakes})

	add(Plot{Name: "selfplay", Title: "Self-play throughput", YLabel: "positions/s", Lines: []Line{
		series("positions/s", func(r metrics.Record) (float64, bool) {
			if r.SelfPlay == nil {
				return 0, false
			}
			v := float64(r.SelfPlay.PositionsPerS)
			return v, !math.IsNaN(v)
		}),
	}})
	add(scorePlot(recs, series))
	return plots
}

// scorePlot is the best network's score against each ladder player, in
// percent: of the games, or of the points where the ladder scored points
// (metrics.Ladder.ScoreUnit; its share of the games is then a second line
// for each player). The labels say which.
func scorePlot(recs []metrics.Record, series func(string, func(metrics.Record) (float64, bool)) Line) Plot {
	opponents, units := map[string]bool{}, map[string]bool{}
	for _, r := range recs {
		if r.Ladder != nil {
			for k := range r.Ladder.Scores {
				opponents[k] = true
			}
			units[r.Ladder.ScoreLabel()] = true
		}
	}
	// Each player's share of the points (where the ladder scored points)
	// and of the games (Scores, or GameScores where Scores are points).
	points := func(o string) func(metrics.Record) (float64, bool) {
		return func(r metrics.Record) (float64, bool) {
			if r.Ladder == nil || r.Ladder.ScoreLabel() != "points" {
				return 0, false
			}
			return percent(r.Ladder.Scores, o)
		}
	}
	games := func(o string) func(metrics.Record) (float64, bool) {
		return func(r metrics.Record) (float64, bool) {
			switch {
			case r.Ladder == nil:
				return 0, false
			case r.Ladder.ScoreLabel() == "points":
				return percent(r.Ladder.GameScores, o)
			}
			return percent(r.Ladder.Scores, o)
		}
	}
	var lines []Line
	for _, o := range slices.Sorted(maps.Keys(opponents)) {
		if units["points"] {
			lines = append(lines, series(o+" (points)", points(o)))
		}
		lines = append(lines, series(o+" (games)", games(o)))
	}
	ylabel := "% of games"
	if units["points"] {
		ylabel = "% of points (and of games)"
	}
	return Plot{Name: "scores", Title: "Score of the best network against each ladder player", YLabel: ylabel, Lines: lines}
}

// percent returns m[key] in percent, and whether it is there and a number.
func percent(m map[string]metrics.Float, key string) (float64, bool) {
	v, ok := m[key]
	return 100 * float64(v), ok && !math.IsNaN(float64(v))
}
