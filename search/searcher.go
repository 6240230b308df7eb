package search

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"tabula/games"
	"tabula/internal/cputime"
)

// Config sets a Searcher's budget and features. The search stops at the first
// budget reached; with none, it deepens until the result is proven.
//
// The selective features (Aspiration, Quiescence, Extensions,
// SingularExtensions, NullMove, LMR, Futility, LateMovePruning, SEEPruning,
// IIR) change the value a fixed-depth search returns; with all of them off
// the value equals plain alpha-beta's. Quiescence, SEE, Extensions,
// SingularExtensions, Futility, LateMovePruning and SEEPruning need the
// Tactical capability, NullMove also NullMover: games without them ignore
// those switches.
type Config struct {
	// Depth is the deepest iteration in plies; 0 means no depth limit.
	Depth int `yaml:"depth"`
	// Nodes is a node budget over the whole call; 0 means none. The
	// depth-1 iteration always completes, whatever the budget.
	Nodes int64 `yaml:"nodes"`
	// Time is a time budget per move; 0 means none (the context still
	// applies). See Limits for how it is spent.
	Time time.Duration `yaml:"time"`
	// CPU is a budget per move in the search threads' own CPU time (with
	// Threads > 1, the sum over the main search and its helpers); 0 means
	// none. Unlike Time it does not shrink when other processes take the
	// processor, so matches on a loaded machine stay fair. It needs a
	// thread CPU clock (Linux). See Limits.CPU.
	CPU time.Duration `yaml:"cpu"`
	// TableBits is log2 of the number of transposition-table buckets (two
	// 32-byte slots each); 0 disables the table.
	TableBits int `yaml:"table_bits"`
	// Ordering tries the table's move first and, in Tactical games,
	// captures and promotions before quiet moves, most valuable victim and
	// then least valuable attacker first (MVV-LVA).
	Ordering bool `yaml:"ordering"`
	// Killers tries two quiet moves per ply that caused a cutoff there
	// (killer moves) right after the captures.
	Killers bool `yaml:"killers"`
	// History orders the remaining quiet moves by how often and how deep
	// they caused cutoffs (history heuristic).
	History bool `yaml:"history"`
	// PVS enables principal-variation search: moves after the first are
	// tried with a null window and re-searched only when they fail high.
	PVS bool `yaml:"pvs"`
	// Aspiration searches each iteration from depth 4 on within a window
	// around the previous iteration's value, widening it on a fail.
	Aspiration bool `yaml:"aspiration"`
	// Quiescence searches captures and promotions (all moves when in
	// check) past the horizon until the position is quiet, with the
	// static evaluation as a stand-pat lower bound.
	Quiescence bool `yaml:"quiescence"`
	// SEE orders captures that lose material by static exchange
	// evaluation after the quiet moves, and skips them in quiescence.
	SEE bool `yaml:"see"`
	// Extensions searches a move that gives check one ply deeper.
	Extensions bool `yaml:"extensions"`
	// SingularExtensions searches the table's move one ply deeper at a
	// node of depth 8 or more (singularMinDepth) when a reduced search of
	// every other move, with that move excluded, fails low against the
	// move's table value minus a margin (see isSingular in negamax.go).
	// Without a transposition table it is ignored; AllFeatures leaves it
	// off.
	SingularExtensions bool `yaml:"singular_extensions"`
	// NullMove lets the opponent move twice at non-PV nodes of depth 3 or
	// more and cuts when a reduced search still fails high. It is skipped
	// in check and when the player to move has only king and pawns
	// (zugzwang).
	NullMove bool `yaml:"null_move"`
	// LMR searches quiet moves late in the order (from the fourth, at
	// depth 3 or more, not in check, not checking, not killers) with a
	// reduced depth, re-searching at full depth when one beats alpha.
	LMR bool `yaml:"lmr"`
	// Futility prunes at non-PV nodes near the horizon: a node whose
	// static evaluation beats beta by a depth-scaled margin returns it
	// (reverse futility), and quiet non-checking moves are skipped at
	// depth 1 and 2 when the evaluation plus a margin cannot reach alpha.
	Futility bool `yaml:"futility"`
	// LateMovePruning (move-count pruning) skips, at non-PV nodes of
	// depth 1 to lmpMaxDepth not in check, the quiet non-checking moves
	// that come after the first 3+depth^2 in the order (killers and the
	// first move are always searched), once some move has a value that is
	// not a proven loss. Tactical games only; AllFeatures leaves it off.
	LateMovePruning bool `yaml:"late_move_pruning"`
	// SEEPruning skips, at non-PV nodes of depth 1 to seePruneMaxDepth
	// not in check, the moves after the first that give no check and whose
	// static exchange loses more than a depth-scaled margin (quiet moves
	// seeQuietCP, captures seeNoisyCP centipawns per ply), once some move
	// has a value that is not a proven loss. Tactical games only;
	// AllFeatures leaves it off.
	SEEPruning bool `yaml:"see_pruning"`
	// RepetitionDraws scores a position reached in the tree (not the root)
	// that occurred before in the game as a draw: a player who can repeat
	// can repeat again, so the first repetition stands for the rule's
	// last. Games whose states are not Repeaters ignore it.
	RepetitionDraws bool `yaml:"repetition_draws"`
	// HistoryMalus, with History, also lowers the history score of the
	// quiet moves searched before the one that caused a cutoff, and ages
	// every update toward the score's bound (history gravity): h += b -
	// h|b|/historyMax, with b = +-depth^2 capped at historyBonusMax.
	HistoryMalus bool `yaml:"history_malus"`
	// ReverseFutilityDepth is the deepest remaining depth at which
	// Futility's reverse futility returns the static evaluation (0: the
	// default, defaultReverseFutilityDepth).
	ReverseFutilityDepth int `yaml:"reverse_futility_depth"`
	// IIR (internal iterative reduction) searches a node of depth
	// iirMinDepth or more that the transposition table knows nothing
	// about one ply shallower: without a table move its ordering is poor,
	// and the shallower search fills the table for the next iteration.
	// Needs the table; AllFeatures leaves it off.
	IIR bool `yaml:"iir"`
	// Beam, when above 0, is a beam search: at every node only the Beam
	// moves that a one-ply search ranks best (the heuristic, or the true
	// result, after each move) are searched; the rest are discarded
	// unsearched. Each one-ply evaluation counts as a node.
	Beam int `yaml:"beam"`
	// Threads is the number of goroutines searching at once (Lazy SMP);
	// 0 and 1 mean one. The extra ones are helpers: each runs its own
	// iterative deepening on the same root, every other one an iteration
	// ahead of the main search, and all share the transposition table
	// (which Threads > 1 needs), so that the main search finds entries the
	// helpers wrote. The main search's result is returned; the helpers stop
	// when it ends. The result then depends on timing, not only on the
	// position.
	Threads int `yaml:"threads"`
}

// DefaultConfig is depth 6 with every feature on and a 2^16-bucket (4 MiB)
// table.
func DefaultConfig() Config {
	c := AllFeatures()
	c.Depth, c.TableBits = 6, 16
	return c
}

// AllFeatures returns a Config with every feature switch on except
// SingularExtensions, LateMovePruning, SEEPruning and IIR (off by default
// until a measurement shows they pay; see docs/methods.md), and no budget
// or table.
func AllFeatures() Config {
	return Config{Ordering: true, Killers: true, History: true, PVS: true, Aspiration: true,
		Quiescence: true, SEE: true, Extensions: true, NullMove: true, LMR: true, Futility: true,
		RepetitionDraws: true, HistoryMalus: true}
}

// MaxTableBits bounds Config.TableBits (2^26 buckets is 4 GiB).
const MaxTableBits = 26

// MaxBeam bounds Config.Beam.
const MaxBeam = 256

// MaxReverseFutilityDepth bounds Config.ReverseFutilityDepth.
const MaxReverseFutilityDepth = 16

// MaxThreads bounds Config.Threads.
const MaxThreads = 256

// Validate names the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.Depth < 0 || c.Depth > 1000:
		return fmt.Errorf("search: depth = %d, want 0..1000 (0: no limit)", c.Depth)
	case c.Nodes < 0:
		return fmt.Errorf("search: nodes = %d, want >= 0 (0: no limit)", c.Nodes)
	case c.Time < 0:
		return fmt.Errorf("search: time = %v, want >= 0 (0: no limit)", c.Time)
	case c.CPU < 0:
		return fmt.Errorf("search: cpu = %v, want >= 0 (0: no limit)", c.CPU)
	case c.CPU > 0 && !cputime.ThreadMeasured():
		return fmt.Errorf("search: cpu = %v: this system has no per-thread CPU clock (Linux has); use time instead", c.CPU)
	case c.TableBits < 0 || c.TableBits > MaxTableBits:
		return fmt.Errorf("search: table_bits = %d, want 0..%d (0: no table)", c.TableBits, MaxTableBits)
	case c.Beam < 0 || c.Beam > MaxBeam:
		return fmt.Errorf("search: beam = %d, want 0..%d (0: off)", c.Beam, MaxBeam)
	case c.Threads < 0 || c.Threads > MaxThreads:
		return fmt.Errorf("search: threads = %d, want 0..%d", c.Threads, MaxThreads)
	case c.ReverseFutilityDepth < 0 || c.ReverseFutilityDepth > MaxReverseFutilityDepth:
		return fmt.Errorf("search: reverse_futility_depth = %d, want 0..%d (0: the default, %d)", c.ReverseFutilityDepth, MaxReverseFutilityDepth, defaultReverseFutilityDepth)
	case c.Threads > 1 && c.TableBits == 0:
		return fmt.Errorf("search: threads = %d needs a transposition table (table_bits > 0) to share", c.Threads)
	}
	return nil
}

// selective reports whether c has a feature that makes a fixed-depth value
// differ from plain alpha-beta's.
func (c Config) selective() bool {
	return c.RepetitionDraws || c.Aspiration || c.Quiescence || c.Extensions || c.SingularExtensions || c.NullMove || c.LMR || c.Futility || c.LateMovePruning || c.SEEPruning || c.IIR || c.Beam > 0
}

// Limits bound one call of SearchLimits. A zero field sets no limit of its
// kind; with none at all the search runs until the result is proven or ctx
// is done.
//
// Time is spent in two budgets: a soft one, checked between iterations (an
// iteration starts only while less than half of it is spent, since the
// next iteration usually takes longer than all before it), and a hard one
// that stops the search inside an iteration (whose partial result is
// discarded). MoveTime gives both as MoveTime. A clock gives, with m moves
// to go (MovesToGo, else 30), after keeping back a safety margin of
// min(clock/20, 50ms): soft = clock/m + 3/4 of the increment, hard =
// min(4 soft, clock/3); both at most what the clock holds. With both,
// the smaller budgets apply.
type Limits struct {
	Depth    int
	Nodes    int64
	MoveTime time.Duration
	// Clock is the time left on the mover's clock, Increment what it
	// gains per move, MovesToGo the moves until the next time control (0:
	// sudden death).
	Clock, Increment time.Duration
	MovesToGo        int
	// CPU is a budget in the search threads' own CPU time, spent like
	// MoveTime (soft and hard budgets both CPU) but counted on the threads'
	// CPU clocks: the search locks its goroutine to its OS thread for the
	// call and reads CLOCK_THREAD_CPUTIME_ID every 1024 nodes. With Lazy
	// SMP helpers the budget is their sum: each helper runs locked to its
	// own OS thread and publishes its thread's CPU time every 1024 of its
	// nodes, and the main search stops (and with it the helpers) when its
	// own time plus the helpers' last published times reach the budget.
	// It needs a system with that clock (Linux).
	CPU time.Duration
	// Info, when set, is called after each completed iteration with its
	// result (PV and Nodes included).
	Info func(Result)
}

// defaultMovesToGo is how many more moves a clock is assumed to cover.
const defaultMovesToGo = 30

// budgets returns the soft and hard time budgets of l (0: none).
func (l Limits) budgets() (soft, hard time.Duration) {
	if l.MoveTime > 0 {
		soft, hard = l.MoveTime, l.MoveTime
	}
	if l.Clock > 0 {
		avail := l.Clock - min(l.Clock/20, 50*time.Millisecond)
		mtg := l.MovesToGo
		if mtg <= 0 {
			mtg = defaultMovesToGo
		}
		s := min(avail/time.Duration(mtg)+l.Increment*3/4, avail)
		h := min(4*s, max(avail/3, s))
		if soft == 0 || s < soft {
			soft = s
		}
		if hard == 0 || h < hard {
			hard = h
		}
	}
	return max(soft, time.Millisecond), max(hard, time.Millisecond)
}

// Result is the outcome of Searcher.Search.
type Result struct {
	Move   int     // the best move found
	Value  float64 // its value for the player to move (see the package comment)
	Depth  int     // the deepest completed iteration
	Nodes  int64   // nodes visited, every iteration included (quiescence nodes too)
	PV     []int   // principal variation from the root, Move first (may be cut short)
	Proven bool    // the value is exact: no leaf of the last iteration was heuristic, or it is a proven win or loss
	// SingularExtensions counts the moves searched one ply deeper by a
	// singular extension (Config.SingularExtensions), every iteration and
	// Lazy SMP helper included.
	SingularExtensions int64
	// LateMovePruned counts the moves late-move pruning skipped
	// (Config.LateMovePruning), every iteration and Lazy SMP helper
	// included.
	LateMovePruned int64
	// SEEPruned counts the moves SEE pruning skipped (Config.SEEPruning),
	// every iteration and Lazy SMP helper included.
	SEEPruned int64
	// IIRs counts the nodes searched a ply shallower by internal
	// iterative reduction (Config.IIR), every iteration and Lazy SMP
	// helper included.
	IIRs int64
	// HelperNodes are the nodes of Nodes that the Lazy SMP helpers
	// (Config.Threads > 1) visited.
	HelperNodes int64
	// CPU is the search threads' CPU time in the call (the main search's
	// and its helpers', to their end), measured only under a CPU budget
	// (Limits.CPU); 0 otherwise.
	CPU time.Duration
	// Elapsed is the time the call took.
	Elapsed time.Duration
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
	cfg  Config
	game games.Game
	h    games.Heuristic
	tt   *table
	// oracle, when set, gives exact values of the positions it knows.
	oracle Oracle
	// pc, when set, makes non-PV nodes try ProbCut checks.
	pc    *probCutState
	kind  copyKind
	ctx   context.Context
	dl    time.Time
	hasDL bool
	// Under a CPU budget (hasCPU, in the main search) the search stops when
	// its thread's CPU time since cpuStart plus its helpers' cpuUsed reach
	// cpuBudget. A helper of such a search has shareCPU set and publishes
	// its own thread's CPU time since its cpuStart in cpuUsed.
	cpuStart, cpuBudget time.Duration
	hasCPU, shareCPU    bool
	cpuUsed             atomic.Int64

	// What applies to this game: the Tactical and NullMover capabilities,
	// and the features that need them.
	tactical   bool
	nullMover  bool
	cp         float64 // one centipawn in heuristic units (Tactical games)
	aspDelta   float64 // the first aspiration half-window
	deepCuts   bool    // the table may cut on entries of greater depth
	quiescence bool
	see        bool
	extensions bool
	singular   bool
	nullMove   bool
	futility   bool
	lmp        bool
	seePrune   bool
	iir        bool
	repDraws   bool // RepetitionDraws in a game of Repeaters
	rfpDepth   int  // the deepest reverse futility depth

	// Per ply, allocated once and reused.
	states  []games.State
	tacs    []Tactical // states[ply] as Tactical, in Tactical games
	reps    []Repeater // states[ply] as Repeater, with repDraws
	moves   [][]int
	scores  [][]int64
	beamVal [][]float64
	killers [][2]int
	pv      [][]int
	pvLen   []int
	// excluded[ply] is the move a singular-extension check leaves out at
	// ply, or -1.
	excluded []int
	history  []int64 // [player*NumActions + action]
	// quiets[ply] lists the quiet moves searched so far at ply, for the
	// history malus.
	quiets [][]int
	// evc caches static evaluations by state hash (Tactical games, whose
	// evaluation is costly); nil elsewhere.
	evc    []evalEntry
	rootPV []int // principal variation of the last completed iteration

	// helpers are the Lazy SMP searchers (Threads-1 of them) sharing tt,
	// with the goroutines running them while a search runs; stop, set in
	// a helper, is raised by the main search when it ends.
	helpers []*Searcher
	running sync.WaitGroup
	stop    *atomic.Bool

	nodes     int64
	nodeLimit int64
	horizons  int64 // heuristic leaves, pruned moves and cutoffs on unproven entries
	acts      acts  // what the selective switches did in this call
	rootDepth int
	abort     bool
	canAbort  bool
}

// acts counts what the selective switches did in one search call.
type acts struct {
	singExt   int64 // singular extensions made
	lmpPruned int64 // moves skipped by late-move pruning
	seePruned int64 // moves skipped by SEE pruning
	iirs      int64 // nodes reduced by internal iterative reduction
}

// add adds b's counts to a.
func (a *acts) add(b acts) {
	a.singExt += b.singExt
	a.lmpPruned += b.lmpPruned
	a.seePruned += b.seePruned
	a.iirs += b.iirs
}

// evalCacheSize is the number of entries of a Searcher's evaluation cache
// (16 bytes each: 1 MiB).
const evalCacheSize = 1 << 16

// evalEntry is one cached static evaluation: the state's hash and its
// value.
type evalEntry struct {
	key   uint64
	value float64
}

// evaluate returns the heuristic value of st for its player to move,
// through the evaluation cache where there is one. A hash of 0 is never
// cached (it is an empty slot's key).
func (s *Searcher) evaluate(st games.State) float64 {
	if s.evc == nil {
		return s.h.Evaluate(st)
	}
	k := st.Hash()
	e := &s.evc[k&(evalCacheSize-1)]
	if e.key == k && k != 0 {
		return e.value
	}
	v := s.h.Evaluate(st)
	e.key, e.value = k, v
	return v
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
	st := g.NewInitialState()
	s.kind = copyKindOf(st)
	s.aspDelta = 0.05
	if t, ok := st.(Tactical); ok {
		s.tactical = true
		s.cp = t.Centipawn()
		s.aspDelta = aspirationCP * s.cp
		_, s.nullMover = st.(NullMover)
	}
	s.deepCuts = cfg.selective()
	s.quiescence = cfg.Quiescence && s.tactical
	s.see = cfg.SEE && s.tactical
	s.extensions = cfg.Extensions && s.tactical
	s.singular = cfg.SingularExtensions && s.tactical && s.tt != nil
	s.nullMove = cfg.NullMove && s.nullMover
	s.futility = cfg.Futility && s.tactical
	if s.tactical {
		s.evc = make([]evalEntry, evalCacheSize)
	}
	s.lmp = cfg.LateMovePruning && s.tactical
	s.seePrune = cfg.SEEPruning && s.tactical
	s.iir = cfg.IIR && s.tt != nil
	_, isRep := st.(Repeater)
	s.repDraws = cfg.RepetitionDraws && isRep
	s.rfpDepth = cfg.ReverseFutilityDepth
	if s.rfpDepth == 0 {
		s.rfpDepth = defaultReverseFutilityDepth
	}
	for i := 1; i < cfg.Threads; i++ {
		hc := cfg
		hc.Threads, hc.TableBits = 1, 0
		h, err := New(g, hc)
		if err != nil {
			return nil, err
		}
		h.tt = s.tt
		h.singular = s.singular
		h.stop = new(atomic.Bool)
		s.helpers = append(s.helpers, h)
	}
	return s, nil
}

// SetHeuristic replaces the evaluation at the horizon (the game's own
// games.Heuristic by default) with h, in the helpers too; h must score on
// the same scale as the game's (in Tactical games, Centipawn units). Call it
// before a search, and Reset if positions were searched with another
// evaluation, whose values the transposition table still holds.
func (s *Searcher) SetHeuristic(h games.Heuristic) {
	s.h = h
	for _, hs := range s.helpers {
		hs.h = h
	}
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
	for _, h := range s.helpers {
		h.Reset()
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
		if s.tactical {
			s.tacs[ply] = s.states[ply].(Tactical)
		}
		if s.repDraws {
			s.reps[ply] = s.states[ply].(Repeater)
		}
	case s.kind == copyCopier:
		s.states[ply].(Copier).CopyFrom(src)
	default:
		reflect.ValueOf(s.states[ply]).Elem().Set(reflect.ValueOf(src).Elem())
	}
}

// moveBufCap is the initial capacity of the per-ply move buffers (they
// grow if a position has more moves).
const moveBufCap = 256

// ensurePlies allocates per-ply buffers up to n plies.
func (s *Searcher) ensurePlies(n int) {
	c := min(s.game.NumActions(), moveBufCap)
	for len(s.states) < n+2 {
		s.states = append(s.states, nil)
		s.tacs = append(s.tacs, nil)
		s.reps = append(s.reps, nil)
		s.quiets = append(s.quiets, make([]int, 0, 64))
		s.moves = append(s.moves, make([]int, 0, c))
		s.scores = append(s.scores, make([]int64, c))
		s.beamVal = append(s.beamVal, make([]float64, c))
		s.killers = append(s.killers, [2]int{-1, -1})
		s.pv = append(s.pv, make([]int, n+2))
		s.pvLen = append(s.pvLen, 0)
		s.excluded = append(s.excluded, -1)
	}
	for i := range s.pv {
		if len(s.pv[i]) < n+2 {
			s.pv[i] = make([]int, n+2)
		}
	}
}

// unlimitedDepth is the deepest iteration when no depth limit is given.
const unlimitedDepth = 128

// extraPlies is how far past the nominal depth check extensions and
// quiescence may reach; beyond it a node is scored by the heuristic.
const extraPlies = 64

// Search runs iterative deepening from root (which it does not modify)
// within the Config's depth, node and time budgets (SearchLimits).
func (s *Searcher) Search(ctx context.Context, root games.State) (Result, error) {
	return s.SearchLimits(ctx, root, Limits{Depth: s.cfg.Depth, Nodes: s.cfg.Nodes, MoveTime: s.cfg.Time, CPU: s.cfg.CPU})
}

// SearchLimits runs iterative deepening from root (which it does not
// modify) and returns the best move of the deepest completed iteration. It
// stops at the first of: the depth limit, a proven result, the node or
// time budget (see Limits), or ctx done (the depth-1 iteration always
// completes, so a move is always returned for a non-terminal root). Under
// a time budget, a root with one legal move is answered after depth 1.
func (s *Searcher) SearchLimits(ctx context.Context, root games.State, l Limits) (Result, error) {
	start := time.Now()
	if root == nil || root.IsTerminal() {
		return Result{}, fmt.Errorf("search: no move to search: the game is over")
	}
	if root.Game().Name() != s.game.Name() {
		return Result{}, fmt.Errorf("search: state of game %s given to a searcher for %s", root.Game().Name(), s.game.Name())
	}
	if l.Depth < 0 || l.Nodes < 0 || l.MoveTime < 0 || l.Clock < 0 || l.Increment < 0 || l.MovesToGo < 0 || l.CPU < 0 {
		return Result{}, fmt.Errorf("search: negative limit in %+v", l)
	}
	s.hasCPU = false
	if l.CPU > 0 {
		if !cputime.ThreadMeasured() {
			return Result{}, fmt.Errorf("search: a CPU budget (%v) needs a per-thread CPU clock, which this system lacks (Linux has one)", l.CPU)
		}
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		s.cpuStart, s.cpuBudget, s.hasCPU = cputime.Thread(), l.CPU, true
	}
	s.ctx = ctx
	s.dl, s.hasDL = ctx.Deadline()
	timed := l.MoveTime > 0 || l.Clock > 0
	var soft time.Duration
	if timed {
		var hard time.Duration
		soft, hard = l.budgets()
		if d := start.Add(hard); !s.hasDL || d.Before(s.dl) {
			s.dl, s.hasDL = d, true
		}
	}
	maxDepth := l.Depth
	if maxDepth == 0 {
		maxDepth = min(max(root.Game().MaxGameLength()-root.MoveNumber()+1, 1), unlimitedDepth)
	}
	plies := maxDepth + 1
	if s.quiescence || s.extensions {
		plies += extraPlies
	}
	s.ensurePlies(plies)
	if s.tt != nil {
		s.tt.gen++
	}
	s.nodes, s.nodeLimit, s.abort, s.acts = 0, l.Nodes, false, acts{}
	s.refresh(0, root)
	s.startHelpers(ctx, root, maxDepth)
	var res Result
	s.rootPV = s.rootPV[:0]
	single := (timed || s.hasCPU) && len(root.LegalActions(s.moves[0][:0])) == 1
	for d := 1; d <= maxDepth; d++ {
		s.canAbort = d > 1
		if s.canAbort && (s.outOfTime() || timed && time.Since(start) >= soft/2 ||
			s.hasCPU && s.cpuSpent() >= l.CPU/2) {
			break
		}
		s.horizons = 0
		s.rootDepth = d
		v := s.searchRoot(d, res.Value)
		if s.abort {
			break
		}
		res.Value, res.Depth = v, d
		s.rootPV = append(s.rootPV[:0], s.pv[0][:s.pvLen[0]]...)
		res.Move = s.rootPV[0]
		res.Proven = s.horizons == 0 || IsProven(v)
		if l.Info != nil {
			res.Nodes, res.PV, res.Elapsed = s.nodes, s.rootPV, time.Since(start)
			l.Info(res)
		}
		if res.Proven || single {
			break
		}
	}
	res.HelperNodes = s.stopHelpers()
	res.Nodes = s.nodes + res.HelperNodes
	if s.hasCPU {
		res.CPU = s.cpuSpent()
	}
	all := s.acts
	for _, h := range s.helpers {
		all.add(h.acts)
	}
	res.SingularExtensions, res.LateMovePruned, res.SEEPruned, res.IIRs = all.singExt, all.lmpPruned, all.seePruned, all.iirs
	res.PV = append([]int(nil), s.rootPV...)
	res.Elapsed = time.Since(start)
	if err := ctx.Err(); err != nil && res.Depth == 0 {
		return res, fmt.Errorf("search: %w", err)
	}
	return res, nil
}

// aspirationCP is the first aspiration half-window in centipawns, for
// Tactical games (others use 0.05 heuristic units).
const aspirationCP = 30

// searchRoot runs one iteration of depth d, within an aspiration window
// around prev when that is on and d >= 4, and returns the root's value.
func (s *Searcher) searchRoot(d int, prev float64) float64 {
	if !s.cfg.Aspiration || d < 4 || IsProven(prev) {
		return s.negamax(0, d, math.Inf(-1), math.Inf(1), true)
	}
	delta := s.aspDelta
	alpha, beta := prev-delta, prev+delta
	for {
		v := s.negamax(0, d, alpha, beta, true)
		switch {
		case s.abort:
			return 0
		case v <= alpha:
			alpha = v - delta
			if IsProven(v) || delta > 1 {
				alpha = math.Inf(-1)
			}
		case v >= beta:
			beta = v + delta
			if IsProven(v) || delta > 1 {
				beta = math.Inf(1)
			}
		default:
			return v
		}
		delta *= 2
	}
}

// startHelpers starts the Lazy SMP helpers on root, each with the main
// search's deadline and context: helper i (from 1) starts at depth 1 + i%2,
// so that every other helper searches one iteration ahead, and deepens up
// to maxDepth+1 until stopHelpers.
func (s *Searcher) startHelpers(ctx context.Context, root games.State, maxDepth int) {
	for i, h := range s.helpers {
		h.ctx, h.dl, h.hasDL = ctx, s.dl, s.hasDL
		h.ensurePlies(len(s.states))
		h.stop.Store(false)
		h.nodes, h.nodeLimit, h.abort, h.acts = 0, 0, false, acts{}
		h.shareCPU = s.hasCPU
		h.cpuUsed.Store(0)
		h.refresh(0, root)
		s.running.Add(1)
		go func(h *Searcher, first int) {
			defer s.running.Done()
			if h.shareCPU {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				h.cpuStart = cputime.Thread()
				defer h.publishCPU()
			}
			h.helperSearch(first, min(maxDepth+1, unlimitedDepth))
		}(h, 1+(i+1)%2)
	}
}

// helperSearch runs a helper's iterative deepening from depth first to
// last, until it is stopped or out of time; its results only fill the
// shared table.
func (s *Searcher) helperSearch(first, last int) {
	s.canAbort = true
	prev := 0.0
	for d := first; d <= last; d++ {
		s.horizons = 0
		s.rootDepth = d
		v := s.searchRoot(d, prev)
		if s.abort {
			return
		}
		prev = v
		if s.horizons == 0 || IsProven(v) {
			return
		}
	}
}

// stopHelpers stops the helpers, waits for them and returns the nodes
// they searched.
func (s *Searcher) stopHelpers() int64 {
	if len(s.helpers) == 0 {
		return 0
	}
	for _, h := range s.helpers {
		h.stop.Store(true)
	}
	s.running.Wait()
	var n int64
	for _, h := range s.helpers {
		n += h.nodes
	}
	return n
}

// publishCPU stores a helper's thread CPU time since its start in cpuUsed,
// for the main search to add to its own.
func (s *Searcher) publishCPU() {
	s.cpuUsed.Store(int64(cputime.Thread() - s.cpuStart))
}

// cpuSpent returns the CPU time of a CPU-budgeted search so far: the main
// search's thread's and what its helpers last published.
func (s *Searcher) cpuSpent() time.Duration {
	t := cputime.Thread() - s.cpuStart
	for _, h := range s.helpers {
		t += time.Duration(h.cpuUsed.Load())
	}
	return t
}

// checkBudget sets s.abort when a budget is spent or, in a helper, when
// the main search has ended. The clock and the context are looked at every
// 1024 nodes.
func (s *Searcher) checkBudget() {
	if !s.canAbort {
		return
	}
	if s.stop != nil && s.stop.Load() {
		s.abort = true
		return
	}
	if s.nodeLimit > 0 && s.nodes >= s.nodeLimit {
		s.abort = true
		return
	}
	if s.nodes&1023 == 0 {
		if s.shareCPU {
			s.publishCPU()
		}
		if s.outOfTime() {
			s.abort = true
		}
	}
}

// outOfTime reports whether the deadline has passed, the CPU budget is
// spent or the context is done.
func (s *Searcher) outOfTime() bool {
	if s.hasDL && !time.Now().Before(s.dl) {
		return true
	}
	if s.hasCPU && s.cpuSpent() >= s.cpuBudget {
		return true
	}
	select {
	case <-s.ctx.Done():
		return true
	default:
		return false
	}
}
