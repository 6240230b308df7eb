package endgame

import (
	"fmt"

	"tabula/games"
	"tabula/games/connect4/small"
	"tabula/mcts"
	"tabula/search/retro"
)

// ConfigureConnect4Table sets cfg.Prover to prove every position of
// Connect Four on a small board (games/connect4/small) by its database
// (search/retro), and cfg.Endgame to the board's cells: the table covers
// every position. The table's board must be the game's.
func ConfigureConnect4Table(cfg *mcts.Config, g games.Game, t *retro.C4Table) error {
	sg, ok := g.(*small.Game)
	if !ok {
		return fmt.Errorf("egtb: a Connect Four table is for connect4small, not %s", g.Name())
	}
	if w, h := sg.Size(); w != t.Width || h != t.Height {
		return fmt.Errorf("egtb: the table is for a %s board, the game is %dx%d", t.Name(), w, h)
	}
	if !cfg.Solver {
		return fmt.Errorf("egtb needs the MCTS-solver (solver on)")
	}
	cfg.Endgame = t.Width * t.Height
	cfg.Prover = c4TableMaker{t}
	return nil
}

type c4TableMaker struct{ t *retro.C4Table }

func (m c4TableMaker) NewProver() mcts.Prover { return &Connect4Table{table: m.t} }

// Connect4Table proves small-board Connect Four positions by one lookup.
type Connect4Table struct {
	table *retro.C4Table
	// Solved counts the positions proven.
	Solved int64
}

// Prove implements mcts.Prover.
func (p *Connect4Table) Prove(s games.State) (float32, bool) {
	st, ok := s.(*small.State)
	if !ok {
		return 0, false
	}
	v := p.table.Lookup(st.Stones())
	if v == retro.Illegal {
		return 0, false
	}
	p.Solved++
	out := float32(v.Outcome())
	if st.CurrentPlayer() != 0 {
		out = -out
	}
	return out, true
}

// Reaches reports whether s is a small-board position: the table covers
// all of them.
func (p *Connect4Table) Reaches(s games.State) bool {
	_, ok := s.(*small.State)
	return ok
}
