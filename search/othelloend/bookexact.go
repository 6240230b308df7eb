package othelloend

import (
	"fmt"

	"tabula/games"
	"tabula/games/othello"
)

// MaxBookEmpties bounds BookExact's maxEmpties: beyond it one solve takes
// seconds or more, too slow for the many leaves of a book.
const MaxBookEmpties = 22

// BookExact returns an exact valuation of Othello positions for opening
// book learning (search/book's LearnConfig.Exact): for a position with at
// most maxEmpties empty squares, the game's result under perfect play for
// the side to move, +1 a win, 0 a draw, -1 a loss (the scale of the
// games' own results); ok is false for a larger position, left to the
// book's search. The win/draw/loss search is a null-window solve, Search
// (p, o, -1, 1), on one solver of cfg (so not safe for concurrent use). A
// position of another game or board size is an error.
func BookExact(cfg Config, maxEmpties int) (func(s games.State) (v float64, ok bool, err error), error) {
	if maxEmpties < 0 || maxEmpties > MaxBookEmpties {
		return nil, fmt.Errorf("othelloend: exact book leaves at %d empties, want 0..%d", maxEmpties, MaxBookEmpties)
	}
	sv, err := New(cfg)
	if err != nil {
		return nil, err
	}
	size := cfg.Size
	if size == 0 {
		size = 8
	}
	return func(s games.State) (float64, bool, error) {
		st, isOthello := s.(*othello.State)
		if !isOthello {
			return 0, false, fmt.Errorf("othelloend: exact book value of a %T, not an othello position", s)
		}
		if n := st.Game().(*othello.Game).Size(); n != size {
			return 0, false, fmt.Errorf("othelloend: exact book value of a %dx%d position with a %dx%d solver", n, n, size, size)
		}
		if Empties(st) > maxEmpties {
			return 0, false, nil
		}
		p, o := st.Boards()
		score, _ := sv.Search(p, o, -1, 1)
		switch {
		case score > 0:
			return 1, true, nil
		case score < 0:
			return -1, true, nil
		}
		return 0, true, nil
	}, nil
}
