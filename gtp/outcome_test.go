package gtp_test

import (
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/gogame"
	"tabula/gtp"
	"tabula/nn"
	"tabula/players"
)

// outcomeNet writes a 5x5 Go network with both auxiliary heads whose
// ownership head reads the board: the stem's channel 0 copies the
// observation's plane 0 (the mover's stones) and channel 1 its plane 1 (the
// opponent's), the tower has no blocks, and the ownership head weighs them
// +2 and -2, so that it predicts tanh(2) on the mover's stones, -tanh(2) on
// the opponent's and 0 on empty points. Everything else is random (seeded).
// With heads false it has neither head.
func outcomeNet(t *testing.T, g games.Game, heads bool) (string, *nn.Weights) {
	t.Helper()
	p, h, w := g.ObservationShape()
	cfg := nn.Config{Filters: 8, Blocks: 0, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8, Ownership: heads, Score: heads}
	wts, err := nn.NewWeights(cfg, nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}, rand.New(rand.NewPCG(58, 5)))
	if err != nil {
		t.Fatal(err)
	}
	if heads {
		st := wts.Stem
		for o := range 2 {
			clear(st.W[o*st.In*9 : (o+1)*st.In*9])
			st.W[(o*st.In+o)*9+4] = 1 // the centre tap of plane o
		}
		clear(wts.Ownership.W)
		wts.Ownership.W[0], wts.Ownership.W[1] = 2, -2
	}
	path := filepath.Join(t.TempDir(), "go5.tbn")
	if err := nn.SaveCheckpoint(path, &nn.Checkpoint{Game: g.Name(), Step: 1, Weights: wts}); err != nil {
		t.Fatal(err)
	}
	return path, wts
}

func mustSpec(t *testing.T, text string) players.Spec {
	t.Helper()
	sp, err := players.ParseSpec(text)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// splitOwnership splits a kata-analyze line at its "ownership" section
// (KataGo's grammar: "ownership" starts a section, as "info" does, after
// the last move's pv) into the moves and the ownership values.
func splitOwnership(t *testing.T, line string) (string, []float64) {
	t.Helper()
	info, rest, ok := strings.Cut(line, " ownership ")
	if !ok {
		return line, nil
	}
	var own []float64
	for _, f := range strings.Fields(rest) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatalf("ownership value %q: %v", f, err)
		}
		own = append(own, v)
	}
	return info, own
}

// TestKataAnalyzeOwnershipAndScore runs kata-analyze, kata-genmove_analyze
// and lz-analyze on a 5x5 network with both heads through a GTP session:
// the kata lines parse as Sabaki and Lizzie read them, carry scoreLead on
// every visited move and, when asked, size^2 ownership values in [-1, 1];
// a move visited once has the score head's output at its child (the
// subtree's one evaluation) turned to the mover's side, for either colour
// to move (the averages over larger subtrees are checked against a walk of
// the tree in package mcts). lz-analyze shows neither; a network without
// the heads answers kata-analyze without them.
func TestKataAnalyzeOwnershipAndScore(t *testing.T) {
	g, err := games.New("go:size=5,komi=0.5")
	if err != nil {
		t.Fatal(err)
	}
	gg := g.(*gogame.Game)
	path, wts := outcomeNet(t, g, true)
	// solver=0: the exact solver proves the position after a pass (a
	// second pass ends the game) and a proven root reports no moves.
	f, err := players.Build(g, mustSpec(t, "net:path="+path+",sims=24,solver=0"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ecfg := gtp.DefaultEngineConfig()
	ecfg.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	e, err := gtp.NewEngine(ecfg, g, func(games.Game) (gtp.Chooser, error) {
		return f.New(rand.New(rand.NewPCG(1, 2)))
	})
	if err != nil {
		t.Fatal(err)
	}
	forward, _ := headsOf(t, g, wts)
	opening := []string{"B4", "D2", "A1"}
	state := g.NewInitialState()
	for _, mv := range opening {
		a, _ := gg.ParseAction(mv)
		if err := games.Play(state, a); err != nil {
			t.Fatal(err)
		}
	}
	// playOpening plays the opening in session s.
	playOpening := func(s *gtpSession) {
		t.Helper()
		for i, mv := range opening {
			color := "bw"[i%2 : i%2+1]
			s.send("play " + color + " " + mv)
			if a := s.answer(); len(a) != 1 || a[0] != "= " {
				t.Fatalf("play %s: %q", mv, a)
			}
		}
	}
	s := startSession(t, e)
	playOpening(s)
	once := 0 // moves visited once whose scoreLead was checked
	// checkLine checks one kata line for the position at, whose player
	// to move is the analysis' side.
	checkLine := func(line string, at games.State, wantOwnership bool) {
		t.Helper()
		info, values := splitOwnership(t, line)
		checkInfo(t, info, true, at)
		for _, m := range parseInfo(t, info) {
			if m.fields["visits"] == "0" {
				if _, ok := m.fields["scoreLead"]; ok {
					t.Errorf("move %s: scoreLead without visits", m.fields["move"])
				}
				continue
			}
			lead, err := strconv.ParseFloat(m.fields["scoreLead"], 64)
			if err != nil || math.IsNaN(lead) || math.IsInf(lead, 0) {
				t.Fatalf("move %s: scoreLead %q", m.fields["move"], m.fields["scoreLead"])
			}
			if m.fields["scoreMean"] != m.fields["scoreLead"] {
				t.Errorf("move %s: scoreMean %s, scoreLead %s", m.fields["move"], m.fields["scoreMean"], m.fields["scoreLead"])
			}
			if m.fields["visits"] != "1" {
				continue
			}
			once++
			a, _ := gg.ParseAction(m.fields["move"])
			c := at.Clone()
			c.ApplyAction(a)
			want := -forward(c) // the child's mover is the other side
			if c.IsTerminal() {
				want = c.(games.Outcomer).FinalScore()
				if at.CurrentPlayer() == 1 {
					want = -want
				}
			}
			if math.Abs(lead-want) > 1e-4*max(1, math.Abs(want)) {
				t.Errorf("move %s (one visit): scoreLead %v, want %v (the score head at the child, for the mover)", m.fields["move"], lead, want)
			}
		}
		if !wantOwnership {
			if values != nil {
				t.Errorf("ownership without ownership true: %q", line)
			}
			return
		}
		if len(values) != 25 {
			t.Fatalf("%d ownership values, want 25: %q", len(values), line)
		}
		for _, v := range values {
			if v < -1 || v > 1 {
				t.Errorf("ownership %v outside [-1, 1]", v)
			}
		}
	}
	// White to move; then black's view of the same position (after a
	// white pass), as "kata-analyze b" asks.
	blackView := state.Clone()
	blackView.ApplyAction(gg.Pass())
	for _, c := range []struct {
		cmd       string
		at        games.State
		ownership bool
	}{
		{"kata-analyze 1 ownership true", state, true},
		{"kata-analyze b interval 1 ownership true", blackView, true},
		{"kata-analyze w 1", state, false},
	} {
		s.send(c.cmd)
		if l := s.line(); l != "=" {
			t.Fatalf("%s: first line %q", c.cmd, l)
		}
		for range 2 {
			checkLine(s.line(), c.at, c.ownership)
		}
		s.send("name")
		for l := s.line(); l != ""; l = s.line() {
			if !strings.HasPrefix(l, "info ") {
				t.Fatalf("%s: line %q", c.cmd, l)
			}
		}
		if a := s.answer(); len(a) != 1 || !strings.HasPrefix(a[0], "= ") {
			t.Fatalf("name after %s: %q", c.cmd, a)
		}
	}
	s.send("lz-analyze 1 ownership true")
	if l := s.line(); l != "=" {
		t.Fatalf("lz-analyze: first line %q", l)
	}
	l := s.line()
	checkInfo(t, l, false, state)
	if strings.Contains(l, "ownership") || strings.Contains(l, "score") {
		t.Errorf("lz-analyze shows KataGo's fields: %q", l)
	}
	s.send("name")
	for l := s.line(); l != ""; l = s.line() {
	}
	s.answer()
	// genmoveAnalyze runs kata-genmove_analyze in session s and checks
	// its reports.
	genmoveAnalyze := func(s *gtpSession) {
		t.Helper()
		s.send("kata-genmove_analyze w 1 ownership true")
		if l := s.line(); l != "=" {
			t.Fatalf("kata-genmove_analyze: first line %q", l)
		}
		reports := 0
		for {
			l := s.line()
			if l == "" {
				break
			}
			if strings.HasPrefix(l, "play ") {
				continue
			}
			checkLine(l, state, true)
			reports++
		}
		if reports == 0 {
			t.Error("kata-genmove_analyze reported nothing")
		}
		s.in.Close()
		for range s.lines {
		}
	}
	genmoveAnalyze(s)
	// The streaming commands above report whenever their interval has
	// passed, so how large the tree is by then depends on the machine's
	// speed. A fresh engine's kata-genmove_analyze searches exactly its 24
	// simulations over the position's 23 moves (pass included), and its
	// final report always shows moves visited once.
	e3, err := gtp.NewEngine(ecfg, g, func(games.Game) (gtp.Chooser, error) {
		return f.New(rand.New(rand.NewPCG(1, 2)))
	})
	if err != nil {
		t.Fatal(err)
	}
	s3 := startSession(t, e3)
	playOpening(s3)
	before := once
	genmoveAnalyze(s3)
	if once == before {
		t.Error("no move was visited once in a 24-simulation search: no scoreLead was checked against the network")
	}

	// A network without the heads: the same command, neither field.
	plain, _ := outcomeNet(t, g, false)
	f2, err := players.Build(g, mustSpec(t, "net:path="+plain+",sims=8"))
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	e2, err := gtp.NewEngine(gtp.DefaultEngineConfig(), g, func(games.Game) (gtp.Chooser, error) {
		return f2.New(rand.New(rand.NewPCG(1, 2)))
	})
	if err != nil {
		t.Fatal(err)
	}
	s2 := startSession(t, e2)
	s2.send("kata-analyze 1 ownership true")
	if l := s2.line(); l != "=" {
		t.Fatalf("first line %q", l)
	}
	l = s2.line()
	checkInfo(t, l, true, g.NewInitialState())
	if strings.Contains(l, "ownership") || strings.Contains(l, "score") {
		t.Errorf("a network without the heads: %q", l)
	}
	s2.in.Close()
	for range s2.lines {
	}
}

// headsOf returns the score head's margin and the ownership head's
// prediction of a position by a direct forward pass of wts, both for the
// position's player to move.
func headsOf(t *testing.T, g games.Game, wts *nn.Weights) (score func(games.State) float64, own func(games.State) []float64) {
	t.Helper()
	net, err := nn.NewNet(wts, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, h, w := g.ObservationShape()
	run := func(s games.State) (float64, []float64) {
		obs := make([]float32, p*h*w)
		s.Observation(obs)
		sc, ow := make([]float32, 1), make([]float32, h*w)
		if err := net.ForwardAux(obs, 1, make([]float32, g.NumActions()), make([]float32, 1), ow, sc); err != nil {
			t.Fatal(err)
		}
		out := make([]float64, h*w)
		for i, v := range ow {
			out[i] = float64(v)
		}
		return float64(sc[0]), out
	}
	score = func(s games.State) float64 { x, _ := run(s); return x }
	own = func(s games.State) []float64 { _, o := run(s); return o }
	return score, own
}

// TestKataOwnershipIsTheTreeMean searches one and then two playouts with
// kata-genmove_analyze on the 5x5 network built to see the stones: after
// one, the ownership is the head's at the position itself (the stones,
// +tanh(2) for the player to move's, in KataGo's order from the top-left
// point); after two, the mean of the root's and the visited child's (the
// child's turned to the root's side), and the visited move's scoreLead and
// movesOwnership the heads at the child.
func TestKataOwnershipIsTheTreeMean(t *testing.T) {
	g, err := games.New("go:size=5,komi=0.5")
	if err != nil {
		t.Fatal(err)
	}
	gg := g.(*gogame.Game)
	path, wts := outcomeNet(t, g, true)
	score, ownOf := headsOf(t, g, wts)
	state := g.NewInitialState()
	for _, mv := range []string{"B4", "D2", "A1"} {
		a, _ := gg.ParseAction(mv)
		if err := games.Play(state, a); err != nil {
			t.Fatal(err)
		}
	}
	stone := math.Tanh(2 / math.Sqrt(1+nn.BatchNormEps))
	for _, sims := range []int{1, 2} {
		f, err := players.Build(g, mustSpec(t, "net:path="+path+",sims="+strconv.Itoa(sims)+",solver=0"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		e, err := gtp.NewEngine(gtp.DefaultEngineConfig(), g, func(games.Game) (gtp.Chooser, error) {
			return f.New(rand.New(rand.NewPCG(1, 2)))
		})
		if err != nil {
			t.Fatal(err)
		}
		s := startSession(t, e)
		for i, mv := range []string{"B4", "D2", "A1"} {
			s.send("play " + "bw"[i%2:i%2+1] + " " + mv)
			if a := s.answer(); len(a) != 1 || a[0] != "= " {
				t.Fatalf("play %s: %q", mv, a)
			}
		}
		// minmoves: a report after one playout has no visited move.
		s.send("kata-genmove_analyze w 1 minmoves 3 ownership true movesOwnership true")
		if l := s.line(); l != "=" {
			t.Fatalf("first line %q", l)
		}
		var last string
		for l := s.line(); l != ""; l = s.line() {
			if strings.HasPrefix(l, "info ") {
				last = l
			}
		}
		s.in.Close()
		for range s.lines {
		}
		info, values := splitOwnership(t, last)
		if len(values) != 25 {
			t.Fatalf("sims=%d: %d ownership values, want 25: %q", sims, len(values), last)
		}
		want := ownOf(state)
		visited := 0
		for _, m := range parseInfo(t, info) {
			if m.fields["visits"] == "0" {
				continue
			}
			visited++
			a, _ := gg.ParseAction(m.fields["move"])
			c := state.Clone()
			c.ApplyAction(a)
			childOwn := ownOf(c)
			for q, v := range childOwn {
				want[q] = (want[q] - v) / 2 // the child's mover is black
			}
			// Sabaki's reading puts every word after "pv" in the pv:
			// movesOwnership follows it.
			k := slices.Index(m.pv, "movesOwnership")
			if k < 0 || len(m.pv)-k-1 != 25 {
				t.Fatalf("move %s: pv %v without 25 movesOwnership values", m.fields["move"], m.pv)
			}
			for q, f := range m.pv[k+1:] {
				v, err := strconv.ParseFloat(f, 64)
				if err != nil || math.Abs(v+childOwn[q]) > 2e-6 {
					t.Errorf("move %s: movesOwnership %d %q, want %v (the child's, for white)", m.fields["move"], q, f, -childOwn[q])
				}
			}
			lead, err := strconv.ParseFloat(m.fields["scoreLead"], 64)
			if err != nil || math.Abs(lead+score(c)) > 1e-4*max(1, math.Abs(score(c))) {
				t.Errorf("sims=2: move %s: scoreLead %q, want %v", m.fields["move"], m.fields["scoreLead"], -score(c))
			}
		}
		if visited != sims-1 {
			t.Fatalf("sims=%d: %d moves visited, want %d: %q", sims, visited, sims-1, last)
		}
		for i, v := range values {
			if sims == 1 {
				// The stones, for white to move.
				a, _ := gg.ParseAction(string("ABCDE"[i%5]) + strconv.Itoa(5-i/5))
				x := 0.0
				switch state.(*gogame.State).At(a) {
				case gogame.Black:
					x = -stone
				case gogame.White:
					x = stone
				}
				if math.Abs(v-x) > 1e-5 {
					t.Errorf("sims=1: ownership value %d: %v, want %v (white to move)", i, v, x)
				}
			}
			if math.Abs(v-want[i]) > 2e-6 {
				t.Errorf("sims=%d: ownership value %d: %v, want %v", sims, i, v, want[i])
			}
		}
	}
}

// TestKataAnalyzeSymmetrized: a player averaging K orientations (sym=2)
// still reports the averaged scoreLead and ownership.
func TestKataAnalyzeSymmetrized(t *testing.T) {
	g, err := games.New("go:size=5,komi=0.5")
	if err != nil {
		t.Fatal(err)
	}
	path, _ := outcomeNet(t, g, true)
	f, err := players.Build(g, mustSpec(t, "net:path="+path+",sims=16,solver=0,sym=2"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e, err := gtp.NewEngine(gtp.DefaultEngineConfig(), g, func(games.Game) (gtp.Chooser, error) {
		return f.New(rand.New(rand.NewPCG(1, 2)))
	})
	if err != nil {
		t.Fatal(err)
	}
	s := startSession(t, e)
	s.send("kata-genmove_analyze b 1 ownership true")
	if l := s.line(); l != "=" {
		t.Fatalf("first line %q", l)
	}
	var last string
	for l := s.line(); l != ""; l = s.line() {
		if strings.HasPrefix(l, "info ") {
			last = l
		}
	}
	s.in.Close()
	for range s.lines {
	}
	info, values := splitOwnership(t, last)
	if len(values) != 25 || !strings.Contains(info, " scoreLead ") {
		t.Errorf("sym=2: report without scoreLead or 25 ownership values: %q", last)
	}
}
