package main

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/connect4"
	"tabula/nn"
	"tabula/players"
	"tabula/search/book"
	"tabula/search/c4solver"
)

// c4Root is a position of 20 stones from the held-out set
// (data/connect4/heldout), cheap to solve around, so that books a few
// plies deep from it build in a second or two.
const c4Root = "43444333262146633466"

func testSolveOptions(t *testing.T, plies int) solveOptions {
	return solveOptions{plies: plies, roots: []string{c4Root}, parallel: 2, tableLog2: 16,
		checkpoint: filepath.Join(t.TempDir(), "c4.solved")}
}

func mustSolve(t *testing.T, opts solveOptions) (*book.GameBook, solveStats) {
	t.Helper()
	b, st, err := solveBook(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return b, st
}

// bookPositions returns every position within plies of root that is not
// over, one per mirror pair, by a plain search of the tree.
func bookPositions(t *testing.T, root string, plies int) []*connect4.State {
	t.Helper()
	st, _, _, err := c4solver.ParsePosition(root)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	var out []*connect4.State
	var walk func(s *connect4.State, d int)
	walk = func(s *connect4.State, d int) {
		if s.IsTerminal() || d > plies {
			return
		}
		if k, _ := book.CanonicalKey(connect4.Game{}, s); !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
		for _, a := range s.LegalActions(nil) {
			c := *s
			c.ApplyAction(a)
			walk(&c, d+1)
		}
	}
	walk(st, 0)
	return out
}

// bestMoves returns the columns of s of the best exact score.
func bestMoves(sv *c4solver.Solver, s *connect4.State) (scores [connect4.Width]int, best map[int]bool) {
	scores = sv.ScoreMoves(s)
	top := c4solver.Invalid
	for _, v := range scores {
		top = max(top, v)
	}
	best = map[int]bool{}
	for a, v := range scores {
		if v == top && v != c4solver.Invalid {
			best[a] = true
		}
	}
	return scores, best
}

// TestSolveBookExact builds a book 2 plies deep from c4Root and checks it
// against the solver: it holds exactly the positions within 2 plies (one
// entry per legal move of each, mirror images sharing one) and every
// move's value is the solver's exact score of that move, flagged exact.
// Built from the root and its mirror image together it is the same book
// (the mirror merged), and a -weak book holds the outcomes.
func TestSolveBookExact(t *testing.T) {
	const plies = 2
	b, st := mustSolve(t, testSolveOptions(t, plies))
	sv, err := c4solver.New(20)
	if err != nil {
		t.Fatal(err)
	}
	g := connect4.Game{}
	positions := bookPositions(t, c4Root, plies)
	total, entries := 0, 0
	for _, n := range st.perPly {
		total += n
	}
	if total != len(positions) || len(st.perPly) != plies+1 || st.perPly[0] != 1 {
		t.Fatalf("book positions by ply %v, want %d in all from one root", st.perPly, len(positions))
	}
	if st.leaves == 0 || st.solvedNow != st.leaves {
		t.Fatalf("%d leaves, %d solved", st.leaves, st.solvedNow)
	}
	distance := false
	for _, s := range positions {
		scores, _ := bestMoves(sv, s)
		moves := b.Moves(g, s)
		legal := s.LegalActions(nil)
		entries += len(legal)
		if len(moves) != len(legal) {
			t.Fatalf("position %v: %d book moves, want %d", s, len(moves), len(legal))
		}
		wins := map[int]bool{}
		for _, m := range moves {
			want := float64(exactValue(scores[m.Action], false))
			if m.Value != want || !m.Exact || m.Deviation || m.Count != 0 {
				t.Errorf("position %v move %d: %+v, want the exact value %v of score %d", s, m.Action, m, want, scores[m.Action])
			}
			if scores[m.Action] > 0 {
				wins[scores[m.Action]] = true
			}
		}
		distance = distance || len(wins) > 1
	}
	if b.Len() != entries || st.entries != entries {
		t.Errorf("book of %d entries (stats %d), want %d: one per legal move of each position", b.Len(), st.entries, entries)
	}
	if !distance {
		t.Error("no position with wins of different lengths: the test does not show the book telling them apart")
	}

	// The root and its mirror: one book.
	root, _, _, _ := c4solver.ParsePosition(c4Root)
	mirror := g.TransformState(1, root).(*connect4.State)
	var mirrorMoves strings.Builder
	for _, c := range c4Root {
		mirrorMoves.WriteByte(byte('1' + '7' - c))
	}
	if m, _, _, err := c4solver.ParsePosition(mirrorMoves.String()); err != nil || m.Hash() != mirror.Hash() {
		t.Fatalf("mirror line %s: %v", mirrorMoves.String(), err)
	}
	opts := testSolveOptions(t, plies)
	opts.roots = []string{c4Root, mirrorMoves.String()}
	b2, st2 := mustSolve(t, opts)
	if !bytes.Equal(b.Marshal(), b2.Marshal()) || st2.leaves != st.leaves {
		t.Errorf("from the root and its mirror: %d entries, %d leaves; want the same book as from the root (%d, %d)", b2.Len(), st2.leaves, b.Len(), st.leaves)
	}

	// -weak: outcomes.
	opts = testSolveOptions(t, 1)
	opts.weak = true
	wb, _ := mustSolve(t, opts)
	for _, s := range bookPositions(t, c4Root, 1) {
		scores := sv.ScoreMoves(s)
		for _, m := range wb.Moves(g, s) {
			want := float64(max(-1, min(1, scores[m.Action])))
			if m.Value != want {
				t.Errorf("weak book, position %v move %d: %v, want the outcome %v", s, m.Action, m.Value, want)
			}
		}
	}
}

// TestSolveBookResume stops a build after 30 leaves (-max-solve), then
// interrupts the next at once (a cancelled context, as on Ctrl-C); both
// save the checkpoint. The third run continues from it and writes the
// same book, byte for byte, as an uninterrupted build.
func TestSolveBookResume(t *testing.T) {
	const plies = 2
	whole, wst := mustSolve(t, solveOptions{plies: plies, roots: []string{c4Root}, parallel: 1, tableLog2: 16})
	opts := testSolveOptions(t, plies)
	opts.maxSolve = 30
	if _, _, err := solveBook(context.Background(), opts); !errors.Is(err, errStopped) || !strings.Contains(err.Error(), "run the same command again") {
		t.Fatalf("-max-solve 30: %v, want stopped", err)
	}
	ck, err := loadCheckpoint(opts.checkpoint, false)
	if err != nil || len(ck) != 30 {
		t.Fatalf("checkpoint after -max-solve 30: %d positions, %v", len(ck), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opts.maxSolve = 0
	if _, _, err := solveBook(ctx, opts); !errors.Is(err, errStopped) || !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("cancelled: %v, want stopped", err)
	}
	if ck, err = loadCheckpoint(opts.checkpoint, false); err != nil || len(ck) < 30 {
		t.Fatalf("checkpoint after the interrupt: %d positions, %v", len(ck), err)
	}
	resumed, st := mustSolve(t, opts)
	if st.fromCkpt != len(ck) || st.solvedNow != wst.leaves-len(ck) {
		t.Errorf("resumed: %d from the checkpoint, %d solved; want %d and %d", st.fromCkpt, st.solvedNow, len(ck), wst.leaves-len(ck))
	}
	if !bytes.Equal(whole.Marshal(), resumed.Marshal()) {
		t.Error("the resumed build's book differs from the uninterrupted build's")
	}
	// Done: a rerun solves nothing.
	if _, st := mustSolve(t, opts); st.solvedNow != 0 || st.fromCkpt != wst.leaves {
		t.Errorf("rerun: %d solved, %d from the checkpoint; want 0 and %d", st.solvedNow, st.fromCkpt, wst.leaves)
	}
}

// TestSolveBookPlayers writes a book 2 plies deep from c4Root and plays
// every position of it with alphabeta (depth 1), the solver and an
// untrained network, each with book=: all play a move of the best exact
// score (the fastest win) with no node searched (the network: no search
// policy). Outside the book they search.
func TestSolveBookPlayers(t *testing.T) {
	const plies = 2
	dir := t.TempDir()
	out := filepath.Join(dir, "c4.book")
	opts := testSolveOptions(t, plies)
	if err := runSolve(context.Background(), out, opts); err != nil {
		t.Fatal(err)
	}
	g := connect4.Game{}
	sv, err := c4solver.New(20)
	if err != nil {
		t.Fatal(err)
	}
	ab := buildPlayer(t, g, `alphabeta:depth=1,book="`+out+`"`)
	solver := buildPlayer(t, g, `solver:tt=16,book="`+out+`"`)
	net := buildPlayer(t, g, `net:sims=4,path="`+untrainedC4Net(t)+`",book="`+out+`"`)
	type noder interface{ Nodes() uint64 }
	ctx := context.Background()
	var outside []*connect4.State
	for _, s := range bookPositions(t, c4Root, plies) {
		_, best := bestMoves(sv, s)
		a, err := ab.ChooseAction(ctx, s.Clone())
		if err != nil {
			t.Fatal(err)
		}
		if n := ab.(players.SearchReporter).LastSearch().Nodes; !best[a] || n != 0 {
			t.Errorf("alphabeta with the book at %v: column %d after %d nodes, want one of %v without a search", s, a, n, best)
		}
		a, err = solver.ChooseAction(ctx, s.Clone())
		if err != nil {
			t.Fatal(err)
		}
		if n := solver.(noder).Nodes(); !best[a] || n != 0 {
			t.Errorf("solver with the book at %v: column %d after %d nodes, want one of %v without a search", s, a, n, best)
		}
		a, err = net.ChooseAction(ctx, s.Clone())
		if err != nil {
			t.Fatal(err)
		}
		if pol := net.(players.Analyzer).LastPolicy(); !best[a] || pol != nil {
			t.Errorf("net with the book at %v: column %d (search policy %v), want one of %v without a search", s, a, pol, best)
		}
		if len(outside) == 0 {
			for _, c := range s.LegalActions(nil) {
				next := *s
				next.ApplyAction(c)
				if !next.IsTerminal() && len(b0(t, out).Moves(g, &next)) == 0 {
					outside = append(outside, &next)
					break
				}
			}
		}
	}
	if len(outside) == 0 {
		t.Fatal("no position just outside the book")
	}
	if _, err := ab.ChooseAction(ctx, outside[0]); err != nil || ab.(players.SearchReporter).LastSearch().Nodes == 0 {
		t.Errorf("alphabeta outside the book: %v, %d nodes; want a search", err, ab.(players.SearchReporter).LastSearch().Nodes)
	}
	if _, err := solver.ChooseAction(ctx, outside[0]); err != nil || solver.(noder).Nodes() == 0 {
		t.Errorf("solver outside the book: %v, %d nodes; want a search", err, solver.(noder).Nodes())
	}
	if _, err := net.ChooseAction(ctx, outside[0]); err != nil || net.(players.Analyzer).LastPolicy() == nil {
		t.Errorf("net outside the book: %v, policy %v; want a search", err, net.(players.Analyzer).LastPolicy())
	}
}

// untrainedC4Net writes a small untrained Connect Four network.
func untrainedC4Net(t *testing.T) string {
	t.Helper()
	g := connect4.Game{}
	p, h, w := g.ObservationShape()
	wts, err := nn.NewWeights(nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8},
		nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "untrained.tbn")
	if err := nn.SaveCheckpoint(path, &nn.Checkpoint{Game: g.Name(), Weights: wts}); err != nil {
		t.Fatal(err)
	}
	return path
}

// b0 loads the book at path.
func b0(t *testing.T, path string) *book.GameBook {
	t.Helper()
	b, err := book.LoadGameBook(path, connect4.Game{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func buildPlayer(t *testing.T, g games.Game, spec string) players.Player {
	t.Helper()
	f, err := buildFactory(g, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	p, err := f.New(rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func buildFactory(g games.Game, spec string) (*players.Factory, error) {
	sp, err := players.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return players.Build(g, sp)
}

// TestSolveBookRefuses: a corrupted book, a book of another game and a
// book for the Othello solver are refused by the players with errors
// saying why; so are a corrupted checkpoint, a checkpoint of the other
// mode, a file that is no checkpoint, bad roots, files in missing
// folders (before any solving) and -solve for a game without a solver.
func TestSolveBookRefuses(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "c4.book")
	opts := testSolveOptions(t, 0)
	if err := runSolve(context.Background(), out, opts); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.book")
	corrupt := bytes.Clone(data)
	corrupt[len(corrupt)/2] ^= 0x40
	if err := os.WriteFile(bad, corrupt, 0o644); err != nil {
		t.Fatal(err)
	}
	ttt := filepath.Join(dir, "ttt.book")
	if err := book.NewGameBook(mustGame(t, "tictactoe"), []book.GameEntry{{Key: 1, Action: 4, Value: 1}}).WriteFile(ttt); err != nil {
		t.Fatal(err)
	}
	c4, oth := mustGame(t, "connect4"), mustGame(t, "othello")
	for _, tc := range []struct {
		g          games.Game
		spec, want string
	}{
		{c4, `solver:book="` + bad + `"`, "checksum"},
		{c4, `alphabeta:book="` + bad + `"`, "checksum"},
		{c4, `solver:book="` + ttt + `"`, "a book of tictactoe, not of connect4"},
		{c4, `alphabeta:book="` + ttt + `"`, "a book of tictactoe, not of connect4"},
		{c4, `solver:book="` + filepath.Join(dir, "missing.book") + `"`, "no such file"},
		{c4, `solver:book_margin=0.1`, "book_margin needs book=FILE"},
		{oth, `solver:book="` + out + `"`, "book= is for the Connect Four solver"},
	} {
		if _, err := buildFactory(tc.g, tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s for %s: %v, want an error saying %q", tc.spec, tc.g.Name(), err, tc.want)
		}
	}
	if _, err := buildFactory(c4, `solver:book="`+out+`"`); err != nil {
		t.Errorf("the good book: %v", err)
	}

	ck, err := os.ReadFile(opts.checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	ck[len(ck)-6] ^= 1
	badCk := filepath.Join(dir, "bad.solved")
	if err := os.WriteFile(badCk, ck, 0o644); err != nil {
		t.Fatal(err)
	}
	weak := opts
	weak.weak = true
	for _, tc := range []struct {
		opts solveOptions
		want string
	}{
		{func() solveOptions { o := opts; o.checkpoint = badCk; return o }(), "checksum"},
		{func() solveOptions { o := opts; o.checkpoint = out; return o }(), "not a checkpoint"},
		{weak, "holds exact scores, this build wants outcomes only"},
		{func() solveOptions { o := opts; o.roots = []string{"4444444"}; return o }(), `root "4444444"`},
		{func() solveOptions { o := opts; o.roots = []string{"1212121"}; return o }(), "the game is over"},
		{func() solveOptions { o := opts; o.parallel = 0; return o }(), "-parallel 0"},
		{func() solveOptions { o := opts; o.tableLog2 = 40; return o }(), "-tt 40"},
	} {
		if _, _, err := solveBook(context.Background(), tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error saying %q", tc.opts, err, tc.want)
		}
	}
	if err := runSolve(context.Background(), filepath.Join(dir, "no", "c4.book"), testSolveOptions(t, 0)); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("-out in a missing folder: %v, want an error naming it", err)
	}
	o := testSolveOptions(t, 0)
	o.checkpoint = filepath.Join(dir, "no", "c4.solved")
	if _, st, err := solveBook(context.Background(), o); err == nil || !strings.Contains(err.Error(), "checkpoint") || st.solvedNow != 0 {
		t.Errorf("a checkpoint in a missing folder: %v after %d solved, want an error naming the checkpoint before solving", err, st.solvedNow)
	}
	if err := solveFlags("othello"); err == nil || !strings.Contains(err.Error(), "connect4") {
		t.Errorf("-solve for othello: %v, want an error naming connect4", err)
	}
}

func mustGame(t *testing.T, spec string) games.Game {
	t.Helper()
	g, err := games.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
