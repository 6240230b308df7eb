package search

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"time"

	"tabula/games"
)

// Config sets a Searcher's budget and features. The search stops at the first
// budget reached; with none, it deepens until the result is proven.
type Config struct {
	// Depth is the deepest iteration in plies; 0 means no depth limit.
	Depth int `yaml:"depth"`
	// Nodes is a node budget over the whole call; 0 means none. The
	// depth-1 iteration always completes, whatever the budget.
	Nodes int64 `yaml:"nodes"`
	// Time is a time budget; 0 means none (the context still applies).
	Time time.Duration `yaml:"time"`
	// TableBits is log2 of the number of transposition-table buckets (two
	// 32-byte slots each); 0 disables the table.
	TableBits int `yaml:"table_bits"`
	// Ordering enables move ordering: the table's move first, then two
	// killer moves per ply, then the rest by the history heuristic.
	Ordering bool `yaml:"ordering"`
	// PVS enables principal-variation search: moves after the first are
	// tried with a null window and re-searched only when they fail high.
	PVS bool `yaml:"pvs"`
}

// DefaultConfig is depth 6 with every feature on and a 2^16-bucket (4 MiB)
// table.
func DefaultConfig() Config {
	return Config{Depth: 6, TableBits: 16, Ordering: true, PVS: true}
}

// MaxTableBits bounds Config.TableBits (2^26 buckets is 4 GiB).
const MaxTableBits = 26

// Validate names the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.Depth < 0 || c.Depth > 1000:
		return fmt.Errorf("search: depth = %d, want 0..1000 (0: no limit)", c.Depth)
	case c.Nodes < 0:
		return fmt.Errorf("search: nodes = %d, want >= 0 (0: no limit)", c.Nodes)
	case c.Time < 0:
		return fmt.Errorf("search: time = %v, want >= 0 (0: no limit)", c.Time)
	case c.TableBits < 0 || c.TableBits > MaxTableBits:
		return fmt.Errorf("search: table_bits = %d, want 0..%d (0: no table)", c.TableBits, MaxTableBits)
	}
	return nil
}

// Result is the outcome of Searcher.Search.
type Result struct {
	Move   int     // the best move found
	Value  float64 // its value for the player to move (see the package comment)
	Depth  int     // the deepest completed iteration
	Nodes  int64   // nodes visited, every iteration included
	PV     []int   // principal variation from the root, Move first (may be cut short)
	Proven bool    // the value is exact: no leaf of the last iteration was heuristic, or it is a proven win or loss
}

// Copier is an optional capability of a State: CopyFrom overwrites the
// receiver with src, a state of the same game, without allocating. Searcher
// uses it to refresh its per-ply child states. Without it, a state whose
// concrete type is a pointer to a struct holding only values (no slices,
// maps or pointers other than to its immutable Game) is copied by plain
// assignment; any other state is refreshed with Clone, which allocates.
type Copier interface {
	CopyFrom(src games.State)
}

// Searcher is an alpha-beta search engine for one game. It keeps its
// transposition table, killer and history tables between calls (use Reset to
// forget them). It is not safe for concurrent use: give each goroutine its own.
type Searcher struct {
	cfg   Config
	game  games.Game
	h     games.Heuristic
	tt    *table
	kind  copyKind
	ctx   context.Context
	dl    time.Time
	hasDL bool

	// Per ply, allocated once and reused.
	states  []games.State
	moves   [][]int
	scores  [][]int64
	killers [][2]int
	pv      [][]int
	pvLen   []int
	history []int64 // [player*NumActions + action]
	rootPV  []int   // principal variation of the last completed iteration

	nodes    int64
	horizons int64 // heuristic leaves and cutoffs on unproven entries
	abort    bool
	canAbort bool
}

type copyKind int

const (
	copyClone copyKind = iota
	copyCopier
	copyAssign
)

// New returns a Searcher for g, which must implement games.Heuristic.
func New(g games.Game, cfg Config) (*Searcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := games.RequireDeterministic(g, "search (alpha-beta)"); err != nil {
		return nil, err
	}
	h, err := heuristicOf(g)
	if err != nil {
		return nil, err
	}
	s := &Searcher{cfg: cfg, game: g, h: h, history: make([]int64, 2*g.NumActions())}
	if cfg.TableBits > 0 {
		s.tt = newTable(cfg.TableBits)
	}
	s.kind = copyKindOf(g.NewInitialState())
	return s, nil
}

// Reset forgets the transposition table, killers and history.
func (s *Searcher) Reset() {
	if s.tt != nil {
		s.tt.clear()
	}
	clear(s.history)
	for i := range s.killers {
		s.killers[i] = [2]int{-1, -1}
	}
}

// copyKindOf decides how states of st's type are refreshed.
func copyKindOf(st games.State) copyKind {
	if _, ok := st.(Copier); ok {
		return copyCopier
	}
	t := reflect.TypeOf(st)
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct && plainStruct(t.Elem()) {
		return copyAssign
	}
	return copyClone
}

var gameType = reflect.TypeFor[games.Game]()

// plainStruct reports whether copying a value of struct type t by assignment
// makes an independent copy: it holds no reference types other than pointers
// to a games.Game (immutable by contract).
func plainStruct(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if !plainType(t.Field(i).Type) {
			return false
		}
	}
	return true
}

func plainType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	case reflect.Array:
		return plainType(t.Elem())
	case reflect.Struct:
		return plainStruct(t)
	case reflect.Pointer:
		return t.Implements(gameType)
	}
	return false
}

// refresh makes ply's state a copy of src, allocating only where the state
// type offers no way to copy in place.
func (s *Searcher) refresh(ply int, src games.State) {
	switch {
	case s.states[ply] == nil || s.kind == copyClone:
		s.states[ply] = src.Clone()
	case s.kind == copyCopier:
		s.states[ply].(Copier).CopyFrom(src)
	default:
		reflect.ValueOf(s.states[ply]).Elem().Set(reflect.ValueOf(src).Elem())
	}
}

// ensurePlies allocates per-ply buffers up to n plies.
func (s *Searcher) ensurePlies(n int) {
	for len(s.states) < n+2 {
		s.states = append(s.states, nil)
		s.moves = append(s.moves, make([]int, 0, s.game.NumActions()))
		s.scores = append(s.scores, make([]int64, s.game.NumActions()))
		s.killers = append(s.killers, [2]int{-1, -1})
		s.pv = append(s.pv, make([]int, n+2))
		s.pvLen = append(s.pvLen, 0)
	}
	for i := range s.pv {
		if len(s.pv[i]) < n+2 {
			s.pv[i] = make([]int, n+2)
		}
	}
}

// unlimitedDepth is the deepest iteration when Config.Depth is 0.
const unlimitedDepth = 128

// Search runs iterative deepening from root (which it does not modify) and
// returns the best move of the deepest completed iteration. It stops at the
// first of: cfg.Depth reached, a proven result, the node or time budget, or
// ctx done (the depth-1 iteration always completes, so a move is always
// returned for a non-terminal root).
func (s *Searcher) Search(ctx context.Context, root games.State) (Result, error) {
	if root == nil || root.IsTerminal() {
		return Result{}, fmt.Errorf("search: no move to search: the game is over")
	}
	if root.Game().Name() != s.game.Name() {
		return Result{}, fmt.Errorf("search: state of game %s given to a searcher for %s", root.Game().Name(), s.game.Name())
	}
	s.ctx = ctx
	s.dl, s.hasDL = ctx.Deadline()
	if s.cfg.Time > 0 {
		if d := time.Now().Add(s.cfg.Time); !s.hasDL || d.Before(s.dl) {
			s.dl, s.hasDL = d, true
		}
	}
	maxDepth := s.cfg.Depth
	if maxDepth == 0 {
		maxDepth = min(max(root.Game().MaxGameLength()-root.MoveNumber()+1, 1), unlimitedDepth)
	}
	s.ensurePlies(maxDepth)
	if s.tt != nil {
		s.tt.gen++
	}
	s.nodes, s.abort = 0, false
	s.refresh(0, root)
	var res Result
	s.rootPV = s.rootPV[:0]
	for d := 1; d <= maxDepth; d++ {
		s.canAbort = d > 1
		if s.canAbort && s.outOfTime() {
			break
		}
		s.horizons = 0
		v := s.negamax(0, d, math.Inf(-1), math.Inf(1))
		if s.abort {
			break
		}
		res.Value, res.Depth = v, d
		s.rootPV = append(s.rootPV[:0], s.pv[0][:s.pvLen[0]]...)
		res.Move = s.rootPV[0]
		res.Proven = s.horizons == 0 || IsProven(v)
		if res.Proven {
			break
		}
	}
	res.Nodes = s.nodes
	res.PV = append([]int(nil), s.rootPV...)
	if err := ctx.Err(); err != nil && res.Depth == 0 {
		return res, fmt.Errorf("search: %w", err)
	}
	return res, nil
}

// checkBudget sets s.abort when a budget is spent. The clock and the context
// are looked at every 1024 nodes.
func (s *Searcher) checkBudget() {
	if !s.canAbort {
		return
	}
	if s.cfg.Nodes > 0 && s.nodes >= s.cfg.Nodes {
		s.abort = true
		return
	}
	if s.nodes&1023 == 0 && s.outOfTime() {
		s.abort = true
	}
}

// outOfTime reports whether the deadline has passed or the context is done.
func (s *Searcher) outOfTime() bool {
	if s.hasDL && !time.Now().Before(s.dl) {
		return true
	}
	select {
	case <-s.ctx.Done():
		return true
	default:
		return false
	}
}

// nullWindow is the width of PVS's null window. Scores are floats: a value
// strictly inside (alpha, alpha+nullWindow) is still exact (fail-soft), so
// the width only has to be positive.
const nullWindow = 1e-9

// negamax searches the non-terminal state at ply to depth plies and returns
// its fail-soft value for the player to move.
func (s *Searcher) negamax(ply, depth int, alpha, beta float64) float64 {
	s.nodes++
	s.pvLen[ply] = 0
	s.checkBudget()
	if s.abort {
		return 0
	}
	st := s.states[ply]
	if depth <= 0 {
		s.horizons++
		return s.h.Evaluate(st)
	}
	key := st.Hash()
	hashMove := -1
	if s.tt != nil {
		if e, ok := s.tt.probe(key); ok {
			if s.cfg.Ordering {
				hashMove = int(e.move)
			}
			// Only an entry of exactly this depth may cut: an entry from a
			// deeper search would make the result differ from the
			// fixed-depth value (search instability), and one from a
			// shallower search is not a bound on it.
			if ply > 0 && int(e.depth) == depth {
				kind := e.flags &^ flagHorizon
				if kind == boundExact || (kind == boundLower && e.value >= beta) || (kind == boundUpper && e.value <= alpha) {
					if e.flags&flagHorizon != 0 {
						s.horizons++
					}
					return e.value
				}
			}
		}
	}
	me := st.CurrentPlayer()
	moves := st.LegalActions(s.moves[ply][:0])
	s.moves[ply] = moves
	if s.cfg.Ordering {
		s.order(ply, me, moves, hashMove)
	}
	alphaOrig := alpha
	horizonsBefore := s.horizons
	best, bestMove := math.Inf(-1), moves[0]
	for i, a := range moves {
		s.refresh(ply+1, st)
		child := s.states[ply+1]
		child.ApplyAction(a)
		var v float64
		if child.IsTerminal() {
			s.nodes++
			s.pvLen[ply+1] = 0
			v = terminalValue(child, me)
		} else if i > 0 && s.cfg.PVS && !math.IsInf(alpha, -1) {
			v = s.child(ply, depth, me, alpha, alpha+nullWindow)
			if v > alpha && v >= alpha+nullWindow && v < beta && !s.abort {
				v = s.child(ply, depth, me, v, beta)
			}
		} else {
			v = s.child(ply, depth, me, alpha, beta)
		}
		if s.abort {
			return 0
		}
		if v > best {
			best, bestMove = v, a
			if v > alpha {
				alpha = v
				s.pv[ply][0] = a
				copy(s.pv[ply][1:], s.pv[ply+1][:s.pvLen[ply+1]])
				s.pvLen[ply] = 1 + s.pvLen[ply+1]
			} else if s.pvLen[ply] == 0 {
				s.pv[ply][0], s.pvLen[ply] = a, 1
			}
		}
		if alpha >= beta {
			if s.cfg.Ordering {
				s.cutoff(ply, me, a, depth)
			}
			break
		}
	}
	if s.tt != nil {
		flags := boundExact
		switch {
		case best >= beta:
			flags = boundLower
		case best <= alphaOrig:
			flags = boundUpper
		}
		if s.horizons != horizonsBefore {
			flags |= flagHorizon
		}
		s.tt.store(key, best, bestMove, depth, flags)
	}
	return best
}

// child searches the state at ply+1, reached by a move of player me, with
// window (alpha, beta) from me's point of view and returns its value for me.
func (s *Searcher) child(ply, depth, me int, alpha, beta float64) float64 {
	if s.states[ply+1].CurrentPlayer() == me {
		return s.negamax(ply+1, depth-1, alpha, beta)
	}
	return -s.negamax(ply+1, depth-1, -beta, -alpha)
}

// Ordering scores: the hash move, then the killers, then history.
const (
	scoreHash   = math.MaxInt64
	scoreKiller = math.MaxInt64 - 2
)

// order sorts moves in place: the hash move, the two killers of this ply,
// then by history score; ties keep the natural order (insertion sort, stable,
// allocation-free).
func (s *Searcher) order(ply, me int, moves []int, hashMove int) {
	sc := s.scores[ply][:len(moves)]
	k := s.killers[ply]
	hist := s.history[me*s.game.NumActions():]
	for i, a := range moves {
		switch a {
		case hashMove:
			sc[i] = scoreHash
		case k[0]:
			sc[i] = scoreKiller
		case k[1]:
			sc[i] = scoreKiller - 1
		default:
			sc[i] = hist[a]
		}
	}
	for i := 1; i < len(moves); i++ {
		a, v := moves[i], sc[i]
		j := i - 1
		for j >= 0 && sc[j] < v {
			moves[j+1], sc[j+1] = moves[j], sc[j]
			j--
		}
		moves[j+1], sc[j+1] = a, v
	}
}

// cutoff records move a, which caused a beta cutoff, as a killer and in the
// history table.
func (s *Searcher) cutoff(ply, me, a, depth int) {
	if k := &s.killers[ply]; k[0] != a {
		k[1], k[0] = k[0], a
	}
	h := &s.history[me*s.game.NumActions()+a]
	*h += int64(depth) * int64(depth)
	if *h > 1<<40 { // keep history far below the killer scores
		for i := range s.history {
			s.history[i] /= 2
		}
	}
}
