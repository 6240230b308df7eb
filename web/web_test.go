package web

import (
	"context"
	"errors"
	"strings"
	"testing"

	"tabula/games"
	_ "tabula/games/backgammon"
	"tabula/games/chess"
	_ "tabula/games/connect4"
	_ "tabula/games/gogame"
	_ "tabula/games/othello"
	_ "tabula/games/phantom"
)

func replay(t *testing.T, game string, moves ...int) (games.Game, Layout, games.State) {
	t.Helper()
	g, l, s, err := Request{Game: game, Moves: moves}.Replay()
	if err != nil {
		t.Fatal(err)
	}
	return g, l, s
}

// board writes cells as rows of '.', 'X' (first player) and 'O'.
func board(p Position) string {
	var b strings.Builder
	for r := 0; r < p.Layout.Rows; r++ {
		for c := 0; c < p.Layout.Cols; c++ {
			b.WriteByte(".XO"[p.Cells[r*p.Layout.Cols+c]])
		}
		b.WriteByte('/')
	}
	return b.String()
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		game   string
		moves  string
		board  string
		toMove int
		legal  int
		score  string
	}{
		// Red in column 4, yellow on top of it, red in column 1: yellow to move.
		{"connect4", "441", "......./......./......./......./...O.../X..X.../", 1, 7, ""},
		// Othello 6x6 after b3 (black): c3 turned black.
		{"othello:size=6", "b3", "....../....../.XXX../..XO../....../....../", 1, 3, "Black 4, White 1"},
		// Go 5x5: black C3, white pass, black B4: black owns the whole board, 25
		// points less the 7.5 komi.
		{"go:size=5", "C3 pass B4", "...../.X.../..X../...../...../", 1, 24, "estimate B+17.5"},
	} {
		t.Run(tc.game, func(t *testing.T) {
			g, _, err := NewGame(tc.game)
			if err != nil {
				t.Fatal(err)
			}
			n := g.(games.Notation)
			acts, err := n.ParseActions(tc.moves)
			if err != nil {
				t.Fatal(err)
			}
			g, l, s := replay(t, tc.game, acts...)
			p := Describe(g, l, s, acts)
			if got := board(p); got != tc.board {
				t.Errorf("board %s, want %s", got, tc.board)
			}
			if p.ToMove != tc.toMove || len(p.Legal) != tc.legal || len(p.LegalText) != len(p.Legal) || p.Over {
				t.Errorf("to move %d, %d legal, over %v; want %d, %d", p.ToMove, len(p.Legal), p.Over, tc.toMove, tc.legal)
			}
			if p.Score != tc.score {
				t.Errorf("score %q, want %q", p.Score, tc.score)
			}
			if p.Notation != n.FormatActions(acts) {
				t.Errorf("notation %q", p.Notation)
			}
		})
	}
}

func TestDescribeEnd(t *testing.T) {
	g, l, s := replay(t, "go:size=5", 25, 25)
	p := Describe(g, l, s, []int{25, 25})
	if !p.Over || p.Result != "White wins" || p.Score != "W+7.5" || p.Returns != [2]float64{-1, 1} || len(p.Legal) != 0 {
		t.Errorf("two passes on an empty 5x5 board: %+v", p)
	}
}

func TestReplayErrors(t *testing.T) {
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Request{Game: "phantom"}, "draws connect4, othello, go, chess, tictactoe, backgammon and the card games"},
		{Request{Game: "whist", Moves: []int{0}}, "its deal is hidden"},
		{Request{Game: "nope"}, `unknown game "nope"`},
		{Request{}, "no game given"},
		{Request{Game: strings.Repeat("x", MaxSpecLen+1)}, "more than 1024"},
		{Request{Game: "othello:size=6", Moves: []int{0}}, "move 1: illegal move"},
		{Request{Game: "othello:size=6", Moves: []int{-1}}, "outside [0, 37)"},
		{Request{Game: "connect4", Moves: make([]int, 43)}, "at most 42"},
	} {
		_, _, _, err := tc.req.Replay()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !IsBadRequest(err) {
			t.Errorf("%+v: err = %v, want a bad request containing %q", tc.req.Game, err, tc.want)
		}
	}
}

// fakeEngine plays a fixed action and shows a fixed analysis.
type fakeEngine struct {
	move   int
	policy []float32
	value  float64
	err    error
}

func (f *fakeEngine) ChooseAction(context.Context, games.State) (int, error) { return f.move, f.err }
func (f *fakeEngine) LastPolicy() []float32                                  { return f.policy }
func (f *fakeEngine) Value() float64                                         { return f.value }

func TestThink(t *testing.T) {
	g, l, s := replay(t, "connect4", 3)
	e := &fakeEngine{move: 2, policy: []float32{0, 0.1, 0.6, 0.3, 0, 0, 0}, value: -0.25}
	r, err := Think(context.Background(), e, g, l, s, []int{3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Move != 2 || r.MoveText != "3" || r.Value == nil || *r.Value != -0.25 || len(r.Policy) != 7 {
		t.Fatalf("reply %+v", r)
	}
	if len(r.Top) != 3 || r.Top[0] != (MoveProb{"3", 0.6}) || r.Top[2].Move != "2" {
		t.Errorf("top %+v", r.Top)
	}
	if got := r.Position.Moves; len(got) != 2 || got[1] != 2 || s.MoveNumber() != 1 {
		t.Errorf("position moves %v; the state given has %d moves (must be unchanged)", got, s.MoveNumber())
	}
	// A policy of the wrong length is left out, not passed on.
	e.policy = []float32{1}
	if r, _ := Think(context.Background(), e, g, l, s, []int{3}); r.Policy != nil {
		t.Errorf("policy of length 1 passed on: %v", r.Policy)
	}
	// An engine that plays an illegal move or fails is an engine error, not
	// the requester's.
	e.move = 9
	if _, err := Think(context.Background(), e, g, l, s, []int{3}); err == nil || IsBadRequest(err) || !strings.Contains(err.Error(), "illegal") {
		t.Errorf("illegal engine move: err = %v", err)
	}
	e.err = errors.New("boom")
	if _, err := Think(context.Background(), e, g, l, s, []int{3}); err == nil || IsBadRequest(err) {
		t.Errorf("failing engine: err = %v", err)
	}
	_, _, over := replay(t, "connect4", 0, 1, 0, 1, 0, 1, 0)
	if _, err := Think(context.Background(), e, g, l, over, nil); !IsBadRequest(err) {
		t.Errorf("move at the end: err = %v, want a bad request", err)
	}
}

// TestDescribeChess checks a chess position as the page draws it: the
// pieces by FEN letter with row 0 the eighth rank, colours in Cells, the
// move list in SAN with move numbers, check, and the legal moves in UCI.
func TestDescribeChess(t *testing.T) {
	var moves []int
	for _, u := range []string{"e2e4", "f7f6", "d1h5"} {
		m, err := chess.ParseUCI(u)
		if err != nil {
			t.Fatal(err)
		}
		moves = append(moves, chess.ActionOf(m))
	}
	g, l, s, err := Request{Game: "chess", Moves: moves}.Replay()
	if err != nil {
		t.Fatal(err)
	}
	p := Describe(g, l, s, moves)
	const want = "rnbqkbnr" + "ppppp.pp" + ".....p.." + ".......Q" + "....P..." + "........" + "PPPP.PPP" + "RNB.KBNR"
	if l.Kind != "chess" || p.Pieces != want {
		t.Fatalf("kind %q, pieces\n%s\nwant\n%s", l.Kind, p.Pieces, want)
	}
	if p.Cells[0] != 2 || p.Cells[63] != 1 || p.Cells[31] != 1 || p.Cells[20] != 0 {
		t.Errorf("cells a8 %d, h1 %d, h5 %d, e6 %d: want 2, 1, 1, 0", p.Cells[0], p.Cells[63], p.Cells[31], p.Cells[20])
	}
	if p.Notation != "1. e4 f6 2. Qh5+" || !p.Check || p.ToMove != 1 {
		t.Errorf("notation %q, check %v, to move %d: want 1. e4 f6 2. Qh5+, in check, Black", p.Notation, p.Check, p.ToMove)
	}
	if strings.Join(p.LegalText, " ") != "g7g6" {
		t.Errorf("legal moves %v, want only g7g6", p.LegalText)
	}
}
