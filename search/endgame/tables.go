package endgame

import (
	"fmt"

	"tabula/games"
	"tabula/games/chess"
	"tabula/mcts"
	"tabula/search/retro"
)

// ConfigureTables sets cfg.Prover to prove the chess positions that the
// endgame tables ts cover (search/retro: king and pieces against a lone
// king), and cfg.Endgame to the most men on the board of a covered
// position, the count by which the search decides where to ask. It needs
// chess and the MCTS-solver.
func ConfigureTables(cfg *mcts.Config, g games.Game, ts *retro.Tables) error {
	if _, ok := g.(chess.Game); !ok {
		return fmt.Errorf("egtb: endgame tables are for chess, not %s", g.Name())
	}
	if !cfg.Solver {
		return fmt.Errorf("egtb needs the MCTS-solver (solver on)")
	}
	men := ts.MaxMen()
	if men == 0 {
		return fmt.Errorf("egtb: no tables")
	}
	cfg.Endgame = men
	cfg.Prover = tablesMaker{ts: ts, men: men}
	return nil
}

// tablesMaker makes table provers; the tables are read-only and shared.
type tablesMaker struct {
	ts  *retro.Tables
	men int
}

func (m tablesMaker) NewProver() mcts.Prover { return &Tables{tables: m.ts, men: m.men} }

// Tables proves chess positions by looking them up in endgame tables: the
// win, draw or loss of the table, where its distance to mate fits before
// the fifty-move rule.
type Tables struct {
	tables *retro.Tables
	men    int
	// Solved counts the positions proven.
	Solved int64
}

// Prove implements mcts.Prover.
func (p *Tables) Prove(s games.State) (float32, bool) {
	outcome, _, ok := p.tables.Probe(s)
	if !ok {
		return 0, false
	}
	p.Solved++
	v := float32(outcome)
	if s.CurrentPlayer() != 0 {
		v = -v
	}
	return v, true
}

// Reaches reports whether a child of s may be covered: s has at most one
// man more than the largest table (a capture takes one off).
func (p *Tables) Reaches(s games.State) bool {
	cs, ok := s.(*chess.State)
	if !ok {
		return false
	}
	pos := cs.Position()
	men := 0
	for sq := chess.Square(0); sq < 64; sq++ {
		if pos.PieceAt(sq) != chess.NoPiece {
			men++
			if men > p.men+1 {
				return false
			}
		}
	}
	return true
}
