package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"tabula/games"
	"tabula/internal/cputime"
)

// Searching games of chance (games.Stochastic): EXPECTIMINIMAX as in the
// textbook (Russell and Norvig, "Games of chance"), and Ballard's *-minimax
// pruning (Ballard 1983, "The *-minimax search procedure for trees
// containing chance nodes"): Star1, alpha-beta carried through chance nodes
// with the bounds L and U of every value, and Star2, which first probes one
// move of each chance outcome to bound the node before searching it.
//
// Values are from player 0's point of view inside the search (player 0
// maximises, player 1 minimises, a chance node takes the expectation, as in
// the textbook); Result.Value is for the player to move at the root. A
// terminal state scores Returns()[0]; the evaluation at the horizon must lie
// in [ChanceLow, ChanceHigh] = [-1, 1], which is what makes the pruning
// sound (the textbook's point that the evaluation must be a positive linear
// transform of the win probability matters for the choice of move, not for
// the soundness of the bounds).
//
// Depth counts turns: a decision's children stay at its depth while the same
// player moves again (the second half of a roll of doubles) and go one
// shallower when the turn passes (to a chance node or to the other player);
// a chance node or a decision of the other player reached at depth 0 is
// evaluated. So depth 1 is the usual "1-ply" backgammon player (each turn
// scored by the evaluation of the position it reaches), depth 2 looks at
// every roll of the opponent and its best reply.

// ChanceLow and ChanceHigh bound every value in the search of a game of
// chance: returns and evaluations lie in [ChanceLow, ChanceHigh].
const (
	ChanceLow  = -1.0
	ChanceHigh = 1.0
)

// Evaluation scores a non-terminal state for the player who moves next (at
// a chance node, games.ChanceState.NextPlayer) within [-1, 1].
type Evaluation func(s games.State) float64

// HeuristicEvaluation adapts a game's games.Heuristic.
func HeuristicEvaluation(h games.Heuristic) Evaluation { return h.Evaluate }

// Pruning selects the chance-node algorithm of ExpectiSearcher.
type Pruning int

const (
	// NoPruning is plain EXPECTIMINIMAX: every node to the horizon.
	NoPruning Pruning = iota
	// Star1 carries alpha-beta windows through chance nodes.
	Star1
	// Star2 adds a probing phase to Star1 at every chance node whose
	// outcomes lead to decisions.
	Star2
)

// String names the pruning as the player specs do.
func (p Pruning) String() string {
	switch p {
	case NoPruning:
		return "none"
	case Star1:
		return "star1"
	case Star2:
		return "star2"
	}
	return fmt.Sprintf("pruning(%d)", int(p))
}

// ParsePruning reads "none", "star1" or "star2".
func ParsePruning(s string) (Pruning, error) {
	for _, p := range []Pruning{NoPruning, Star1, Star2} {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("search: pruning %q, want none, star1 or star2", s)
}

// ExpectiConfig configures an ExpectiSearcher.
type ExpectiConfig struct {
	// Depth is the number of turns searched, 1..8.
	Depth int `yaml:"depth"`
	// Pruning is none (plain expectiminimax), star1 or star2.
	Pruning Pruning `yaml:"pruning"`
}

// Validate names the first field out of range.
func (c ExpectiConfig) Validate() error {
	switch {
	case c.Depth < 1 || c.Depth > 8:
		return fmt.Errorf("search: expectiminimax depth = %d, want 1..8", c.Depth)
	case c.Pruning < NoPruning || c.Pruning > Star2:
		return fmt.Errorf("search: expectiminimax pruning = %d, want none, star1 or star2", c.Pruning)
	}
	return nil
}

// ExpectiResult is the outcome of ExpectiSearcher.Search.
type ExpectiResult struct {
	Move  int     // the best move
	Value float64 // its value for the player to move, in [-1, 1]
	Nodes int64   // nodes visited (decisions, chance nodes and leaves)
	Depth int     // the depth in turns of the search that chose Move
}

// ExpectiSearcher searches games of chance (and deterministic games) to a
// fixed depth with an evaluation at the horizon. It is not safe for
// concurrent use.
type ExpectiSearcher struct {
	cfg   ExpectiConfig
	eval  Evaluation
	nodes int64
	outs  [][]games.ChanceOutcome // per recursion level
	moves [][]int
	root  []int // the root's moves, best first from the last iteration

	// A budgeted search (SearchLimits) may stop inside an iteration:
	// budget is looked at every 64 nodes while canAbort, and abort, once
	// set, makes every node return at once.
	budget   *expectiBudget
	canAbort bool
	abort    bool
}

// NewExpecti returns a searcher with configuration cfg and evaluation eval.
func NewExpecti(cfg ExpectiConfig, eval Evaluation) (*ExpectiSearcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if eval == nil {
		return nil, errors.New("search: expectiminimax needs an evaluation")
	}
	return &ExpectiSearcher{cfg: cfg, eval: eval}, nil
}

// Search returns the best move at root, a decision node, and its value,
// searched to the configured depth.
func (e *ExpectiSearcher) Search(root games.State) (ExpectiResult, error) {
	if err := checkExpectiRoot(root); err != nil {
		return ExpectiResult{}, err
	}
	e.nodes = 0
	e.budget, e.canAbort, e.abort = nil, false, false
	e.root = root.LegalActions(e.root[:0])
	return e.searchRoot(root, e.cfg.Depth), nil
}

func checkExpectiRoot(root games.State) error {
	if root == nil || root.IsTerminal() {
		return errors.New("search: expectiminimax: no move to search: the game is over")
	}
	if games.IsChanceNode(root) {
		return errors.New("search: expectiminimax: the root is a chance node: roll the dice first")
	}
	return nil
}

// ExpectiLimits bound one call of SearchLimits. Depth caps the iterations;
// MoveTime (wall clock) and CPU (the calling thread's CPU time, Linux) are
// budgets a move, 0 for none. With a budget, the searcher deepens one turn
// at a time from depth 1, which always completes; it starts the next
// iteration only while less than half the budget is spent and, once two
// iterations have shown how fast the cost grows, only when the next one is
// predicted to fit in what is left (each turn multiplies the tree by about
// 21 rolls times the replies to each, so an iteration that cannot finish
// would waste the rest of the budget). An iteration the budget or ctx stops
// is discarded: the move is the last completed iteration's.
type ExpectiLimits struct {
	Depth         int // deepest iteration, 1..8 (0: the configuration's Depth)
	MoveTime, CPU time.Duration
}

// expectiBudget is the clocks of one budgeted search.
type expectiBudget struct {
	ctx             context.Context
	wall0           time.Time
	cpuStart        time.Duration
	moveTime, cpu   time.Duration
	hasWall, hasCPU bool
}

// spent is the largest share of a budget used so far (1 or more: spent).
func (b *expectiBudget) spent() float64 {
	f := 0.0
	if b.hasWall {
		f = float64(time.Since(b.wall0)) / float64(b.moveTime)
	}
	if b.hasCPU {
		f = math.Max(f, float64(cputime.Thread()-b.cpuStart)/float64(b.cpu))
	}
	return f
}

// SearchLimits searches root by iterative deepening within l's depth and
// budgets, or until ctx is done (depth 1 always completes). Without a
// budget it searches to the depth at once, as Search does.
func (e *ExpectiSearcher) SearchLimits(ctx context.Context, root games.State, l ExpectiLimits) (ExpectiResult, error) {
	if err := checkExpectiRoot(root); err != nil {
		return ExpectiResult{}, err
	}
	maxDepth := l.Depth
	if maxDepth == 0 {
		maxDepth = e.cfg.Depth
	}
	if err := (ExpectiConfig{Depth: maxDepth, Pruning: e.cfg.Pruning}).Validate(); err != nil {
		return ExpectiResult{}, err
	}
	switch {
	case l.MoveTime < 0 || l.CPU < 0:
		return ExpectiResult{}, fmt.Errorf("search: expectiminimax budget time=%v cpu=%v, want 0 or more", l.MoveTime, l.CPU)
	case l.CPU > 0 && !cputime.ThreadMeasured():
		return ExpectiResult{}, fmt.Errorf("search: a CPU budget (%v) needs a per-thread CPU clock, which this system lacks (Linux has one)", l.CPU)
	}
	e.nodes = 0
	e.budget, e.canAbort, e.abort = nil, false, false
	e.root = root.LegalActions(e.root[:0])
	if l.MoveTime == 0 && l.CPU == 0 {
		return e.searchRoot(root, maxDepth), nil
	}
	b := &expectiBudget{ctx: ctx, wall0: time.Now(), moveTime: l.MoveTime, cpu: l.CPU, hasWall: l.MoveTime > 0, hasCPU: l.CPU > 0}
	if b.hasCPU {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		b.cpuStart = cputime.Thread()
	}
	e.budget = b
	defer func() { e.budget, e.canAbort, e.abort = nil, false, false }()
	var res ExpectiResult
	var cost [9]float64 // cost[d]: the share of the budget iteration d took
	for d := 1; d <= maxDepth; d++ {
		before := b.spent()
		if d > 1 {
			if before >= 0.5 || ctx.Err() != nil {
				break
			}
			if d > 2 && cost[d-2] > 0 {
				growth := math.Max(cost[d-1]/cost[d-2], 2)
				if before+cost[d-1]*growth > 1 {
					break
				}
			}
		}
		e.canAbort = d > 1
		r := e.searchRoot(root, d)
		if e.abort {
			res.Nodes = e.nodes
			break
		}
		res = r
		cost[d] = b.spent() - before
	}
	return res, nil
}

// check sets e.abort when the budget is spent or its context done.
func (e *ExpectiSearcher) check() {
	if e.budget.spent() >= 1 || e.budget.ctx.Err() != nil {
		e.abort = true
	}
}

// searchRoot searches root's moves (e.root, in that order) to depth d and
// moves the best to the front of e.root for the next iteration.
func (e *ExpectiSearcher) searchRoot(root games.State, d int) ExpectiResult {
	e.nodes++
	me := root.CurrentPlayer()
	// Player 0's point of view throughout: player 0 maximises, player 1
	// minimises; with pruning the window narrows as the best move improves.
	alpha, beta := math.Inf(-1), math.Inf(1)
	best, bestMove, bestAt := math.Inf(-1), -1, 0
	if me == 1 {
		best = math.Inf(1)
	}
	for i, a := range e.root {
		c := root.Clone()
		c.ApplyAction(a)
		v := e.value(c, e.childDepth(root, c, d), 1, alpha, beta)
		if e.abort {
			return ExpectiResult{}
		}
		// A later move that only ties the best may return a bound, not its
		// value: keep the first best, as plain expectiminimax does.
		switch {
		case me == 0 && v > best:
			best, bestMove, bestAt = v, a, i
			if e.cfg.Pruning != NoPruning {
				alpha = v
			}
		case me == 1 && v < best:
			best, bestMove, bestAt = v, a, i
			if e.cfg.Pruning != NoPruning {
				beta = v
			}
		}
	}
	copy(e.root[1:bestAt+1], e.root[:bestAt])
	e.root[0] = bestMove
	if me == 1 {
		best = -best
	}
	return ExpectiResult{Move: bestMove, Value: best, Nodes: e.nodes, Depth: d}
}

// Value returns the depth-limited value of s for player 0 and the nodes
// visited: plain expectiminimax, Star1 or Star2 by the configuration.
func (e *ExpectiSearcher) Value(s games.State) (float64, int64) {
	e.nodes = 0
	v := e.value(s, e.cfg.Depth, 0, math.Inf(-1), math.Inf(1))
	return v, e.nodes
}

// childDepth is the depth of child c of decision s searched to depth d.
func (e *ExpectiSearcher) childDepth(s, c games.State, d int) int {
	if c.IsTerminal() || games.IsChanceNode(c) || c.CurrentPlayer() != s.CurrentPlayer() {
		return d - 1
	}
	return d
}

// buffers returns the scratch slices of recursion level lvl.
func (e *ExpectiSearcher) buffers(lvl int) (*[]games.ChanceOutcome, *[]int) {
	for len(e.outs) <= lvl {
		e.outs = append(e.outs, nil)
		e.moves = append(e.moves, nil)
	}
	return &e.outs[lvl], &e.moves[lvl]
}

// leaf returns the value of s for player 0 when it is terminal or at the
// horizon, and ok = false otherwise.
func (e *ExpectiSearcher) leaf(s games.State, d int) (float64, bool) {
	if s.IsTerminal() {
		return s.Returns()[0], true
	}
	if d > 0 {
		return 0, false
	}
	p := s.CurrentPlayer()
	if cs, ok := s.(games.ChanceState); ok && cs.IsChanceNode() {
		p = cs.NextPlayer()
	}
	v := math.Max(ChanceLow, math.Min(ChanceHigh, e.eval(s)))
	if p == 1 {
		v = -v
	}
	return v, true
}

// value searches s to depth d with window (alpha, beta) for player 0 and
// returns its fail-soft value: exact strictly inside the window, an upper
// bound at or below alpha, a lower bound at or above beta. Without pruning
// the window is ignored and the value is exact.
func (e *ExpectiSearcher) value(s games.State, d, lvl int, alpha, beta float64) float64 {
	e.nodes++
	if e.canAbort && e.nodes&63 == 0 {
		e.check()
	}
	if e.abort {
		return 0
	}
	if v, ok := e.leaf(s, d); ok {
		return v
	}
	outs, moves := e.buffers(lvl)
	if cs, ok := s.(games.ChanceState); ok && cs.IsChanceNode() {
		*outs = cs.ChanceOutcomes((*outs)[:0])
		if e.cfg.Pruning == NoPruning {
			sum := 0.0
			for _, o := range *outs {
				c := s.Clone()
				c.ApplyAction(o.Action)
				sum += o.Prob * e.value(c, d, lvl+1, alpha, beta)
			}
			return sum
		}
		return e.chance(s, *outs, d, lvl, alpha, beta)
	}
	*moves = s.LegalActions((*moves)[:0])
	maxNode := s.CurrentPlayer() == 0
	best := math.Inf(1)
	if maxNode {
		best = math.Inf(-1)
	}
	for _, a := range *moves {
		c := s.Clone()
		c.ApplyAction(a)
		v := e.value(c, e.childDepth(s, c, d), lvl+1, alpha, beta)
		if maxNode {
			best = math.Max(best, v)
			if e.cfg.Pruning != NoPruning {
				alpha = math.Max(alpha, v)
			}
		} else {
			best = math.Min(best, v)
			if e.cfg.Pruning != NoPruning {
				beta = math.Min(beta, v)
			}
		}
		if alpha >= beta {
			break
		}
	}
	return best
}

// chance is a chance node under Star1 or Star2. Each outcome's value is
// known to lie in [lo[i], hi[i]], at first [ChanceLow, ChanceHigh]; the
// node's value then lies in [sum p lo, sum p hi], and the search stops as
// soon as that interval leaves the window. Each outcome is searched with the
// window that decides whether it can bring the node's bound past alpha or
// beta (Ballard's Star1). Star2 first probes every outcome whose state is a
// decision: the value of one move of it is a lower bound for a decision of
// player 0 and an upper bound for one of player 1.
func (e *ExpectiSearcher) chance(s games.State, outs []games.ChanceOutcome, d, lvl int, alpha, beta float64) float64 {
	n := len(outs)
	var loBuf, hiBuf [64]float64
	lo, hi := loBuf[:0], hiBuf[:0]
	if n > len(loBuf) {
		lo, hi = make([]float64, 0, n), make([]float64, 0, n)
	}
	sumLo, sumHi := 0.0, 0.0
	for _, o := range outs {
		lo, hi = append(lo, ChanceLow), append(hi, ChanceHigh)
		sumLo += o.Prob * ChanceLow
		sumHi += o.Prob * ChanceHigh
	}
	if sumHi <= alpha {
		return sumHi
	}
	if sumLo >= beta {
		return sumLo
	}
	children := make([]games.State, n)
	for i, o := range outs {
		children[i] = s.Clone()
		children[i].ApplyAction(o.Action)
	}
	if e.cfg.Pruning == Star2 {
		var buf []int
		for i, c := range children {
			if c.IsTerminal() || games.IsChanceNode(c) {
				continue
			}
			p := outs[i].Prob
			buf = c.LegalActions(buf[:0])
			g := c.Clone()
			g.ApplyAction(buf[0])
			gd := e.childDepth(c, g, d)
			if c.CurrentPlayer() == 0 {
				// One move of player 0 bounds the outcome from below; it
				// cuts the node off once it reaches b.
				b := (beta - (sumLo - p*lo[i])) / p
				v := e.value(g, gd, lvl+1, ChanceLow, math.Min(b, ChanceHigh))
				if v > ChanceLow && v > lo[i] { // exact or fail-high: the move is worth at least v
					sumLo += p * (v - lo[i])
					lo[i] = v
				}
			} else {
				a := (alpha - (sumHi - p*hi[i])) / p
				v := e.value(g, gd, lvl+1, math.Max(a, ChanceLow), ChanceHigh)
				if v < ChanceHigh && v < hi[i] { // exact or fail-low: the move is worth at most v
					sumHi += p * (v - hi[i])
					hi[i] = v
				}
			}
			if sumLo >= beta {
				return sumLo
			}
			if sumHi <= alpha {
				return sumHi
			}
		}
	}
	for i, c := range children {
		if lo[i] == hi[i] {
			continue
		}
		p := outs[i].Prob
		restLo, restHi := sumLo-p*lo[i], sumHi-p*hi[i]
		a := (alpha - restHi) / p // at or below a, the node is at most alpha
		b := (beta - restLo) / p  // at or above b, the node is at least beta
		wa, wb := math.Max(a, lo[i]), math.Min(b, hi[i])
		v := e.value(c, d, lvl+1, wa, wb)
		switch {
		case v <= wa && wa == a:
			return restHi + p*math.Min(v, hi[i]) // fail low
		case v >= wb && wb == b:
			return restLo + p*math.Max(v, lo[i]) // fail high
		case v <= wa: // at most lo[i], which bounds it from below: exact
			hi[i] = lo[i]
		case v >= wb:
			lo[i] = hi[i]
		default:
			lo[i], hi[i] = v, v
		}
		sumLo, sumHi = restLo+p*lo[i], restHi+p*hi[i]
		if sumHi <= alpha {
			return sumHi
		}
		if sumLo >= beta {
			return sumLo
		}
	}
	v := 0.0 // every outcome is exact: sum in order, as plain expectiminimax does
	for i, o := range outs {
		v += o.Prob * lo[i]
	}
	return v
}

// Expectiminimax returns the plain EXPECTIMINIMAX value of s for player 0 to
// depth turns with eval at the horizon, and the nodes visited: the reference
// that Star1 and Star2 are tested against.
func Expectiminimax(s games.State, depth int, eval Evaluation) (float64, int64, error) {
	return expectiValue(s, ExpectiConfig{Depth: depth, Pruning: NoPruning}, eval)
}

// StarValue returns the value of s for player 0 to depth turns under Star1
// or Star2, and the nodes visited.
func StarValue(s games.State, depth int, eval Evaluation, p Pruning) (float64, int64, error) {
	return expectiValue(s, ExpectiConfig{Depth: depth, Pruning: p}, eval)
}

func expectiValue(s games.State, cfg ExpectiConfig, eval Evaluation) (float64, int64, error) {
	e, err := NewExpecti(cfg, eval)
	if err != nil {
		return 0, 0, err
	}
	if s == nil || s.IsTerminal() {
		return 0, 0, errors.New("search: expectiminimax of a terminal state")
	}
	v, n := e.Value(s)
	return v, n, nil
}

// RolloutEvaluation returns Monte Carlo rollouts as an evaluation (the
// textbook's alternative to a static one): the mean result, for the player
// who moves next, of playouts games played to the end from s by policy (nil:
// uniformly random moves), the dice drawn from rng.
func RolloutEvaluation(playouts int, policy func(s games.State, rng *rand.Rand) int, rng *rand.Rand) (Evaluation, error) {
	if playouts < 1 {
		return nil, fmt.Errorf("search: rollouts = %d, want >= 1", playouts)
	}
	if rng == nil {
		return nil, errors.New("search: rollouts need an rng")
	}
	var buf []int
	var outs []games.ChanceOutcome
	return func(s games.State) float64 {
		me := s.CurrentPlayer()
		if cs, ok := s.(games.ChanceState); ok && cs.IsChanceNode() {
			me = cs.NextPlayer()
		}
		sum := 0.0
		for i := 0; i < playouts; i++ {
			c := s.Clone()
			for !c.IsTerminal() {
				if cs, ok := c.(games.ChanceState); ok && cs.IsChanceNode() {
					outs = cs.ChanceOutcomes(outs[:0])
					c.ApplyAction(games.SampleOutcome(outs, rng))
					continue
				}
				if policy != nil {
					c.ApplyAction(policy(c, rng))
					continue
				}
				buf = c.LegalActions(buf[:0])
				c.ApplyAction(buf[rng.IntN(len(buf))])
			}
			sum += c.Returns()[me]
		}
		return sum / float64(playouts)
	}, nil
}
