// Package all registers every game of this module with package games, so
// that games.New accepts any of their specs. Commands import it for that
// side effect alone:
//
//	import _ "tabula/games/all"
//
// A new game package is added here; the package's test fails while one that
// registers itself is missing.
package all

import (
	_ "tabula/games/backgammon"
	_ "tabula/games/chess"
	_ "tabula/games/connect4"
	_ "tabula/games/connect4/small"
	_ "tabula/games/gogame"
	_ "tabula/games/othello"
	_ "tabula/games/phantom"
	_ "tabula/games/poker"
	_ "tabula/games/tictactoe"
	_ "tabula/games/whist"
)
