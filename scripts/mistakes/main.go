// Command mistakes breaks down the Connect Four mistakes that `arena bench`
// records (the JSON lines that scripts/evaluate-connect4.sh writes to
// RUN/eval/bench-SET-PLAYER.jsonl) by the best outcome of each position: how
// often a player errs where the best move wins, where it only draws, and how
// many of the runs given miss the same positions.
//
//	go run ./scripts/mistakes [-player net] [-sets Test_L1_R2,Test_L2_R2] RUN...
//
// Every run must have benched the same positions of a set (the same N).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"tabula/bench"
)

func main() {
	player := flag.String("player", "net", "the player part of the file name: net, net-solver0, alphabeta")
	sets := flag.String("sets", "Test_L1_R2,Test_L1_R3,Test_L2_R2", "comma-separated Pons sets")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: mistakes [-player P] [-sets S1,S2] RUN_OR_EVAL_DIR...")
		os.Exit(2)
	}
	if err := run(os.Stdout, *player, strings.Split(*sets, ","), flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "mistakes:", err)
		os.Exit(1)
	}
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

func read(name string) ([]bench.BenchRecord, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []bench.BenchRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var r bench.BenchRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if bench.BestOutcome(r.Outcomes) < -1 {
			return nil, fmt.Errorf("%s:%d: position %s: no legal column in its outcomes", name, line, r.Position)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

var outcomeName = map[int]string{1: "win", 0: "draw", -1: "loss"}

func run(w io.Writer, player string, sets, runs []string) error {
	for _, set := range sets {
		var positions []string              // the set's positions, in the first run's order
		bestOf := map[string]int{}          // position -> best outcome
		missed := map[string]int{}          // position -> runs that erred on it
		perRun := make([][3]int, len(runs)) // run -> mistakes by best outcome (+1 index)
		for i, r := range runs {
			name := filepath.Join(r, "eval", "bench-"+set+"-"+player+".jsonl")
			// r may be the evaluation folder itself (evaluate-connect4.sh's OUT).
			if alt := filepath.Join(r, "bench-"+set+"-"+player+".jsonl"); !fileExists(name) && fileExists(alt) {
				name = alt
			}
			recs, err := read(name)
			if err != nil {
				return err
			}
			if i == 0 {
				for _, rec := range recs {
					positions = append(positions, rec.Position)
					bestOf[rec.Position] = bench.BestOutcome(rec.Outcomes)
				}
			} else if len(recs) != len(positions) {
				return fmt.Errorf("%s: %d positions, %s has %d", name, len(recs), runs[0], len(positions))
			}
			for _, rec := range recs {
				if _, ok := bestOf[rec.Position]; !ok {
					return fmt.Errorf("%s: position %s is not in %s's bench", name, rec.Position, runs[0])
				}
				if rec.Mistake {
					missed[rec.Position]++
					perRun[i][bench.BestOutcome(rec.Outcomes)+1]++
				}
			}
		}
		var count [3]int
		for _, p := range positions {
			count[bestOf[p]+1]++
		}
		fmt.Fprintf(w, "%s (%s, %d positions: best move wins %d, draws %d, loses %d)\n",
			set, player, len(positions), count[2], count[1], count[0])
		fmt.Fprintf(w, "| run | mistakes | where the best wins | where the best draws | where all lose |\n|---|---|---|---|---|\n")
		var sum [3]int
		for i, r := range runs {
			m := perRun[i]
			fmt.Fprintf(w, "| %s | %d (%.1f%%) | %s | %s | %s |\n", r, m[0]+m[1]+m[2],
				pct(m[0]+m[1]+m[2], len(positions)), rate(m[2], count[2]), rate(m[1], count[1]), rate(m[0], count[0]))
			for k := range sum {
				sum[k] += m[k]
			}
		}
		n := len(runs)
		fmt.Fprintf(w, "| mean of %d | %.1f (%.1f%%) | %.1f%% | %.1f%% | %.1f%% |\n", n,
			float64(sum[0]+sum[1]+sum[2])/float64(n), pct(sum[0]+sum[1]+sum[2], n*len(positions)),
			pct(sum[2], n*count[2]), pct(sum[1], n*count[1]), pct(sum[0], n*count[0]))
		hist := make([]int, n+1)
		for _, k := range missed {
			hist[k]++
		}
		var parts []string
		for k := 1; k <= n; k++ {
			parts = append(parts, fmt.Sprintf("%d: %d", k, hist[k]))
		}
		fmt.Fprintf(w, "positions missed by k of the %d runs: %s (%d distinct)\n", n, strings.Join(parts, ", "), len(missed))
		var always []string
		for _, p := range positions {
			if missed[p] == n {
				always = append(always, fmt.Sprintf("%s (%s)", p, outcomeName[bestOf[p]]))
			}
		}
		slices.Sort(always)
		if len(always) > 0 {
			fmt.Fprintf(w, "missed by every run: %s\n", strings.Join(always, ", "))
		}
		fmt.Fprintln(w)
	}
	return nil
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func rate(a, b int) string {
	return fmt.Sprintf("%d of %d (%.1f%%)", a, b, pct(a, b))
}
