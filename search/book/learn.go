package book

import (
	"errors"
	"fmt"
	"math"

	"tabula/games"
)

// GameLine is one played game for Learn: its actions from the initial
// state and its result for the first and the second mover (+1 win, -1
// loss, 0 draw).
type GameLine struct {
	Actions []int
	Returns [2]float64
}

// LearnConfig holds the settings of Learn.
type LearnConfig struct {
	// MaxPly adds the first MaxPly plies of each game to the tree.
	MaxPly int
	// MinGame keeps a move in the tree only when at least this many games
	// played it in its position (counting transpositions and symmetric
	// images as one position). Moves played less often are left to the
	// deviation search.
	MinGame int
	// LeafSearch values the tree's leaves by Eval instead of by the mean
	// result of the games that reached them.
	LeafSearch bool
	// Exact, when set, values exactly the positions it can (an endgame
	// solver's, near the end of the game): a leaf it takes gets its value
	// instead of the games' mean result or Eval's, and so does a
	// deviation's position, in place of Eval; deviations are searched
	// among the positions it takes even when Learn's eval is nil.
	Exact Exact
}

// Exact values a non-terminal state exactly for its player to move, on the
// scale of the games' results (+1 win, 0 draw, -1 loss), when it can: ok
// false leaves the state to the mean of the results or to Eval.
type Exact func(s games.State) (v float64, ok bool, err error)

// DefaultLearnConfig returns MaxPly 20, MinGame 2, leaves valued by
// results.
func DefaultLearnConfig() LearnConfig { return LearnConfig{MaxPly: 20, MinGame: 2} }

// Validate checks the ranges.
func (c LearnConfig) Validate() error {
	if c.MaxPly < 1 {
		return fmt.Errorf("book: MaxPly %d, want >= 1", c.MaxPly)
	}
	if c.MinGame < 1 {
		return fmt.Errorf("book: MinGame %d, want >= 1", c.MinGame)
	}
	return nil
}

// Eval values a non-terminal state for its player to move, in [-1, 1]
// (values outside are clamped): a search of the position, for deviations
// and, with LeafSearch, leaves.
type Eval func(s games.State) (float64, error)

// LearnStats counts what Learn built.
type LearnStats struct {
	Games      int // game lines read
	Positions  int // distinct positions (up to symmetry) in the tree, leaves included
	Interior   int // positions with at least one move kept (the book's positions)
	Entries    int // entries written
	Deviations int // deviation entries among them
	Evals      int // calls to Eval
	Exact      int // positions valued by LearnConfig.Exact
}

// Learn builds a game book from played games by Logistello's method (M.
// Buro, "Toward opening book learning", ICCA Journal 22(2), 1999): the
// games' first cfg.MaxPly plies form a tree of positions (a DAG: positions
// reached by transposition or as symmetric images are one node); a move is
// in the tree when cfg.MinGame games played it. A leaf (a position with no
// move in the tree) is valued by the mean result of the games that reached
// it, for its player to move, or with cfg.LeafSearch by eval; a terminal
// position by its result. At every interior position the best deviation,
// the best legal move not in the tree, is valued by eval on the position
// it leads to. A position's value is negamax over its tree moves and its
// deviation: the best of the tree moves' backed-up values and the
// deviation's value (a child's value is negated when the player to move
// changes). So a line the games favoured is dropped from the book's choice
// as soon as a search finds something better at any point along it, and a
// deviation that a search likes becomes the book move, to be tried in the
// next games. eval nil gives a book without deviations (but for those
// cfg.Exact values). With cfg.Exact, the leaves and deviations it takes
// (positions close enough to the end for a solver) are valued exactly
// instead: Buro's book valued its leaves "as exactly as possible".
//
// The book holds, for each interior position, its tree moves (Count the
// games that played them) and its deviation (FlagDeviation, Count 0), each
// with its backed-up value for the player to move.
func Learn(g games.Game, lines []GameLine, cfg LearnConfig, eval Eval) (*GameBook, LearnStats, error) {
	var st LearnStats
	if err := cfg.Validate(); err != nil {
		return nil, st, err
	}
	if err := games.RequireDeterministic(g, "an opening book"); err != nil {
		return nil, st, fmt.Errorf("book: %w", err)
	}
	if err := games.RequirePerfectInformation(g, "an opening book"); err != nil {
		return nil, st, fmt.Errorf("book: %w", err)
	}
	type edge struct {
		action int // canonical, the first action that reached child
		child  uint64
		n      int
	}
	type node struct {
		state  games.State // a representative, in its own coordinates
		k      int         // state's canonical symmetry
		edges  []*edge
		n      int     // games through the node
		sum    float64 // their results for its player to move
		status int8    // 0 not valued, 1 being valued, 2 valued
		value  float64
		leaf   float64 // the leaf value, once computed
		leafOK bool
		dev    *GameEntry
	}
	nodes := map[uint64]*node{}
	var order []uint64
	// visit adds s to its node and returns the node's key, the symmetry
	// that maps s itself (not the node's representative) to the canonical
	// image, and the node.
	visit := func(s games.State, result [2]float64) (uint64, int, *node) {
		key, k := CanonicalKey(g, s)
		nd := nodes[key]
		if nd == nil {
			nd = &node{state: s.Clone(), k: k}
			nodes[key] = nd
			order = append(order, key)
		}
		nd.n++
		if !s.IsTerminal() {
			nd.sum += result[s.CurrentPlayer()]
		}
		return key, k, nd
	}
	for gi, line := range lines {
		s := g.NewInitialState()
		_, k, nd := visit(s, line.Returns)
		for ply, a := range line.Actions {
			if ply >= cfg.MaxPly {
				break
			}
			if s.IsTerminal() || a < 0 || a >= g.NumActions() || !s.IsLegal(a) {
				return nil, st, fmt.Errorf("book: game %d: move %d (action %d) is not legal", gi+1, ply+1, a)
			}
			// The action in the canonical image's coordinates: through s's
			// own symmetry, for s may be a mirror image of the node's
			// representative.
			ca := canonicalAction(g, k, a)
			s.ApplyAction(a)
			ck, ckk, cn := visit(s, line.Returns)
			var e *edge
			for _, o := range nd.edges {
				if o.child == ck {
					e = o
					break
				}
			}
			if e == nil {
				e = &edge{action: ca, child: ck}
				nd.edges = append(nd.edges, e)
			}
			e.n++
			nd, k = cn, ckk
		}
	}
	st.Games = len(lines)
	st.Positions = len(nodes)

	var evalErr error
	evaluate := func(s games.State) float64 {
		if evalErr != nil {
			return 0
		}
		st.Evals++
		v, err := eval(s)
		if err != nil {
			evalErr = fmt.Errorf("search: %w", err)
			return 0
		}
		return max(-1, min(1, v))
	}
	// exact is cfg.Exact's value of s, if it gives one.
	exact := func(s games.State) (float64, bool) {
		if cfg.Exact == nil || evalErr != nil {
			return 0, false
		}
		v, ok, err := cfg.Exact(s)
		if err != nil {
			evalErr = fmt.Errorf("exact value: %w", err)
			return 0, false
		}
		if ok {
			st.Exact++
		}
		return max(-1, min(1, v)), ok
	}
	interior := func(nd *node) bool {
		for _, e := range nd.edges {
			if e.n >= cfg.MinGame {
				return true
			}
		}
		return false
	}
	// childValue is the value for player mover of child c.
	var value func(nd *node) float64
	childValue := func(c *node, mover int) float64 {
		if c.state.IsTerminal() {
			return c.state.Returns()[mover]
		}
		var v float64
		if interior(c) && c.status != 1 {
			v = value(c)
		} else {
			if !c.leafOK {
				if ev, ok := exact(c.state); ok {
					c.leaf = ev
				} else if cfg.LeafSearch && eval != nil {
					c.leaf = evaluate(c.state)
				} else {
					c.leaf = c.sum / float64(c.n)
				}
				c.leafOK = true
			}
			v = c.leaf
		}
		if c.state.CurrentPlayer() != mover {
			v = -v
		}
		return v
	}
	value = func(nd *node) float64 {
		if nd.status == 2 {
			return nd.value
		}
		nd.status = 1
		mover := nd.state.CurrentPlayer()
		best := math.Inf(-1)
		inTree := map[uint64]bool{}
		for _, e := range nd.edges {
			if e.n >= cfg.MinGame {
				inTree[e.child] = true
				best = max(best, childValue(nodes[e.child], mover))
			}
		}
		if eval != nil || cfg.Exact != nil {
			devBest, devAction := math.Inf(-1), -1
			for _, a := range nd.state.LegalActions(nil) {
				c := nd.state.Clone()
				c.ApplyAction(a)
				ck, _ := CanonicalKey(g, c)
				if inTree[ck] {
					continue
				}
				inTree[ck] = true // a symmetric twin of a move already tried
				var v float64
				if c.IsTerminal() {
					v = c.Returns()[mover]
				} else {
					ev, ok := exact(c)
					switch {
					case ok:
						v = ev
					case eval != nil:
						v = evaluate(c)
					default:
						continue // no search to value it
					}
					if c.CurrentPlayer() != mover {
						v = -v
					}
				}
				if v > devBest {
					devBest, devAction = v, a
				}
			}
			if devAction >= 0 {
				nd.dev = &GameEntry{Action: uint32(canonicalAction(g, nd.k, devAction)), Value: float32(devBest), Flags: FlagDeviation}
				best = max(best, devBest)
			}
		}
		nd.status, nd.value = 2, best
		return best
	}
	var entries []GameEntry
	for _, key := range order {
		nd := nodes[key]
		if !interior(nd) {
			continue
		}
		value(nd)
		if evalErr != nil {
			return nil, st, fmt.Errorf("book: %w", evalErr)
		}
		st.Interior++
		mover := nd.state.CurrentPlayer()
		for _, e := range nd.edges {
			if e.n >= cfg.MinGame {
				entries = append(entries, GameEntry{Key: key, Action: uint32(e.action), Count: uint32(e.n),
					Value: float32(childValue(nodes[e.child], mover))})
			}
		}
		if nd.dev != nil {
			d := *nd.dev
			d.Key = key
			entries = append(entries, d)
			st.Deviations++
		}
	}
	if evalErr != nil {
		return nil, st, fmt.Errorf("book: %w", evalErr)
	}
	st.Entries = len(entries)
	if len(entries) == 0 && len(lines) > 0 {
		return nil, st, errors.New("book: no move was played often enough to enter the book (lower MinGame, or give more games)")
	}
	return NewGameBook(g, entries), st, nil
}
