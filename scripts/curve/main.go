// Command curve prints the learning curve of a training run as a Markdown
// table: for every iteration with a ladder or benchmark result, the run's time
// (summed over the processes that trained it), training steps, the best network's Elo (random = 0) with its 95% interval,
// its score against each fixed player (its share of the games, and of the
// points where the ladder scored points: backgammon on money scoring), and
// its mistake rate on each Pons set.
// With -png DIR it also draws the plots of the watch page (package watch:
// Elo with its band, losses, policy entropy, mistake rates, self-play
// throughput against the run's time) as DIR/NAME.png with gonum/plot.
//
//	go run ./scripts/curve [-png DIR] runs/connect4/metrics.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"

	"tabula/internal/metrics"
	"tabula/internal/runclock"
)

func main() {
	pngDir := flag.String("png", "", "also draw the watch page's plots as PNG files into `dir`")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: curve [-png DIR] METRICS.jsonl")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if *pngDir != "" {
		files, err := writePNGs(flag.Arg(0), *pngDir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "curve:", err)
			os.Exit(1)
		}
		for _, f := range files {
			fmt.Fprintln(os.Stderr, "wrote", f)
		}
	}
	if err := run(flag.Arg(0), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "curve:", err)
		os.Exit(1)
	}
}

func run(path string, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var recs []metrics.Record
	var clock []runclock.Line // of every line
	var at []int              // the index in clock of each of recs
	opponents, sets := map[string]bool{}, map[string]bool{}
	points := false // some ladder scored points (metrics.Ladder.ScoreUnit)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for line := 1; sc.Scan(); line++ {
		var r metrics.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		// Every line places the next on the run's clock.
		clock = append(clock, runclock.LineOf(r))
		var rates map[string]metrics.Float // a skipped benchmark has none
		if r.Bench != nil {
			rates = r.Bench.Rates
		}
		if r.Ladder == nil && len(rates) == 0 {
			continue
		}
		at = append(at, len(clock)-1)
		if r.Ladder != nil {
			for k := range r.Ladder.Scores {
				opponents[k] = true
			}
			points = points || r.Ladder.ScoreLabel() == "points"
		}
		for k := range rates {
			sets[k] = true
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	secs := runclock.Seconds(clock)
	opp, set := keys(opponents), keys(sets)
	head := []string{"iteration", "minutes", "steps", "best", "Elo (95%)"}
	for _, o := range opp {
		if points {
			head = append(head, "vs "+o+" (points)")
		}
		head = append(head, "vs "+o+" (games)")
	}
	for _, s := range set {
		head = append(head, s+" mistakes")
	}
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for i, r := range recs {
		var steps int64
		if r.Train != nil {
			steps = r.Train.TotalSteps
		}
		row := []string{fmt.Sprint(r.Iteration), fmt.Sprintf("%.1f", secs[at[i]]/60), fmt.Sprint(steps), r.Best, ""}
		if l := r.Ladder; l != nil && len(l.Elo) > 0 && number(l.Elo[0]) {
			row[4] = fmt.Sprintf("%.0f", l.Elo[0])
			if len(l.Low) > 0 && len(l.High) > 0 && number(l.Low[0]) && number(l.High[0]) {
				row[4] += fmt.Sprintf(" [%.0f, %.0f]", l.Low[0], l.High[0])
			}
		}
		for _, o := range opp {
			pointCell, gameCell := "", ""
			if l := r.Ladder; l != nil {
				if l.ScoreLabel() == "points" {
					pointCell, gameCell = percentCell(l.Scores, o), percentCell(l.GameScores, o)
				} else {
					gameCell = percentCell(l.Scores, o)
				}
			}
			if points {
				row = append(row, pointCell)
			}
			row = append(row, gameCell)
		}
		for _, s := range set {
			cell := ""
			if r.Bench != nil {
				if v, ok := r.Bench.Rates[s]; ok && number(v) {
					cell = fmt.Sprintf("%.1f%%", 100*v)
				}
			}
			row = append(row, cell)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	return nil
}

// percentCell writes m[key] as a whole percent, or "" when it is missing.
func percentCell(m map[string]metrics.Float, key string) string {
	if v, ok := m[key]; ok && number(v) {
		return fmt.Sprintf("%.0f%%", 100*v)
	}
	return ""
}

func keys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }

// number reports whether f is a number: not NaN, which a line's null reads as.
func number(f metrics.Float) bool { return !math.IsNaN(float64(f)) }
