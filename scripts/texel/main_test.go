package main

import (
	"bytes"
	"context"
	"encoding/json"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games/chess"
	"tabula/games/connect4"
	"tabula/internal/refdata/refdatatest"
	"tabula/match"
	"tabula/players"
	"tabula/uci"
)

// writeRecords plays n Connect Four games between a depth-2 alpha-beta
// player and random play and writes them as arena match -out does.
func writeRecords(t *testing.T, path string, n int) {
	t.Helper()
	specs, err := players.ParseSpecs("alphabeta:depth=2 random")
	if err != nil {
		t.Fatal(err)
	}
	fs, err := players.BuildAll(connect4.Game{}, specs)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	cfg := match.MatchConfig{Games: n, Parallel: 1, Seed: 3, RandomPlies: 2, Record: func(r match.GameRecord) error {
		return json.NewEncoder(&b).Encode(r)
	}}
	if _, err := match.Match(context.Background(), cfg, connect4.Game{}, fs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunWritesWeights fits Connect Four weights to recorded games and
// checks the Go source written, the report, and the errors for records of
// another game, an unknown game or term, and a missing file.
func TestRunWritesWeights(t *testing.T) {
	dir := t.TempDir()
	rec, out := filepath.Join(dir, "games.jsonl"), filepath.Join(dir, "tuned.go")
	writeRecords(t, rec, 40)
	var stdout bytes.Buffer
	src := fitSource(t, options{game: "connect4", records: rec, skip: 2, loss: "cross-entropy", l2: -1, out: out}, &stdout)
	if !strings.Contains(src, "var TunedWeights = [NumFeatures]float64{") {
		t.Errorf("generated source lacks TunedWeights:\n%s", src)
	}
	if !strings.Contains(stdout.String(), "40 games") {
		t.Errorf("report does not count 40 games:\n%s", stdout.String())
	}

	for _, c := range []struct {
		game, fix, want string
	}{
		{"chess", "", `a game of "connect4", want "chess"`},
		{"go", "", `-game "go"`},
		{"connect4", "nosuch", `no term name starts with "nosuch"`},
	} {
		err := run(options{game: c.game, records: rec, skip: 2, loss: "cross-entropy", l2: -1, fix: c.fix, out: ""}, &stdout)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("-game %s -fix %q: error %v, want one containing %q", c.game, c.fix, err, c.want)
		}
	}
	if err := run(options{game: "connect4", records: filepath.Join(dir, "missing.jsonl"), skip: 2, loss: "ce", l2: -1}, &stdout); err == nil {
		t.Error("a missing records file: no error")
	}
}

// TestEngineLabels labels chess positions with Stockfish's scores, checks the
// report and the label cache (reused without the engine, refused when damaged
// or of another depth), and refuses engine labels for a game without FEN.
func TestEngineLabels(t *testing.T) {
	sf := refdatatest.Program(t, "stockfish", "apt-get install stockfish")
	dir := t.TempDir()
	rec, cache := filepath.Join(dir, "chess.jsonl"), filepath.Join(dir, "labels.tsv")
	writeChessRecords(t, rec, 20)
	lab := &engineLabels{Program: sf, Depth: 3, Parallel: 2, Scale: 0.0058, Cache: cache}
	var stdout bytes.Buffer
	if err := run(options{game: "chess", records: rec, skip: 4, loss: "cross-entropy", l2: -1, fix: "", out: "", labels: lab}, &stdout); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"20 games", "score at depth 3", "K held at the labels' scale 0.0058", "held-out game results"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, stdout.String())
		}
	}
	labels, err := readLabels(cache, lab.header())
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) < 100 {
		t.Errorf("%d labels cached, want one a quiet position (100 or more)", len(labels))
	}
	// A second run finds every label in the cache: the engine is not started.
	noEngine := *lab
	noEngine.Program = filepath.Join(dir, filepath.Base(sf)) // not there
	if err := run(options{game: "chess", records: rec, skip: 4, loss: "cross-entropy", l2: -1, fix: "", out: "", labels: &noEngine}, &stdout); err != nil {
		t.Errorf("run from the cache: %v", err)
	}
	deeper := *lab
	deeper.Depth = 4
	if err := run(options{game: "chess", records: rec, skip: 4, loss: "cross-entropy", l2: -1, fix: "", out: "", labels: &deeper}, &stdout); err == nil || !strings.Contains(err.Error(), "another engine or depth") {
		t.Errorf("cache of depth 3 read for depth 4: error %v", err)
	}
	data, _ := os.ReadFile(cache)
	data[len(data)/2] ^= 1
	if err := os.WriteFile(cache, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(options{game: "chess", records: rec, skip: 4, loss: "cross-entropy", l2: -1, fix: "", out: "", labels: &noEngine}, &stdout); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("damaged cache: error %v", err)
	}
	c4 := filepath.Join(dir, "c4.jsonl")
	writeRecords(t, c4, 20)
	if err := run(options{game: "connect4", records: c4, skip: 2, loss: "cross-entropy", l2: -1, fix: "", out: "", labels: lab}, &stdout); err == nil || !strings.Contains(err.Error(), "chess only") {
		t.Errorf("engine labels for connect4: error %v", err)
	}
}

// TestEngineTarget checks the score-to-target mapping.
func TestEngineTarget(t *testing.T) {
	e := engineLabels{Scale: 0.01}
	for _, c := range []struct {
		sc   uci.Score
		want float64
	}{
		{uci.Score{Known: true, CP: 0}, 0.5},
		{uci.Score{Known: true, Mate: 3}, 1},
		{uci.Score{Known: true, Mate: -2}, 0},
		{uci.Score{Known: true, CP: 100}, 1 / (1 + math.Exp(-1))},
	} {
		if got := e.target(c.sc); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("target(%+v) = %v, want %v", c.sc, got, c.want)
		}
	}
}

// writeChessRecords plays n short chess games between depth-1 alpha-beta
// and random play.
func writeChessRecords(t *testing.T, path string, n int) {
	t.Helper()
	g := chess.Game{}
	fs, err := players.BuildAll(g, mustSpecs(t, "alphabeta:depth=1 random"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	cfg := match.MatchConfig{Games: n, Parallel: 1, Seed: 5, RandomPlies: 4, Record: func(r match.GameRecord) error {
		return json.NewEncoder(&b).Encode(r)
	}}
	if _, err := match.Match(context.Background(), cfg, g, fs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustSpecs(t *testing.T, s string) []players.Spec {
	t.Helper()
	specs, err := players.ParseSpecs(s)
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

// TestChessTables checks that the piece-square tables' features times the
// published tables give the offset they replace, on every quiet position of
// recorded games, and that a fit with -tables writes tables that compile as
// Go, while -tables for another game is refused.
func TestChessTables(t *testing.T) {
	dir := t.TempDir()
	rec, out := filepath.Join(dir, "chess.jsonl"), filepath.Join(dir, "tuned.go")
	writeChessRecords(t, rec, 20)
	plain, tables := chessTuner{}, chessTuner{tables: true}
	prior, names := tables.prior()
	if len(prior) != chess.NumTerms+768 || len(names) != len(prior) || names[tableTerm] != "table.mg.pawn.a8" || names[len(names)-1] != "table.eg.king.h1" {
		t.Fatalf("%d weights, names %q .. %q", len(prior), names[tableTerm], names[len(names)-1])
	}
	train, _, _, err := readSamples(plain, rec, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	train2, _, _, err := readSamples(tables, rec, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(train.rows) != len(train2.rows) || len(train.rows) < 100 {
		t.Fatalf("%d and %d positions", len(train.rows), len(train2.rows))
	}
	for i := range train.rows {
		a, b := train.rows[i].Eval(prior[:chess.NumTerms]), train2.rows[i].Eval(prior)
		if math.Abs(a-b) > 1e-6 {
			t.Fatalf("position %d: %v with the tables as offset, %v with them as features", i, a, b)
		}
	}
	var stdout bytes.Buffer
	src := fitSource(t, options{game: "chess", records: rec, skip: 4, loss: "ce", l2: 1e-4, out: out, tables: true}, &stdout)
	if !strings.Contains(src, "w.MGTable = [6][64]int{") || !strings.Contains(src, "w.EGTable = [6][64]int{") {
		t.Errorf("generated source lacks the tables:\n%s", src)
	}
	c4 := filepath.Join(dir, "c4.jsonl")
	writeRecords(t, c4, 20)
	if err := run(options{game: "connect4", records: c4, skip: 2, loss: "ce", l2: -1, tables: true}, &stdout); err == nil || !strings.Contains(err.Error(), "chess only") {
		t.Errorf("-tables for connect4: error %v", err)
	}
}

// TestQuiescenceLeaf checks -qleaf's sampling: a position where the mover
// wins a queen is scored from the leaf after the capture, for the mover,
// equal to the quiescence value; a quiet position is its own leaf; every
// position not in check of a game is used.
func TestQuiescenceLeaf(t *testing.T) {
	g := chess.Game{}
	prior, _ := chessTuner{}.prior()
	for _, c := range []struct {
		fen   string
		plies int
	}{
		{"4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", 1},
		{"4k3/8/8/3q4/8/8/4P3/4K3 w - - 0 1", 0},
	} {
		s, err := g.NewState(c.fen)
		if err != nil {
			t.Fatal(err)
		}
		v, leaf, plies := quiesce(s, -maxCP, maxCP, maxQuiescePlies)
		if plies != c.plies {
			lp := leaf.Position()
			t.Errorf("%s: leaf %d plies on (%s), want %d", c.fen, plies, lp.FEN(), c.plies)
		}
		r, ok := chessTuner{qleaf: true}.sample(s)
		if !ok {
			t.Fatalf("%s: not sampled", c.fen)
		}
		if got := r.Eval(prior); math.Abs(got-float64(v)) > 1 {
			t.Errorf("%s: the row scores %v, quiescence %d", c.fen, got, v)
		}
		if c.plies == 1 && v <= 0 {
			t.Errorf("%s: quiescence value %d, want > 0 (the queen taken; a queen down before)", c.fen, v)
		}
	}
	dir := t.TempDir()
	rec := filepath.Join(dir, "chess.jsonl")
	writeChessRecords(t, rec, 20)
	quiet, _, _, err := readSamples(chessTuner{}, rec, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	all, _, _, err := readSamples(chessTuner{qleaf: true}, rec, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.rows) <= len(quiet.rows) {
		t.Errorf("-qleaf used %d positions, the quiet filter %d: want more", len(all.rows), len(quiet.rows))
	}
}

// fitSource runs the fit o, which writes o.out, and returns the Go source
// written, failing the test unless it parses.
func fitSource(t *testing.T, o options, stdout *bytes.Buffer) string {
	t.Helper()
	if err := run(o, stdout); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(o.out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), o.out, src, 0); err != nil {
		t.Fatalf("generated source: %v\n%s", err, src)
	}
	return string(src)
}
