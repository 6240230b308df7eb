package players

import (
	"fmt"

	"tabula/games"
	"tabula/games/chess"
	"tabula/games/connect4"
	"tabula/games/othello"
)

// horizonEval returns the evaluation an alphabeta player's eval key names
// for g: nil for hand (the game's own games.Heuristic), the game's tuned
// weights (fitted by scripts/texel), or for chess basic (the hand weights
// without rook-file and king-attack terms).
func horizonEval(g games.Game, name string) (games.Heuristic, error) {
	switch name {
	case "hand":
		return nil, nil
	case "basic":
		if _, ok := g.(chess.Game); !ok {
			return nil, fmt.Errorf("eval=basic is for chess only, not %s", g.Name())
		}
		return chess.Evaluator{W: &chess.BasicWeights}, nil
	case "tuned":
		switch g := g.(type) {
		case chess.Game:
			return chess.Evaluator{W: &chess.TunedWeights}, nil
		case connect4.Game:
			return connect4.Evaluator{W: &connect4.TunedWeights}, nil
		case *othello.Game:
			if g.Size() != 8 {
				return nil, fmt.Errorf("eval=tuned: the othello weights were fitted on the 8x8 board, not %dx%d", g.Size(), g.Size())
			}
			return othello.Evaluator{G: g, W: &othello.TunedWeights}, nil
		}
		return nil, fmt.Errorf("eval=tuned: no tuned weights for %s (chess, connect4 and othello have them)", g.Name())
	}
	return nil, fmt.Errorf("eval=%q: want hand, tuned or basic (chess)", name)
}
