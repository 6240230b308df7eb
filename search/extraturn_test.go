package search

import (
	"context"
	"fmt"
	"math"
	"testing"

	"tabula/games"
)

// pileGame is a test-only game in which a player sometimes moves twice in a
// row: from a pile of stones a player takes 1, 2 or 3; taking 3 earns an
// extra turn; whoever takes the last stone wins. Its heuristic is a
// deterministic pseudo-random function of the state, to give alpha-beta
// varied leaf values.
type pileGame struct{ start int }

func (g pileGame) Name() string                      { return fmt.Sprintf("pile%d", g.start) }
func (g pileGame) NumActions() int                   { return 3 }
func (g pileGame) ObservationShape() (int, int, int) { return 1, 1, 1 }
func (g pileGame) MaxGameLength() int                { return g.start }
func (g pileGame) NewInitialState() games.State      { return &pileState{g: g, pile: g.start} }
func (g pileGame) Evaluate(s games.State) float64 {
	h := s.Hash()
	return 0.9 * math.Sin(float64(h%1000)*1.7)
}

type pileState struct {
	g                   pileGame
	pile, player, moves int
	winner              int // 0 none, else player+1
}

func (s *pileState) Game() games.Game      { return s.g }
func (s *pileState) CurrentPlayer() int    { return s.player }
func (s *pileState) IsTerminal() bool      { return s.pile == 0 }
func (s *pileState) MoveNumber() int       { return s.moves }
func (s *pileState) Clone() games.State    { c := *s; return &c }
func (s *pileState) Observation([]float32) {}
func (s *pileState) String() string        { return fmt.Sprintf("pile %d, player %d", s.pile, s.player) }
func (s *pileState) Hash() uint64 {
	return uint64(s.pile)*7919 + uint64(s.player)*104729 + uint64(s.moves)*1299709
}
func (s *pileState) IsLegal(a int) bool { return a >= 0 && a < 3 && a+1 <= s.pile }
func (s *pileState) LegalActions(buf []int) []int {
	buf = buf[:0]
	for a := 0; a < 3; a++ {
		if s.IsLegal(a) {
			buf = append(buf, a)
		}
	}
	return buf
}
func (s *pileState) ApplyAction(a int) {
	s.pile -= a + 1
	s.moves++
	if s.pile == 0 {
		s.winner = s.player + 1
		return
	}
	if a != 2 {
		s.player = 1 - s.player
	}
}
func (s *pileState) Returns() [2]float64 {
	switch s.winner {
	case 1:
		return [2]float64{1, -1}
	case 2:
		return [2]float64{-1, 1}
	}
	return [2]float64{}
}

// TestExtraTurns checks every search agrees with minimax in a game where the
// player to move does not always alternate, at every depth and from every
// pile size, and that deep searches find the true winner.
func TestExtraTurns(t *testing.T) {
	for start := 1; start <= 14; start++ {
		g := pileGame{start: start}
		s := g.NewInitialState()
		for d := 1; d <= 8; d++ {
			mv, _, err := Minimax(s, d)
			if err != nil {
				t.Fatal(err)
			}
			av, _, _ := AlphaBeta(s, d)
			if av != mv {
				t.Errorf("pile %d depth %d: alpha-beta %v, minimax %v", start, d, av, mv)
			}
			for mask := 0; mask < 8; mask++ {
				cfg := Config{Depth: d, Ordering: mask&1 != 0, Killers: mask&1 != 0, History: mask&1 != 0, PVS: mask&2 != 0}
				if mask&4 != 0 {
					cfg.TableBits = 8
				}
				res := searchOnce(t, g, cfg, s)
				want, _, _ := Minimax(s, res.Depth)
				if res.Value != want {
					t.Errorf("pile %d depth %d %+v: value %v, minimax %v", start, res.Depth, cfg, res.Value, want)
				}
			}
		}
		// Unlimited depth proves the game; minimax at full depth agrees.
		sr, _ := New(g, Config{TableBits: 10, Ordering: true, Killers: true, History: true, PVS: true})
		res, err := sr.Search(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		full, _, _ := Minimax(s, start)
		if !res.Proven || res.Value != full || !IsProven(full) {
			t.Errorf("pile %d: solved value %v (proven %v), full minimax %v", start, res.Value, res.Proven, full)
		}
	}
}
