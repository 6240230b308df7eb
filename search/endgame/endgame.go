// Package endgame gives the search exact endgames where a game allows them
// cheaply: mcts.Config.Endgame (and the net player's endgame=N) proves every
// child within N of the end with an exact solver instead of asking the
// network. Othello has one: search/othelloend's solver, asked only for the
// sign of the final disc margin (a null-window search around a draw), proves
// an 8x8 position with 10 empty squares in ~35 us, 12 in ~0.17 ms. Connect
// Four has one: search/c4solver's weak solve (win, draw or loss). Chess has
// the endgame tables of search/retro (ConfigureTables): a covered position
// is proven by one lookup.
package endgame

import (
	"fmt"
	"math/bits"

	"tabula/games"
	"tabula/games/connect4"
	"tabula/games/othello"
	"tabula/mcts"
	"tabula/search/c4solver"
	"tabula/search/othelloend"
)

// MaxOthelloEmpties bounds mcts.Config.Endgame for Othello: an exact solve
// costs about 3-5x more per added empty square, and beyond ~16 a leaf
// would take longer than a whole search.
const MaxOthelloEmpties = 16

// MaxConnect4Empties bounds mcts.Config.Endgame for Connect Four: past ~20
// empty cells a weak solve costs more than a whole search's evaluations
// (BenchmarkProveConnect4).
const MaxConnect4Empties = 20

// c4TableLog2 is the size of each Connect Four prover's transposition table
// (2^14 entries of 8 bytes: 128 KiB).
const c4TableLog2 = 14

// ttBits is the size of each prover's transposition table (2^14 entries of
// 24 bytes: 384 KiB, within a core's L2); a self-play worker's games share
// one prover. 2^13, 2^15 and 2^16 proved no faster in Othello 8x8 self-play.
const ttBits = 14

// Configure sets cfg.Prover for game g when cfg.Endgame is above zero, and
// returns an error naming the game when g has no exact prover or the
// setting is out of its range. With Endgame 0 it clears cfg.Prover.
func Configure(cfg *mcts.Config, g games.Game) error {
	if cfg.Endgame == 0 {
		cfg.Prover = nil
		return nil
	}
	var (
		most  int
		what  string
		maker mcts.ProverMaker
	)
	switch gg := g.(type) {
	case connect4.Game:
		most, what, maker = MaxConnect4Empties, "empty cells for Connect Four", connect4Maker{empties: cfg.Endgame}
	case *othello.Game:
		most, what, maker = MaxOthelloEmpties, "empty squares for Othello", &othelloMaker{empties: cfg.Endgame, size: gg.Size()}
	default:
		return fmt.Errorf("endgame = %d: game %s has no exact endgame prover (only Othello and Connect Four have one); use 0", cfg.Endgame, g.Name())
	}
	if cfg.Endgame < 1 || cfg.Endgame > most {
		return fmt.Errorf("endgame = %d: want 1..%d %s (0: off)", cfg.Endgame, most, what)
	}
	if !cfg.Solver {
		return fmt.Errorf("endgame = %d needs the MCTS-solver (solver on)", cfg.Endgame)
	}
	cfg.Prover = maker
	return nil
}

// othelloMaker makes Othello provers for one configuration.
type othelloMaker struct{ empties, size int }

func (m *othelloMaker) NewProver() mcts.Prover {
	s, err := othelloend.New(othelloend.Config{TTBits: ttBits, Size: m.size})
	if err != nil {
		panic(err) // Configure made a valid configuration
	}
	return &Othello{Empties: m.empties, squares: m.size * m.size, solver: s}
}

// Othello proves Othello positions with at most Empties empty squares.
type Othello struct {
	Empties int
	squares int
	solver  *othelloend.Solver
	// Solved counts the positions proven.
	Solved int64
}

// Prove implements mcts.Prover.
func (p *Othello) Prove(s games.State) (float32, bool) {
	st, ok := s.(*othello.State)
	if !ok {
		return 0, false
	}
	if p.empties(st) > p.Empties {
		return 0, false
	}
	mover, opp := st.Boards()
	// Only the sign matters: search the window (-1, 1) around a draw.
	score, _ := p.solver.Search(mover, opp, -1, 1)
	var v float32
	switch {
	case score > 0:
		v = 1
	case score < 0:
		v = -1
	}
	p.Solved++
	if st.CurrentPlayer() != 0 {
		v = -v
	}
	return v, true
}

// Reaches reports whether a child of s may have at most Empties empty
// squares: one fewer than s, or as many after a pass.
func (p *Othello) Reaches(s games.State) bool {
	st, ok := s.(*othello.State)
	return ok && p.empties(st) <= p.Empties+1
}

// empties returns the number of empty squares of st.
func (p *Othello) empties(st *othello.State) int {
	mover, opp := st.Boards()
	return p.squares - bits.OnesCount64(mover|opp)
}

// Nodes returns the positions the solver has searched.
func (p *Othello) Nodes() uint64 { return p.solver.Nodes() }

// connect4Maker makes Connect Four provers for one configuration.
type connect4Maker struct{ empties int }

func (m connect4Maker) NewProver() mcts.Prover {
	s, err := c4solver.New(c4TableLog2)
	if err != nil {
		panic(err) // a valid constant size
	}
	return &Connect4{Empties: m.empties, solver: s}
}

// Connect4 proves Connect Four positions with at most Empties empty cells,
// by the solver's weak solve (it tells a win, a draw and a loss apart,
// without the exact score).
type Connect4 struct {
	Empties int
	solver  *c4solver.Solver
	// Solved counts the positions proven.
	Solved int64
}

// Prove implements mcts.Prover.
func (p *Connect4) Prove(s games.State) (float32, bool) {
	st, ok := s.(*connect4.State)
	if !ok || connect4.Cells-st.MoveNumber() > p.Empties {
		return 0, false
	}
	v := float32(p.solver.Outcome(st))
	p.Solved++
	if st.CurrentPlayer() != 0 {
		v = -v
	}
	return v, true
}

// Reaches reports whether a child of s may have at most Empties empty
// cells.
func (p *Connect4) Reaches(s games.State) bool {
	st, ok := s.(*connect4.State)
	return ok && connect4.Cells-st.MoveNumber() <= p.Empties+1
}

// Nodes returns the positions the solver has searched.
func (p *Connect4) Nodes() uint64 { return p.solver.Nodes() }
