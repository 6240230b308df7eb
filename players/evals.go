package players

import (
	"fmt"

	"tabula/games"
	"tabula/games/chess"
)

// horizonEval returns the evaluation an alphabeta player's eval key names
// for g: nil for hand (the game's own games.Heuristic), or the game's tuned
// weights (fitted by scripts/texel).
func horizonEval(g games.Game, name string) (games.Heuristic, error) {
	switch name {
	case "hand":
		return nil, nil
	case "tuned":
		switch g.(type) {
		case chess.Game:
			return chess.Evaluator{W: &chess.TunedWeights}, nil
		}
		return nil, fmt.Errorf("eval=tuned: no tuned weights for %s (chess has them)", g.Name())
	}
	return nil, fmt.Errorf("eval=%q: want hand or tuned", name)
}
