package pipeline

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"

	"tabula/games"
	"tabula/internal/metrics"
)

// Summary describes where the run stands, for the end of cmd/train: the
// best checkpoint, its last ladder rating, and the commands to evaluate it,
// play it and extend the run.
func (t *Trainer) Summary() string {
	var b strings.Builder
	best := t.best()
	weights := t.dir.path(checkpointDir, bestWeightsFile)
	fmt.Fprintf(&b, "run %s: %d iterations done", t.cfg.RunDir, t.iter)
	if t.cfg.Iterations > 0 && t.iter >= t.cfg.Iterations {
		fmt.Fprintf(&b, " (finished: iterations = %d)", t.cfg.Iterations)
	}
	fmt.Fprintf(&b, "\nbest checkpoint: %s\n", best)
	if _, err := os.Stat(weights); err == nil {
		fmt.Fprintf(&b, "  weights only (for play and export): %s\n", weights)
	} else {
		weights = best
	}
	if l := lastLadder(t.dir.path(metricsFile)); l != "" {
		fmt.Fprintf(&b, "last ladder: %s\n", l)
	}
	if c := cpuShares(t.dir.path(metricsFile)); c != "" {
		fmt.Fprintf(&b, "CPU: %s\n", c)
	}
	game := shellQuote(t.g.Name())
	player := "net:path=" + specValue(weights)
	opponent := "mcts:rollouts=1000"
	extra := ""
	switch {
	case games.HasChance(t.g):
		opponent = "pubeval" // random rollouts say little in backgammon; pubeval is its benchmark
	case games.RulesName(t.g) == "chess":
		// Random chess rollouts run to the 50-move rule; alpha-beta is the
		// yardstick, from the paired openings (scripts/evaluate-chess.sh).
		opponent, extra = "alphabeta:depth=2", " -openings data/chess/openings.txt"
	}
	fmt.Fprintf(&b, "evaluate: go run ./cmd/arena match -game %s -players %s -games 100%s\n",
		game, shellQuote(player+",sims=200 "+opponent), extra)
	fmt.Fprintf(&b, "play:     go run ./cmd/play -game %s -player %s\n", game, shellQuote(player))
	if t.cfg.Iterations == 0 {
		fmt.Fprintf(&b, "to train further: run the same train command again: it resumes here, and each start gets the whole duration (%v) again\n", t.cfg.Duration)
	} else {
		fmt.Fprintf(&b, "to train further: %s (duration counts per process: each start gets it again)\n",
			trainFurther(t.iter, t.cfg.Iterations))
	}
	return b.String()
}

// trainFurther says how to train a run that has done done iterations for
// more more: iterations is the total to reach, not a number to add.
func trainFurther(done, more int) string {
	return fmt.Sprintf("run the same train command with -set iterations=%d (the total to reach: %d more), "+
		"or with -set iterations=0 -set duration=1h (an hour more)", done+more, more)
}

// lastLadder describes the last ladder result in metrics.jsonl, or "".
func lastLadder(path string) string {
	last := readLastLadder(path)
	if last.Ladder == nil || len(last.Ladder.Players) == 0 {
		return ""
	}
	l := last.Ladder
	s := fmt.Sprintf("iteration %d rated %s", last.Iteration, last.Best)
	num := func(v []metrics.Float) string {
		if len(v) == 0 || math.IsNaN(float64(v[0])) {
			return "?"
		}
		return fmt.Sprintf("%.0f", v[0])
	}
	if len(l.Elo) > 0 {
		s += fmt.Sprintf(": Elo %s [%s, %s] (%s = 0)", num(l.Elo), num(l.Low), num(l.High), l.Players[min(1, len(l.Players)-1)])
	}
	s += "; scores " + scoreList(l.Players[1:], l.Scores)
	if l.ScoreLabel() == "points" {
		s += " (shares of the points; of the games: " + scoreList(l.Players[1:], l.GameScores) + ")"
	}
	return s
}

// cpuShares sums the cpu sections of metrics.jsonl (every process of the
// run) and describes the shares of self-play, training and the rest, or ""
// when no line has the section.
func cpuShares(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var proc, sp, train float64
	threads := true
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec metrics.Record
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.CPU == nil {
			continue
		}
		proc += float64(rec.CPU.ProcessS)
		if rec.CPU.SelfPlayS == nil || rec.CPU.TrainS == nil {
			threads = false
			continue
		}
		sp += float64(*rec.CPU.SelfPlayS)
		train += float64(*rec.CPU.TrainS)
	}
	if proc <= 0 {
		return ""
	}
	s := fmt.Sprintf("%.0f s in the trainer's process", proc)
	if threads {
		s += fmt.Sprintf(": self-play %.0f%%, training %.0f%%, the rest (gating, ladder, bench, ingest, runtime) %.0f%%",
			100*sp/proc, 100*train/proc, 100*math.Max(0, proc-sp-train)/proc)
	}
	return s
}

// specValue quotes a player-spec value that holds spaces, commas, '=' or
// quotes (the spec syntax's double quotes).
func specValue(v string) string {
	if !strings.ContainsAny(v, " ,=\"\\") {
		return v
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// shellQuote quotes s for a POSIX shell where it needs it.
func shellQuote(s string) string {
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,+@%", r)) {
			safe = false
			break
		}
	}
	if safe && s != "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
