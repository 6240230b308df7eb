// Package players builds game players from specs such as
// "alphabeta:depth=5" (ParseSpec, SpecHelp): random, greedy, alpha-beta,
// exact solvers, MCTS with rollouts, a trained network, the backgammon
// baselines and outside engines over GTP and UCI. Build returns a Factory that makes
// one Player per game; package match plays them against each other.
package players

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"time"

	"tabula/games"
	"tabula/games/chess"
	"tabula/games/connect4"
	"tabula/games/connect4/small"
	"tabula/games/othello"
	"tabula/mcts"
	"tabula/nn"
	"tabula/nn/models"
	"tabula/search"
	"tabula/search/book"
	"tabula/search/c4solver"
	"tabula/search/endgame"
	"tabula/search/retro"
)

// Player chooses moves. A Player plays one game at a time and is not safe for
// concurrent use; it must not modify the state it is given.
type Player interface {
	Name() string
	ChooseAction(ctx context.Context, s games.State) (int, error)
}

// Valuer is implemented by players that report the value of their last
// choice, for the player to move, in their own units (alpha-beta: the
// search value; solver: Pons' score; net: the PUCT root value in [-1, 1]).
type Valuer interface {
	Value() float64
}

// Analyzer is implemented by players that can show how they weighed the
// moves of their last choice, for a person or a program watching (play's
// terminal, GTP and web front ends). LastPolicy returns a distribution over
// all actions of the game (the search's visit shares), or nil when the player
// has none; the slice is the player's and is overwritten by its next choice.
type Analyzer interface {
	LastPolicy() []float32
}

// SearchReporter is implemented by players that search a game tree and can
// report the search behind their last choice (alpha-beta: its depth, nodes,
// principal variation and value), for front ends that show it (UCI info
// lines).
type SearchReporter interface {
	LastSearch() search.Result
}

// Factory makes fresh players of one spec for one game: New is called once
// per game with that game's seeded random source and must be safe for
// concurrent use. Resources shared by all the players (a network evaluator,
// solver tables) are owned by the factory and released by Cleanup, if set.
type Factory struct {
	Name    string
	New     func(rng *rand.Rand) (Player, error)
	Cleanup func() error
}

// Close releases the factory's shared resources (calls Cleanup).
func (f *Factory) Close() error {
	if f.Cleanup == nil {
		return nil
	}
	return f.Cleanup()
}

// PUCTFactory returns a factory of PUCT match players (mcts.NewPlayer: no
// noise, temperature 0) searching with cfg and evaluator eval, which the
// caller owns. The training pipeline uses it to gate a candidate network.
func PUCTFactory(name string, cfg mcts.Config, eval mcts.Evaluator) *Factory {
	return puctFactory(name, cfg, eval)
}

// puctFactory is PUCTFactory. Its players analyse with the auxiliary heads
// when eval is an mcts.OutcomeEvaluator (a network's evaluator, alone or
// symmetrized).
func puctFactory(name string, cfg mcts.Config, eval mcts.Evaluator) *Factory {
	return &Factory{Name: name, New: func(rng *rand.Rand) (Player, error) {
		p, err := mcts.NewPlayer(cfg, eval, rng)
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		return &netPlayer{name: name, p: p, ownTime: cfg.MoveTime}, nil
	}}
}

// Build returns a factory for spec in game g, loading what the spec needs
// (a checkpoint for net). The error names the spec.
func Build(g games.Game, spec Spec) (*Factory, error) {
	name := spec.String()
	f := &Factory{Name: name}
	switch spec.Kind {
	case "random":
		f.New = func(rng *rand.Rand) (Player, error) { return &randomPlayer{name: name, rng: rng}, nil }
	case "greedy":
		h, ok := g.(games.Heuristic)
		if !ok {
			return nil, fmt.Errorf("player %s: game %s has no heuristic", name, g.Name())
		}
		f.New = func(rng *rand.Rand) (Player, error) { return &greedyPlayer{name: name, h: h, rng: rng}, nil }
	case "alphabeta":
		if err := games.RequireDeterministic(g, "alpha-beta"); err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		cfg := search.Config{
			Depth:                spec.Int("depth", 0),
			Nodes:                int64(spec.Int("nodes", 0)),
			Time:                 spec.Duration("time", 0),
			CPU:                  spec.Duration("cpu", 0),
			TableBits:            spec.Int("tt", 16),
			Ordering:             spec.Int("order", 1) == 1,
			Killers:              spec.Int("killers", 1) == 1,
			History:              spec.Int("history", 1) == 1,
			PVS:                  spec.Int("pvs", 1) == 1,
			Aspiration:           spec.Int("asp", 1) == 1,
			Quiescence:           spec.Int("qs", 1) == 1,
			SEE:                  spec.Int("see", 1) == 1,
			Extensions:           spec.Int("ext", 1) == 1,
			NullMove:             spec.Int("null", 1) == 1,
			LMR:                  spec.Int("lmr", 1) == 1,
			Futility:             spec.Int("futility", 1) == 1,
			RepetitionDraws:      spec.Int("rep", 1) == 1,
			HistoryMalus:         spec.Int("hmalus", 1) == 1,
			ReverseFutilityDepth: spec.Int("rfp", 0),
			Threads:              spec.Int("threads", 1),
			Beam:                 spec.Int("beam", 0),
		}
		cfg.SingularExtensions = spec.Int("singex", 0) == 1 // off by default (docs/methods.md)
		cfg.LateMovePruning = spec.Int("lmp", 0) == 1       // off by default: not separated from 0 in play (docs/methods.md)
		cfg.SEEPruning = spec.Int("seeprune", 0) == 1       // off by default: not separated from 0 in play
		cfg.IIR = spec.Int("iir", 0) == 1                   // off by default: not separated from 0 in play
		clock, inc := spec.Duration("clock", 0), spec.Duration("inc", 0)
		if spec.Has("inc") && !spec.Has("clock") {
			return nil, fmt.Errorf("player %s: inc needs clock (a game clock to add it to)", name)
		}
		if !spec.Has("depth") && !spec.Has("nodes") && !spec.Has("time") && !spec.Has("cpu") && !spec.Has("clock") {
			cfg.Depth = 4
		}
		if _, err := search.New(g, cfg); err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		var oracle search.Oracle
		if spec.Has("egtb") {
			if _, ok := g.(chess.Game); !ok {
				return nil, fmt.Errorf("player %s: egtb: endgame tables are for chess, not %s", name, g.Name())
			}
			ts, err := retro.LoadDir(spec.Str("egtb", ""))
			if err != nil {
				return nil, fmt.Errorf("player %s: %w", name, err)
			}
			oracle = ts
		}
		var bk *book.Book
		if _, isChess := g.(chess.Game); isChess && spec.Has("book") {
			if spec.Has("book_margin") {
				return nil, fmt.Errorf("player %s: book_margin is for game books; a chess book's moves are drawn by their Polyglot weights", name)
			}
			b, err := book.Load(spec.Str("book", ""))
			if err != nil {
				return nil, fmt.Errorf("player %s: %w", name, err)
			}
			bk = b
		}
		gbook, margin, err := gameBookOf(g, spec)
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		if spec.Str("eval", "") == "net" && (spec.Int("probcut", 0) == 1 || spec.Int("mpc", 0) == 1) {
			return nil, fmt.Errorf("player %s: eval=net: probcut and mpc predict deep values from a fit of the hand evaluation's (scripts/probcutfit), not the network's", name)
		}
		pc, pct, err := probCutOf(g, spec)
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		netEval, err := netEvalOf(g, spec)
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		var heur games.Heuristic
		if netEval != nil {
			if cfg.Threads > 1 {
				return nil, fmt.Errorf("player %s: eval=net searches with one thread (threads=1): the helpers would share its buffers", name)
			}
		} else if heur, err = horizonEval(g, spec.Str("eval", "hand")); err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		f.New = func(rng *rand.Rand) (Player, error) {
			sr, err := search.New(g, cfg)
			if err != nil {
				return nil, fmt.Errorf("player %s: %w", name, err)
			}
			if oracle != nil {
				sr.SetOracle(oracle)
			}
			var leaf *netLeaf
			if netEval != nil {
				leaf = newNetLeaf(netEval, g)
				sr.SetHeuristic(leaf)
			} else if heur != nil {
				sr.SetHeuristic(heur)
			}
			if err := sr.SetProbCut(pc, pct); err != nil {
				return nil, fmt.Errorf("player %s: %w", name, err)
			}
			return &alphaBetaPlayer{name: name, sr: sr, clock: clock, inc: inc, book: bk, rng: rng,
				game: g, gbook: gbook, bookMargin: margin, net: leaf,
				own: search.Limits{Depth: cfg.Depth, Nodes: cfg.Nodes, MoveTime: cfg.Time}}, nil
		}
	case "solver":
		if og, ok := g.(*othello.Game); ok {
			if spec.Has("book") || spec.Has("book_margin") {
				return nil, fmt.Errorf("player %s: book= is for the Connect Four solver (an exact book of scripts/makebook -solve); the Othello solver plays endgames", name)
			}
			return buildOthelloSolver(og, spec)
		}
		if _, ok := g.(connect4.Game); !ok {
			return nil, fmt.Errorf("player %s: the solver plays connect4 and othello only, not %s", name, g.Name())
		}
		gbook, margin, err := gameBookOf(g, spec)
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		bits := spec.Int("tt", 22)
		pool := &pool[*c4solver.Solver]{make: func() (*c4solver.Solver, error) { return c4solver.New(bits) }}
		f.New = func(rng *rand.Rand) (Player, error) {
			return &solverPlayer{name: name, pool: pool, rng: rng, game: g, book: gbook, bookMargin: margin}, nil
		}
	case "mcts":
		if err := games.RequirePerfectInformation(g, "mcts"); err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		cfg := mcts.DefaultUCTConfig()
		cfg.Rollouts = spec.Int("rollouts", cfg.Rollouts)
		cfg.C = spec.Float("c", cfg.C)
		cfg.MoveTime = spec.Duration("time", 0)
		if err := cfg.Validate(); err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		f.New = func(rng *rand.Rand) (Player, error) {
			u, err := mcts.NewUCT(cfg, rng)
			if err != nil {
				return nil, fmt.Errorf("player %s: %w", name, err)
			}
			return &named{name: name, chooser: u}, nil
		}
	case "net":
		return buildNet(g, spec)
	case "expectimax", "pubeval":
		return buildChance(g, spec)
	case "cfr":
		return buildCFR(g, spec)
	case "pimc":
		return buildPIMC(g, spec)
	case "ismcts":
		return buildISMCTS(g, spec)
	case "cardrules":
		return buildCardRules(g, spec)
	case "gtp", "gnugo", "grhino", "pachi":
		return buildGTP(g, spec)
	case "uci", "stockfish":
		return buildUCI(g, spec)
	case "gnubg":
		return buildGnubg(g, spec)
	default:
		return nil, fmt.Errorf("player spec %q: unknown kind %q; valid kinds: %s", name, spec.Kind, kindNames())
	}
	return f, nil
}

// buildNet loads the checkpoint once and shares one batching evaluator among
// all the games.
func buildNet(g games.Game, spec Spec) (*Factory, error) {
	name := spec.String()
	eval, err := loadNetEvaluator(g, spec)
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	cfg := mcts.DefaultConfig()
	cfg.Simulations = spec.Int("sims", cfg.Simulations)
	cfg.CPuct = spec.Float("cpuct", cfg.CPuct)
	cfg.MoveTime = spec.Duration("time", 0)
	cfg.Solver = spec.Int("solver", 1) == 1
	cfg.BatchSize = spec.Int("batch", cfg.BatchSize)
	cfg.FPUReduction = spec.Float("fpu", cfg.FPUReduction)
	cfg.Search = spec.Str("search", cfg.Search)
	cfg.Chance = spec.Str("chance", cfg.Chance)
	cfg.GumbelM = spec.Int("gumbel_m", cfg.GumbelM)
	cfg.Endgame = spec.Int("endgame", 0)
	cfg.Graph = spec.Int("graph", 0) == 1
	err = cfg.Validate()
	if err == nil {
		err = mcts.CheckGame(cfg, g)
	}
	if err == nil {
		err = configureEndgame(&cfg, g, spec)
	}
	if err != nil {
		_ = eval.Close()
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	var ev mcts.Evaluator = eval
	if k := spec.Int("sym", 1); k > 1 {
		if ev, err = mcts.NewSymmetrized(eval, g, k); err != nil {
			_ = eval.Close()
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
	}
	gbook, margin, err := gameBookOf(g, spec)
	if err != nil {
		_ = eval.Close()
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	f := puctFactory(name, cfg, ev)
	if gbook != nil {
		inner := f.New
		f.New = func(rng *rand.Rand) (Player, error) {
			p, err := inner(rng)
			if err != nil {
				return nil, err
			}
			np := p.(*netPlayer)
			np.game, np.book, np.bookMargin, np.rng = g, gbook, margin, rng
			return np, nil
		}
	}
	f.Cleanup = eval.Close
	return f, nil
}

// gameBookOf loads the game book that spec's book= names for g, a game
// other than chess, with its book_margin; nil when the spec names none or
// g is chess (whose books are Polyglot's, read by alphabeta).
func gameBookOf(g games.Game, spec Spec) (*book.GameBook, float64, error) {
	if _, isChess := g.(chess.Game); isChess {
		if spec.Kind != "alphabeta" && spec.Has("book") {
			return nil, 0, errors.New("book: chess opening books (Polyglot) are played by alphabeta; net's book= takes a game book of another game")
		}
		return nil, 0, nil
	}
	if !spec.Has("book") {
		if spec.Has("book_margin") {
			return nil, 0, errors.New("book_margin needs book=FILE")
		}
		return nil, 0, nil
	}
	if err := games.RequireDeterministic(g, "an opening book"); err != nil {
		return nil, 0, fmt.Errorf("book: %w", err)
	}
	b, err := book.LoadGameBook(spec.Str("book", ""), g)
	if err != nil {
		return nil, 0, err
	}
	return b, spec.Float("book_margin", 0), nil
}

// netPath is the checkpoint file a net spec names: path=FILE, or
// model=NAME, a shipped network whose file is checked against its manifest.
func netPath(spec Spec) (string, error) {
	path, model := spec.Str("path", ""), spec.Str("model", "")
	switch {
	case path != "" && model != "":
		return "", errors.New("path=FILE and model=NAME: give one, not both")
	case model != "":
		_, p, err := models.Resolve(model)
		return p, err
	case path == "":
		return "", errors.New("net needs path=FILE or model=NAME (a shipped network, models/manifest.json)")
	}
	return path, nil
}

// configureEndgame sets the net player's exact prover: the chess endgame
// tables of egtb=DIR or its small-board Connect Four table
// (connect4-WxH.rtb), or the exact solver of endgame=N.
func configureEndgame(cfg *mcts.Config, g games.Game, spec Spec) error {
	if !spec.Has("egtb") {
		return endgame.Configure(cfg, g)
	}
	if spec.Has("endgame") {
		return errors.New("egtb and endgame: give one (egtb proves chess positions by its tables)")
	}
	dir := spec.Str("egtb", "")
	if sg, ok := g.(*small.Game); ok {
		w, h := sg.Size()
		t, err := retro.LoadConnect4(filepath.Join(dir, fmt.Sprintf("connect4-%dx%d%s", w, h, retro.Ext)))
		if err != nil {
			return fmt.Errorf("egtb: %w", err)
		}
		return endgame.ConfigureConnect4Table(cfg, g, t)
	}
	if _, ok := g.(chess.Game); !ok {
		return fmt.Errorf("egtb: endgame tables are for chess and connect4small, not %s", g.Name())
	}
	ts, err := retro.LoadDir(dir)
	if err != nil {
		return err
	}
	return endgame.ConfigureTables(cfg, g, ts)
}

// netEvaluatorConfig is the evaluator of a net player: the defaults with
// the spec's precision and cache size.
func netEvaluatorConfig(spec Spec) nn.EvaluatorConfig {
	ecfg := nn.DefaultEvaluatorConfig()
	ecfg.Precision = spec.Str("precision", "")
	ecfg.CacheSize = spec.Int("cache", ecfg.CacheSize)
	return ecfg
}

type chooser interface {
	ChooseAction(ctx context.Context, s games.State) (int, error)
}

// named gives a chooser a name.
type named struct {
	name    string
	chooser chooser
}

func (p *named) Name() string { return p.name }
func (p *named) ChooseAction(ctx context.Context, s games.State) (int, error) {
	return p.chooser.ChooseAction(ctx, s)
}

type netPlayer struct {
	name    string
	p       *mcts.Player
	kids    []mcts.ChildStat // scratch of Analyze
	ownTime time.Duration    // the search's own time limit (time=), 0 for none
	// own is Analyze's scratch of the root's ownership.
	own []float32
	// book, when set, is a game book of game: a position it holds gets
	// its move (GameBook.Choose within bookMargin, drawn with rng)
	// without a search; inBook says the last move came from it, with
	// value bookValue.
	game       games.Game
	book       *book.GameBook
	bookMargin float64
	rng        *rand.Rand
	inBook     bool
	bookValue  float64
}

func (p *netPlayer) Name() string { return p.name }

// Value is the last search's root value, or the book's backed-up value
// after a book move.
func (p *netPlayer) Value() float64 {
	if p.inBook {
		return p.bookValue
	}
	return float64(p.p.LastValue())
}

// LastPolicy is the last search's visit distribution; nil after a book
// move.
func (p *netPlayer) LastPolicy() []float32 {
	if p.inBook {
		return nil
	}
	return p.p.LastPolicy()
}

func (p *netPlayer) ChooseAction(ctx context.Context, s games.State) (int, error) {
	p.inBook = false
	if p.book != nil {
		if a, v, ok := p.book.Choose(p.game, s, p.bookMargin, p.rng); ok {
			p.inBook, p.bookValue = true, v
			return a, nil
		}
	}
	return p.p.ChooseAction(ctx, s)
}

// Sync lets the search keep its tree through the moves and dice since its
// last search (see mcts.Player.Follow).
func (p *netPlayer) Sync(actions []int) { p.p.Follow(actions) }

var errGameOver = errors.New("the game is over: no move to choose")

type randomPlayer struct {
	name string
	rng  *rand.Rand
	buf  []int
}

func (p *randomPlayer) Name() string { return p.name }
func (p *randomPlayer) ChooseAction(_ context.Context, s games.State) (int, error) {
	p.buf = s.LegalActions(p.buf)
	if len(p.buf) == 0 {
		return 0, errGameOver
	}
	return p.buf[p.rng.IntN(len(p.buf))], nil
}

// greedyPlayer looks one ply ahead: a move that wins at once if any, else the
// move whose resulting position the heuristic likes best; ties are broken at
// random.
type greedyPlayer struct {
	name  string
	h     games.Heuristic
	rng   *rand.Rand
	buf   []int
	value float64
}

func (p *greedyPlayer) Name() string   { return p.name }
func (p *greedyPlayer) Value() float64 { return p.value }
func (p *greedyPlayer) ChooseAction(_ context.Context, s games.State) (int, error) {
	p.buf = s.LegalActions(p.buf)
	if len(p.buf) == 0 {
		return 0, errGameOver
	}
	me := s.CurrentPlayer()
	best, bestMove, ties := math.Inf(-1), -1, 0
	for _, a := range p.buf {
		c := s.Clone()
		c.ApplyAction(a)
		var v float64
		switch {
		case c.IsTerminal():
			v = 2 * c.Returns()[me] // a win beats every heuristic score
		case games.IsChanceNode(c):
			// The heuristic scores a chance node for the player who moves
			// after it (games.ChanceState.NextPlayer).
			v = p.h.Evaluate(c)
			if c.(games.ChanceState).NextPlayer() != me {
				v = -v
			}
		case c.CurrentPlayer() == me:
			v = p.h.Evaluate(c)
		default:
			v = -p.h.Evaluate(c)
		}
		switch {
		case v > best:
			best, bestMove, ties = v, a, 1
		case v == best:
			ties++
			if p.rng.IntN(ties) == 0 {
				bestMove = a
			}
		}
	}
	p.value = best
	return bestMove, nil
}

type alphaBetaPlayer struct {
	name  string
	sr    *search.Searcher
	value float64
	// clock is the time left on the player's own game clock (0: no
	// clock), inc what each move adds to it.
	clock, inc time.Duration
	// last is the newest search's result, for protocols that report it.
	last search.Result
	// book, when set, gives the moves of the positions it holds (chess),
	// drawn with rng.
	book *book.Book
	rng  *rand.Rand
	// gbook, when set, is a game book (games other than chess) of game,
	// its moves chosen within bookMargin of the best backed-up value.
	game       games.Game
	gbook      *book.GameBook
	bookMargin float64
	// own is the search's limits from the spec; moveTime, when set (a
	// GTP game clock's share of a move, SetMoveTime), also limits the
	// time of a search without a clock of the player's own.
	own      search.Limits
	moveTime time.Duration
	// net, when set, is the network evaluating the search's leaves
	// (eval=net), whose errors end the move.
	net *netLeaf
}

// SetMoveTime limits the next searches to d as well as to the player's own
// limits (0: its own limits alone); a player with its own clock (clock=)
// keeps to that instead.
func (p *alphaBetaPlayer) SetMoveTime(d time.Duration) { p.moveTime = max(d, 0) }

func (p *alphaBetaPlayer) Name() string              { return p.name }
func (p *alphaBetaPlayer) Value() float64            { return p.value }
func (p *alphaBetaPlayer) LastSearch() search.Result { return p.last }

// ChooseAction searches s. With a clock, the search's budget comes from the
// time left; the time taken is charged to the clock and the increment
// added, the clock never dropping below a millisecond (an alpha-beta player
// does not lose on time: it plays fast instead). With a book, a position
// the book holds gets a book move, drawn in proportion to the weights,
// without a search (value 0, no clock charged). With a game book, a
// position it holds gets the book's move (GameBook.Choose with the
// player's margin) and its backed-up value, without a search.
func (p *alphaBetaPlayer) ChooseAction(ctx context.Context, s games.State) (int, error) {
	if p.gbook != nil {
		if a, v, ok := p.gbook.Choose(p.game, s, p.bookMargin, p.rng); ok {
			p.value, p.last = v, search.Result{Move: a, Value: v, PV: []int{a}}
			return a, nil
		}
	}
	if cs, ok := s.(*chess.State); ok && p.book != nil {
		pos := cs.Position()
		if m, ok := p.book.Pick(&pos, p.rng); ok {
			a := chess.ActionOf(m)
			p.value, p.last = 0, search.Result{Move: a, PV: []int{a}}
			return a, nil
		}
	}
	if p.clock <= 0 && p.moveTime > 0 {
		l := p.own
		if l.MoveTime == 0 || p.moveTime < l.MoveTime {
			l.MoveTime = p.moveTime
		}
		res, err := p.sr.SearchLimits(ctx, s, l)
		err = p.netErr(err)
		if err != nil {
			return 0, err
		}
		p.value, p.last = res.Value, res
		return res.Move, nil
	}
	if p.clock <= 0 {
		res, err := p.sr.Search(ctx, s)
		err = p.netErr(err)
		if err != nil {
			return 0, err
		}
		p.value, p.last = res.Value, res
		return res.Move, nil
	}
	res, err := p.sr.SearchLimits(ctx, s, search.Limits{Clock: p.clock, Increment: p.inc})
	err = p.netErr(err)
	if err != nil {
		return 0, err
	}
	p.clock = max(p.clock-res.Elapsed, time.Millisecond) + p.inc
	p.value, p.last = res.Value, res
	return res.Move, nil
}

// netErr returns err, or else the error the network met during the search.
func (p *alphaBetaPlayer) netErr(err error) error {
	if p.net == nil {
		return err
	}
	if nerr := p.net.Err(); err == nil && nerr != nil {
		return fmt.Errorf("player %s: eval=net: %w", p.name, nerr)
	}
	return err
}

// pool shares solvers (and their large tables) between the games of a
// match. Reusing a table changes only the speed, never the scores.
type pool[T any] struct {
	make func() (T, error)
	mu   sync.Mutex
	free []T
}

func (sp *pool[T]) get() (T, error) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if n := len(sp.free); n > 0 {
		s := sp.free[n-1]
		sp.free = sp.free[:n-1]
		return s, nil
	}
	return sp.make()
}

func (sp *pool[T]) put(s T) {
	sp.mu.Lock()
	sp.free = append(sp.free, s)
	sp.mu.Unlock()
}

// solverPlayer plays a move of the best game-theoretic outcome (win > draw >
// loss, by the solver's weak solve), at random among equals. Its Value is
// that outcome: 1, 0 or -1. With a book (an exact one, scripts/makebook
// -solve), a position the book holds gets the book's move (GameBook.Choose
// within bookMargin: with exact values, a move of the best outcome and
// the fastest win) without a search.
type solverPlayer struct {
	name  string
	pool  *pool[*c4solver.Solver]
	rng   *rand.Rand
	value float64
	// nodes is the solver's node count of the last move (0 from the
	// book).
	nodes uint64

	game       games.Game
	book       *book.GameBook
	bookMargin float64
}

func (p *solverPlayer) Name() string   { return p.name }
func (p *solverPlayer) Value() float64 { return p.value }

// Nodes returns the positions the solver searched for the last move: 0 for
// a move from the book.
func (p *solverPlayer) Nodes() uint64 { return p.nodes }

func (p *solverPlayer) ChooseAction(_ context.Context, s games.State) (int, error) {
	st, ok := s.(*connect4.State)
	if !ok {
		return 0, fmt.Errorf("player %s: not a connect4 position", p.name)
	}
	if st.IsTerminal() {
		return 0, errGameOver
	}
	p.nodes = 0
	if p.book != nil {
		if a, v, ok := p.book.Choose(p.game, st, p.bookMargin, p.rng); ok {
			p.value = 0
			if v > 0 {
				p.value = 1
			} else if v < 0 {
				p.value = -1
			}
			return a, nil
		}
	}
	sv, err := p.pool.get()
	if err != nil {
		return 0, fmt.Errorf("player %s: %w", p.name, err)
	}
	before := sv.Nodes()
	scores := sv.OutcomeMoves(st)
	p.nodes = sv.Nodes() - before
	p.pool.put(sv)
	best, move, ties := c4solver.Invalid, -1, 0
	for a, v := range scores {
		switch {
		case v == c4solver.Invalid:
		case v > best:
			best, move, ties = v, a, 1
		case v == best:
			ties++
			if p.rng.IntN(ties) == 0 {
				move = a
			}
		}
	}
	p.value = float64(best)
	return move, nil
}

// ErrNoPlayers is returned by BuildAll for an empty list.
var ErrNoPlayers = errors.New("arena: no players")

// BuildAll builds a factory for every spec, closing those built so far on an
// error.
func BuildAll(g games.Game, specs []Spec) ([]*Factory, error) {
	if len(specs) == 0 {
		return nil, ErrNoPlayers
	}
	fs := make([]*Factory, 0, len(specs))
	for _, sp := range specs {
		f, err := Build(g, sp)
		if err != nil {
			for _, b := range fs {
				_ = b.Close()
			}
			return nil, err
		}
		fs = append(fs, f)
	}
	return fs, nil
}
