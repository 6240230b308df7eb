// Command texel fits an evaluation's weights to the results of games by
// Texel's tuning method (internal/fit): it reads game records written by
// `arena match -out`, takes the quiet positions of each game labelled with
// the game's result, fits the scale K with the hand weights, then the
// weights with an L2 pull towards the hand weights, and writes them as Go
// source that the game's package compiles in (the `eval=tuned` switch of
// the alphabeta player).
//
//	arena match -game chess -players "alphabeta:depth=3 alphabeta:depth=3" \
//	    -openings data/chess/openings.txt -random-plies 8 -games 2000 -out runs/texel/chess.jsonl
//	go run ./scripts/texel -game chess -records runs/texel/chess.jsonl -out games/chess/tuned.go
//
// Every tenth game is held out: the report gives the loss of the hand and
// the fitted weights on those games' positions, which the fit never saw.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io"
	"log"
	"math"
	"os"
	"slices"
	"strings"

	"tabula/games"
	_ "tabula/games/all"
	"tabula/internal/atomicfile"
	"tabula/internal/fit"
	"tabula/match"
)

func main() {
	gameName := flag.String("game", "chess", "game whose evaluation is fitted: "+strings.Join(tunerNames(), ", "))
	records := flag.String("records", "", "game records, one JSON line each, as `arena match -out` writes them (required)")
	skip := flag.Int("skip", 12, "plies skipped at the start of every game (the opening line and random plies)")
	lossName := flag.String("loss", "cross-entropy", "objective: cross-entropy or mse")
	l2 := flag.Float64("l2", -1, "L2 penalty per squared unit of distance from the hand weights (default: the game's: chess 1e-5, connect4 1e-5, othello 1e-4)")
	out := flag.String("out", "", "write the fitted weights as Go source to this file")
	fix := flag.String("fix", "", "comma-separated prefixes of term names held at their hand values, e.g. mobility,tempo")
	engine := flag.String("label-engine", "", "chess only: label each position with this UCI engine's score (e.g. stockfish) instead of its game's result")
	depth := flag.Int("label-depth", 8, "search depth of each engine label")
	scale := flag.Float64("label-scale", math.Ln10/400, "an engine score of x centipawns is the target sigmoid(scale*x)")
	cache := flag.String("labels", "", "file keeping the engine's labels between runs (read if there, rewritten with new ones)")
	parallel := flag.Int("parallel", 2, "engine processes labelling at once")
	tables := flag.Bool("tables", false, "chess only: fit the piece-square tables too (768 more weights)")
	qleaf := flag.Bool("qleaf", false, "chess only: use every position not in check, with the features of its quiescence search's leaf")
	flag.Parse()
	o := options{game: *gameName, records: *records, skip: *skip, loss: *lossName, l2: *l2, fix: *fix, out: *out, tables: *tables, qleaf: *qleaf}
	if *engine != "" {
		o.labels = &engineLabels{Program: *engine, Depth: *depth, Parallel: *parallel, Scale: *scale, Cache: *cache, Progress: os.Stderr}
	}
	if err := run(o, os.Stdout); err != nil {
		log.Fatal("texel: ", err)
	}
}

// options are the command's flags.
type options struct {
	game, records string
	skip          int
	loss          string
	l2            float64
	fix, out      string
	// tables fits chess's piece-square tables too; qleaf samples chess
	// positions at their quiescence leaves.
	tables, qleaf bool
	// labels, if not nil, labels positions with an engine's scores.
	labels *engineLabels
}

// tuner is what the script needs of a game's evaluation.
type tuner interface {
	// game is the game the records must be of.
	game() games.Game
	// prior returns the hand weights and their names.
	prior() (w []float64, names []string)
	// sample returns the features of s for the player to move, with the
	// fixed part of its evaluation, or ok=false when s is not used (not
	// quiet, or over).
	sample(s games.State) (r fit.Row, ok bool)
	// source returns the Go file holding the fitted weights w, in the hand
	// weights' units, with the fitted scale k; note is a comment on where
	// they come from.
	source(w []float64, k float64, note string) ([]byte, error)
	// kRange bounds the search for K, in the evaluation's units.
	kRange() (lo, hi float64)
	// l2 is the default L2 penalty, for the scale of the hand weights.
	l2() float64
}

var tuners = map[string]func() tuner{
	"chess":    func() tuner { return chessTuner{} },
	"connect4": func() tuner { return connect4Tuner{} },
	"othello":  func() tuner { return newOthelloTuner() },
}

func tunerNames() []string {
	var n []string
	for k := range tuners {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

func run(o options, stdout io.Writer) error {
	gameName, records, skip, lossName, l2, fix, out, lab := o.game, o.records, o.skip, o.loss, o.l2, o.fix, o.out, o.labels
	mk, ok := tuners[gameName]
	if !ok {
		return fmt.Errorf("-game %q: want one of %s", gameName, strings.Join(tunerNames(), ", "))
	}
	if records == "" {
		return errors.New("-records is required")
	}
	if skip < 0 {
		return fmt.Errorf("-skip %d: want >= 0", skip)
	}
	loss, err := fit.ParseLoss(lossName)
	if err != nil {
		return fmt.Errorf("-loss: %w", err)
	}
	t := mk()
	if o.tables || o.qleaf {
		ct, ok := t.(chessTuner)
		if !ok {
			return fmt.Errorf("-tables and -qleaf: %s is not chess (chess only)", gameName)
		}
		ct.tables, ct.qleaf = o.tables, o.qleaf
		t = ct
	}
	if l2 == -1 {
		l2 = t.l2()
	}
	if l2 < 0 {
		return fmt.Errorf("-l2 %v: want >= 0", l2)
	}
	if lab != nil && !(lab.Scale > 0) {
		return fmt.Errorf("-label-scale %v: want > 0", lab.Scale)
	}
	train, test, nGames, err := readSamples(t, records, skip, lab != nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d games, %d positions for the fit, %d held out (every tenth game)\n", nGames, len(train.rows), len(test.rows))
	// byResult keeps the held-out positions labelled by their games' results,
	// which an engine-labelled fit is also scored on.
	var byResult []fit.Row
	if lab != nil {
		byResult = slices.Clone(test.rows)
		all := append(slices.Clone(train.fens), test.fens...)
		labels, err := lab.label(context.Background(), all)
		if err != nil {
			return err
		}
		for _, set := range []*samples{&train, &test} {
			for i, f := range set.fens {
				set.rows[i].Y = lab.target(labels[f])
			}
		}
		fmt.Fprintf(stdout, "labels: %s's score at depth %d, target sigmoid(%g * cp)\n", lab.Program, lab.Depth, lab.Scale)
	}
	hand, names := t.prior()
	lo, hi := t.kRange()
	k, err := fit.FitK(train.rows, hand, loss, lo, hi)
	if err != nil {
		return err
	}
	// kHand is the scale that suits the hand weights best; the fit holds
	// K at it, so that the fitted weights keep the hand weights' units.
	// With engine labels K is the labels' own scale instead, so that the
	// fitted evaluation estimates the engine's centipawns: a scale fitted
	// to the noisier hand evaluation is too small for a better one, and
	// the weights would grow to make up for it.
	kHand := k
	if lab != nil {
		k = lab.Scale
		fmt.Fprintf(stdout, "K held at the labels' scale %.6g (the hand weights' best K: %.6g)\n", k, kHand)
	}
	var fixed []bool
	if fix != "" {
		fixed = make([]bool, len(names))
		for _, p := range strings.Split(fix, ",") {
			n := 0
			for i, name := range names {
				if strings.HasPrefix(name, p) {
					fixed[i] = true
					n++
				}
			}
			if n == 0 {
				return fmt.Errorf("-fix %q: no term name starts with %q; terms: %s", fix, p, strings.Join(names, " "))
			}
		}
	}
	res, err := fit.Fit(train.rows, hand, k, fit.Config{Loss: loss, L2: l2, Prior: hand, Fixed: fixed})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "K = %.6g per unit; %s: train hand %.5f fitted %.5f; held out hand %.5f fitted %.5f (%d Newton iterations)\n",
		k, loss, fit.Mean(train.rows, hand, kHand, loss), res.Loss, fit.Mean(test.rows, hand, kHand, loss), fit.Mean(test.rows, res.W, k, loss), res.Iters)
	var resultNote string
	if lab != nil {
		// How well each predicts the held-out games' results, at the scale
		// that suits it best there.
		kh, err1 := fit.FitK(byResult, hand, loss, lo, hi)
		kf, err2 := fit.FitK(byResult, res.W, loss, lo, hi)
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		resultNote = fmt.Sprintf("held-out game results, %s at each one's best K: hand %.5f, fitted %.5f", loss, fit.Mean(byResult, hand, kh, loss), fit.Mean(byResult, res.W, kf, loss))
		fmt.Fprintln(stdout, resultNote)
	}
	fmt.Fprintf(stdout, "%-24s %8s %8s\n", "term", "hand", "fitted")
	for i, n := range names {
		fmt.Fprintf(stdout, "%-24s %8.3g %8.3g\n", n, hand[i], res.W[i])
	}
	if out == "" {
		return nil
	}
	if fix != "" {
		lossName += ", fixed: " + fix
	}
	labelNote := "game results"
	if lab != nil {
		labelNote = fmt.Sprintf("%s's scores at depth %d (target sigmoid(%g * cp))", lab.Program, lab.Depth, lab.Scale)
	}
	note := fmt.Sprintf("Fitted by scripts/texel (%s, L2 %g, K %.6g) to %s\non %d positions of %d games from %s;\nheld-out %s: hand %.5f, fitted %.5f.",
		lossName, l2, k, labelNote, len(train.rows), nGames, records, loss, fit.Mean(test.rows, hand, kHand, loss), fit.Mean(test.rows, res.W, k, loss))
	if resultNote != "" {
		note += "\n" + resultNote + "."
	}
	src, err := t.source(res.W, k, note)
	if err != nil {
		return err
	}
	if src, err = format.Source(src); err != nil {
		return fmt.Errorf("generated source: %w", err)
	}
	return atomicfile.Write(out, src)
}

// samples are fit rows, with each one's FEN when engine labels are wanted.
type samples struct {
	rows []fit.Row
	fens []string
}

func (s *samples) add(r fit.Row, fen string, withFEN bool) {
	s.rows = append(s.rows, r)
	if withFEN {
		s.fens = append(s.fens, fen)
	}
}

// readSamples replays every record and returns the samples the tuner takes
// of its positions after the first skip plies, every tenth game's in test,
// each labelled with its game's result; withFEN keeps each one's FEN.
func readSamples(t tuner, path string, skip int, withFEN bool) (train, test samples, nGames int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return train, test, 0, err
	}
	defer f.Close()
	g := t.game()
	if withFEN {
		if _, ok := fenOf(g.NewInitialState()); !ok {
			return train, test, 0, fmt.Errorf("engine labels: %s positions have no FEN for a UCI engine (chess only)", g.Name())
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var rec match.GameRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return train, test, 0, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		if rec.Game != g.Name() {
			return train, test, 0, fmt.Errorf("%s line %d: a game of %q, want %q", path, line, rec.Game, g.Name())
		}
		if rec.Forfeit != nil {
			continue
		}
		actions, err := g.(games.Notation).ParseActions(rec.Moves)
		if err != nil {
			return train, test, 0, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		// The first mover's score in [0, 1].
		first := (rec.Result[0] - rec.Result[1] + 2) / 4
		s := g.NewInitialState()
		for ply, a := range actions {
			if ply >= skip {
				if r, ok := t.sample(s); ok {
					r.Y = first
					if s.CurrentPlayer() != 0 {
						r.Y = 1 - first
					}
					var fen string
					if withFEN {
						fen, _ = fenOf(s)
					}
					if nGames%10 == 9 {
						test.add(r, fen, withFEN)
					} else {
						train.add(r, fen, withFEN)
					}
				}
			}
			if err := games.Play(s, a); err != nil {
				return train, test, 0, fmt.Errorf("%s line %d, ply %d: %w", path, line, ply+1, err)
			}
		}
		nGames++
	}
	if err := sc.Err(); err != nil {
		return train, test, 0, fmt.Errorf("%s: %w", path, err)
	}
	if len(train.rows) == 0 || len(test.rows) == 0 {
		return train, test, 0, fmt.Errorf("%s: %d games gave %d positions for the fit and %d held out; want some of each (ten games or more)", path, nGames, len(train.rows), len(test.rows))
	}
	return train, test, nGames, nil
}

// sparse returns a row of the nonzero entries of f.
func sparse(f []float64, offset float64) fit.Row {
	r := fit.Row{Offset: offset}
	for i, x := range f {
		if x != 0 {
			r.Idx = append(r.Idx, int32(i))
			r.Val = append(r.Val, x)
		}
	}
	return r
}
