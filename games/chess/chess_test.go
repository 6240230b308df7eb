package chess

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
)

func TestConformance(t *testing.T) {
	g, err := games.New("chess")
	if err != nil {
		t.Fatal(err)
	}
	gamestest.Check(t, g, gamestest.Config{Games: 10, Seed: 1, Transpositions: true})
	gamestest.CheckCopier(t, g, &State{}, gamestest.Config{Games: 5, Seed: 2})
	short, err := games.New("chess:maxplies=40")
	if err != nil {
		t.Fatal(err)
	}
	gamestest.Check(t, short, gamestest.Config{Games: 30, Seed: 3})
}

func TestSpecErrors(t *testing.T) {
	for _, spec := range []string{"chess:maxplies=-1", "chess:maxplies=x", "chess:size=8"} {
		if _, err := games.New(spec); err == nil {
			t.Errorf("games.New(%q) accepted", spec)
		}
	}
}

// play plays moves (UCI or SAN) through the checked path.
func play(t *testing.T, s *State, moves string) {
	t.Helper()
	for _, mv := range strings.Fields(moves) {
		a, err := s.ParseMove(mv)
		if err != nil {
			t.Fatalf("%s: %v", mv, err)
		}
		if err := games.Play(s, a); err != nil {
			t.Fatalf("%s: %v", mv, err)
		}
	}
}

func newState(t *testing.T, fen string) *State {
	t.Helper()
	s, err := Game{}.NewState(fen)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestResults(t *testing.T) {
	for _, c := range []struct {
		name, fen, moves string
		status           Status
		returns          [2]float64
	}{
		{"fool's mate", StartFEN, "f3 e5 g4 Qh4#", Checkmate, [2]float64{-1, 1}},
		{"scholar's mate", StartFEN, "e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#", Checkmate, [2]float64{1, -1}},
		{"stalemate", "7k/8/6Q1/8/8/8/8/K7 w - - 0 1", "Qf7", Stalemate, [2]float64{}},
		{"threefold", StartFEN, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8", Repetition, [2]float64{}},
		{"fifty moves", "7k/8/8/8/8/8/R7/K7 w - - 98 80", "Rb2 Kg8", FiftyMoves, [2]float64{}},
		{"mate on the hundredth ply", "7k/8/6K1/8/8/8/8/R7 w - - 99 80", "Ra8#", Checkmate, [2]float64{1, -1}},
		{"K v K", "7k/8/8/8/8/8/8/K6q w - - 0 1", "Kb2 Qb1+ Kxb1", InsufficientMaterial, [2]float64{}},
		{"KB v KB same colour", "7k/8/8/8/8/4b3/1n6/K1B5 w - - 0 1", "Kxb2", InsufficientMaterial, [2]float64{}},
		{"KN v K", "7k/8/8/8/8/8/1r6/KN6 w - - 0 1", "Kxb2", InsufficientMaterial, [2]float64{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newState(t, c.fen)
			play(t, s, c.moves)
			if s.Status() != c.status || s.Returns() != c.returns || !s.IsTerminal() {
				t.Fatalf("status %v returns %v terminal %v, want %v %v\n%v", s.Status(), s.Returns(), s.IsTerminal(), c.status, c.returns, s)
			}
			if len(s.LegalActions(nil)) != 0 {
				t.Fatal("legal actions at a terminal state")
			}
		})
	}
	// Not over: KB v KB on opposite colours, KNN v K, one repetition short.
	for _, c := range []struct{ name, fen, moves string }{
		{"KB v KB opposite", "7k/8/8/8/8/8/b7/K1B5 w - - 0 1", "Bd2"},
		{"KNN v K", "7k/8/8/8/8/8/8/KNN5 w - - 0 1", "Nc3"},
		{"twofold", StartFEN, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1"},
	} {
		s := newState(t, c.fen)
		play(t, s, c.moves)
		if s.IsTerminal() {
			t.Errorf("%s: over (%v)", c.name, s.Status())
		}
	}
}

func TestRepetitionNeedsSameRights(t *testing.T) {
	// The king's walk loses the castling rights, so the first position
	// never recurs with the same rights: only the positions after it count.
	s := newState(t, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
	play(t, s, "Ke2 Ke7 Ke1 Ke8 Ke2 Ke7 Ke1 Ke8")
	if s.IsTerminal() {
		t.Fatalf("over after two repetitions of the rightless position: %v", s.Status())
	}
	play(t, s, "Ke2 Ke7")
	if s.Status() != Repetition {
		t.Fatalf("status %v, want threefold repetition", s.Status())
	}
}

func TestIllegalMoves(t *testing.T) {
	s := newState(t, "r3k2r/8/8/8/8/8/8/R3K1qR w KQkq - 0 1") // white in check from g1
	for _, mv := range []string{"e1g1", "O-O", "e1c1", "a1a8", "e2e4"} {
		if _, err := s.ParseMove(mv); !errors.Is(err, games.ErrIllegalMove) {
			t.Errorf("%s: err %v, want ErrIllegalMove", mv, err)
		}
	}
	for _, mv := range []string{"", "e9e4", "Zf3", "e7e8k", "e2e4q", "0000"} {
		if _, err := s.ParseMove(mv); err == nil {
			t.Errorf("%q accepted", mv)
		}
	}
	// En passant that would expose the king is illegal; the FEN drops the
	// target.
	p := MustParseFEN("8/8/8/KPp4r/8/8/8/7k w - c6 0 1")
	if p.EnPassant() != NoSquare || strings.Contains(p.FEN(), "c6") {
		t.Fatalf("en passant kept though it exposes the king: %s", p.FEN())
	}
	p = MustParseFEN("8/8/8/1Pp4r/8/8/K7/7k w - c6 0 1")
	if p.EnPassant() != 42 {
		t.Fatalf("legal en passant dropped: %s", p.FEN())
	}
}

func TestActionEncoding(t *testing.T) {
	seen := map[Move]int{}
	for a := 0; a < NumActions; a++ {
		m := MoveOf(a)
		if ActionOf(m) != a {
			t.Fatalf("ActionOf(MoveOf(%d) = %v) = %d", a, m, ActionOf(m))
		}
		if b, dup := seen[m]; dup {
			t.Fatalf("actions %d and %d are both %v", a, b, m)
		}
		seen[m] = a
	}
	for _, c := range []struct {
		uci    string
		action int
	}{{"a1a1", 0}, {"e2e4", 12*64 + 28}, {"a7a8n", 4096}, {"h7h8q", 4096 + 4*21 + 3}, {"a2a1n", 4096 + 88}, {"h2h1q", NumActions - 1}} {
		a, err := Game{}.ParseAction(c.uci)
		if err != nil || a != c.action {
			t.Errorf("ParseAction(%q) = %d, %v; want %d", c.uci, a, err, c.action)
		}
	}
}

func TestObservation(t *testing.T) {
	s := newState(t, "r3k2r/8/8/3pP3/8/8/8/4K3 w kq d6 0 1")
	obs := make([]float32, NumPlanes*64)
	s.Observation(obs)
	at := func(plane int, sq string) float32 {
		q, _ := parseSquare(sq)
		return obs[plane*64+(7-q.Rank())*8+q.File()]
	}
	if at(0, "e5") != 1 || at(5, "e1") != 1 || at(6, "d5") != 1 || at(9, "a8") != 1 || at(11, "e8") != 1 {
		t.Error("piece planes wrong")
	}
	if at(planeSide, "a1") != 0 || at(planeCastling, "a1") != 0 || at(planeCastling+2, "a1") != 1 || at(planeCastling+3, "h8") != 1 {
		t.Error("side or castling planes wrong")
	}
	if at(planeEP, "d6") != 1 || at(planeEP, "d5") != 0 {
		t.Error("en passant plane wrong")
	}
	play(t, s, "Kd1")
	s.Observation(obs)
	if at(0, "d5") != 1 || at(6, "e5") != 1 || at(planeSide, "c3") != 1 || at(planeCastling, "a1") != 1 || at(planeClock, "b2") != 0.01 {
		t.Error("planes after a move wrong")
	}
}

func TestZobristIncremental(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for game := 0; game < 50; game++ {
		s := Game{}.NewInitialState().(*State)
		for !s.IsTerminal() {
			if h := s.pos.computeHash(); h != s.pos.hash {
				t.Fatalf("incremental hash %x, recomputed %x at %s", s.pos.hash, h, s.pos.FEN())
			}
			legal := s.LegalActions(nil)
			s.ApplyAction(legal[rng.IntN(len(legal))])
		}
	}
}
