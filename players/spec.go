package players

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// paramType is the type of a spec parameter's value.
type paramType int

const (
	intParam paramType = iota
	floatParam
	durationParam
	stringParam
)

// paramDef declares one parameter of a player kind.
type paramDef struct {
	name     string
	typ      paramType
	min, max float64 // range for int and float parameters
	doc      string
}

// kindDef declares one player kind.
type kindDef struct {
	name   string
	doc    string
	params []paramDef
	// oneOf lists parameters of which a spec may give at most one (limits
	// that would contradict each other).
	oneOf []string
}

// kinds lists every player kind, in the order help text shows them.
var kinds = []kindDef{
	{name: "random", doc: "uniformly random legal moves"},
	{name: "greedy", doc: "one ply: a winning move if any, else the best heuristic score after the move"},
	{name: "alphabeta", doc: "alpha-beta (PVS) with iterative deepening; one limit of depth, nodes, time, cpu or clock (default depth=4); each technique a switch, 1 (the default) on or 0 off; chess-only switches are ignored by games without captures", params: []paramDef{
		{"depth", intParam, 1, 64, "depth in plies, 1..64"},
		{"nodes", intParam, 1, 1e12, "node budget per move, 1..1e12"},
		{"time", durationParam, 0, 0, "time per move, e.g. 100ms"},
		{"cpu", durationParam, 0, 0, "CPU time per move of the search threads, e.g. 20ms: unlike time, fair when other processes share the machine (Linux); with threads=N the budget is the sum over the N threads, so threads=2,cpu=T and threads=1,cpu=T search with equal CPU"},
		{"clock", durationParam, 0, 0, "time per game, e.g. 10s: the player keeps its own clock and spends about clock/30 plus 3/4 of inc a move"},
		{"inc", durationParam, 0, 0, "with clock, the time added to the clock after each move, e.g. 100ms"},
		{"tt", intParam, 0, 26, "log2 of transposition-table buckets, 0..26 (default 16; 0: none)"},
		{"order", intParam, 0, 1, "hash move first, then captures by MVV-LVA (chess), 0..1"},
		{"killers", intParam, 0, 1, "killer moves, 0..1"},
		{"history", intParam, 0, 1, "history heuristic for quiet moves, 0..1"},
		{"pvs", intParam, 0, 1, "principal-variation search (null windows after the first move), 0..1"},
		{"asp", intParam, 0, 1, "aspiration windows from depth 4, 0..1"},
		{"qs", intParam, 0, 1, "quiescence search of captures and promotions at the horizon (chess), 0..1"},
		{"see", intParam, 0, 1, "static exchange evaluation: losing captures ordered last and skipped in quiescence (chess), 0..1"},
		{"ext", intParam, 0, 1, "check extensions (chess), 0..1"},
		{"singex", intParam, 0, 1, "singular extensions (chess), 0..1 (default 0, off until a measurement shows they pay; see docs/methods.md): at depth 8 or more, the table's move is searched a ply deeper when a half-depth search of every other move fails low against its table value minus 2 centipawns a ply"},
		{"null", intParam, 0, 1, "null-move pruning, not in check or with only king and pawns (chess), 0..1"},
		{"lmr", intParam, 0, 1, "late-move reductions, 0..1"},
		{"rep", intParam, 0, 1, "repetition draws in the search (chess), 0..1: a position reached in the tree that occurred before in the game scores as a draw"},
		{"hmalus", intParam, 0, 1, "with history, also lower the history of the quiet moves searched before a cutoff's move, with history gravity, 0..1"},
		{"rfp", intParam, 1, 16, "the deepest remaining depth at which reverse futility prunes (chess, with futility), 1..16 (default 3)"},
		{"futility", intParam, 0, 1, "futility and reverse futility pruning near the horizon (chess), 0..1"},
		{"seeprune", intParam, 0, 1, "SEE pruning (chess), 0..1 (default 0): at non-PV nodes of depth 1 to 6 not in check, moves after the first that give no check and lose more than 60 (quiet) or 100 (captures) centipawns a ply of depth by static exchange are not searched"},
		{"iir", intParam, 0, 1, "internal iterative reduction, 0..1 (default 0): a node of depth 4 or more that the transposition table knows nothing about is searched a ply shallower"},
		{"lmp", intParam, 0, 1, "late-move pruning (chess), 0..1 (default 0): at non-PV nodes of depth 1 to 4 not in check, quiet non-checking moves after the first 3+depth^2 are not searched"},
		{"threads", intParam, 1, 256, "search goroutines sharing the transposition table (Lazy SMP), 1..256 (default 1); the main one's move is played"},
		{"egtb", stringParam, 0, 0, "chess: a folder of endgame tables (*.rtb, built by scripts/egtb) whose exact values the search takes where they cover a position"},
		{"book", stringParam, 0, 0, "an opening book: chess, Polyglot's .bin format (in a book position a book move is drawn with probability proportional to its weight); other games (othello, connect4), a game book built by scripts/makebook -game (connect4: the exact book of -solve N; the move of the best backed-up value is played, or one drawn among those within book_margin); in a book position the player plays the book's move instead of searching"},
		{"book_margin", floatParam, 0, 2, "with a game book (not chess), draw uniformly among the book moves whose backed-up value is within this much of the best (values in [-1, 1]), 0..2 (default 0: the best, ties drawn)"},
		{"probcut", intParam, 0, 1, "othello: Buro's ProbCut, 0..1 (default 0): at a non-PV node of the fit's depth a shallow search predicts a fail high or low through the fitted line v_deep = a*v_shallow + b and cuts when the prediction is beyond the window by t standard deviations"},
		{"mpc", intParam, 0, 1, "othello: Multi-ProbCut, 0..1 (default 0): ProbCut with several depth pairs, each fitted per stage of empty squares"},
		{"pct", floatParam, 0, 10, "with probcut or mpc, the confidence t in standard deviations of the fit's error, 0..10 (default 1.5; larger cuts less)"},
		{"pcfile", stringParam, 0, 0, "with probcut or mpc, the fit file written by scripts/probcutfit (default data/othello/probcut.json, looked for in the working folder and the folders above it)"},
		{"beam", intParam, 1, 256, "beam search: at each node search only the K moves ranked best by a one-ply search (the heuristic after the move), 1..256 (default: off)"},
		{"eval", stringParam, 0, 0, "evaluation at the horizon: hand (the game's hand-set weights, the default), basic (chess: the hand weights without the rook-file and king-attack terms), tuned (weights fitted to game results by Texel's method, scripts/texel: chess, connect4, othello 8x8) or net (a value network, path= or model=, one position per leaf through its cached evaluator: accurate but slow; chess maps its value to centipawns; threads=1 only)"},
		{"path", stringParam, 0, 0, "with eval=net, the network's checkpoint file (this or model required)"},
		{"model", stringParam, 0, 0, "with eval=net, a shipped network by its name in models/manifest.json (instead of path; the file's checksum is checked)"},
		{"precision", stringParam, 0, 0, "with eval=net, the network's arithmetic: fp32 (default), bf16, int8 or auto (fastest passing the accuracy check)"},
		{"cache", intParam, 0, 1 << 26, "with eval=net, evaluation cache entries (keyed by position) shared by the player's games, 0 = none (default 65536)"},
	}, oneOf: []string{"depth", "nodes", "time", "cpu", "clock"}},
	{name: "solver", doc: "perfect play: Connect Four, or Othello endgames (exact; practical to ~20 empties)", params: []paramDef{
		{"tt", intParam, 10, 30, "log2 of the solver's table entries, 10..30 (default 22; othello 20, at most 28)"},
		{"book", stringParam, 0, 0, "connect4: an exact book built by scripts/makebook -game connect4 -solve N; in a book position the player plays the book's best move (the best outcome, the fastest win) instead of solving"},
		{"book_margin", floatParam, 0, 2, "with book, draw uniformly among the book moves within this much of the best value, 0..2 (default 0: the best, ties drawn; below 0.5 never a worse outcome)"},
	}},
	{name: "mcts", doc: "UCT with random rollouts", params: []paramDef{
		{"rollouts", intParam, 1, 1e8, "rollouts per move, 1..1e8 (default 1000)"},
		{"c", floatParam, 0, 100, "UCB1 exploration constant, 0..100 (default 1.414)"},
		{"time", durationParam, 0, 0, "time limit per move, e.g. 1s; with rollouts, the search stops at whichever comes first"},
	}},
	{name: "net", doc: "PUCT search guided by a network checkpoint", params: []paramDef{
		{"path", stringParam, 0, 0, "checkpoint file (this or model required)"},
		{"model", stringParam, 0, 0, "a shipped network by its name in models/manifest.json, e.g. go9 (instead of path; the file's checksum is checked)"},
		{"sims", intParam, 1, 1e7, "simulations per move, 1..1e7 (default 200)"},
		{"cpuct", floatParam, 0, 100, "PUCT exploration constant, 0..100 (default from mcts)"},
		{"time", durationParam, 0, 0, "time limit per move, e.g. 1s; with sims, the search stops at whichever comes first"},
		{"solver", intParam, 0, 1, "1: prove wins and losses in the tree (MCTS-solver, the default), 0: plain PUCT"},
		{"endgame", intParam, 0, 16, "Othello: prove every leaf with at most this many empty squares by an exact solve instead of the network, 0..16 (default 0: off; needs solver=1)"},
		{"egtb", stringParam, 0, 0, "chess: a folder of endgame tables (*.rtb, built by scripts/egtb); connect4small: a folder holding the board's connect4-WxH.rtb (scripts/egtb connect4:WxH); positions they cover are proven (win, draw or loss) instead of evaluated by the network (needs solver=1)"},
		{"graph", intParam, 0, 1, "1: share statistics and proofs across transpositions (Monte-Carlo graph search), 0: a tree (the default)"},
		{"sym", intParam, 1, 8, "average the network over this many symmetries of the board, 1..8 (default 1: off; connect4 has 2, othello and go 8): each position costs that many network evaluations"},
		{"batch", intParam, 1, 1024, "leaves per network batch within one search, 1..1024 (default 16)"},
		{"fpu", floatParam, 0, 2, "first-play urgency reduction, 0..2 (default 0.2)"},
		{"precision", stringParam, 0, 0, "network arithmetic: fp32 (default), bf16, int8 or auto (fastest passing the accuracy check)"},
		{"cache", intParam, 0, 1 << 26, "evaluation cache entries (keyed by position) shared by the player's games, 0 = none (default 65536)"},
		{"search", stringParam, 0, 0, "puct (default) or gumbel: Gumbel AlphaZero's Sequential Halving at the root, no noise, the survivor played"},
		{"gumbel_m", intParam, 1, 65536, "with search=gumbel, root moves considered, 1..65536 (default 16)"},
		{"chance", stringParam, 0, 0, "games of chance: how a descent picks the dice, sample (default: drawn at each visit) or stratified (a low-discrepancy sequence per chance node: each outcome's visits within about log K of its expected count)"},
		{"book", stringParam, 0, 0, "not chess: a game book built by scripts/makebook -game (othello; connect4's exact book, -solve N); in a book position the player plays the move of the best backed-up value (or one drawn within book_margin) instead of searching"},
		{"book_margin", floatParam, 0, 2, "with book, draw uniformly among the book moves within this much of the best value (values in [-1, 1]), 0..2 (default 0: the best, ties drawn)"},
	}},
	{name: "gtp", doc: "an outside engine over the Go Text Protocol (go; othello in GRhino's dialect)", params: []paramDef{
		{"cmd", stringParam, 0, 0, "the engine's program, on PATH, in /usr/games or a path (required)"},
		{"args", stringParam, 0, 0, "its arguments, split at spaces; quote them: args=\"--mode gtp --level 3\""},
		timeoutParam,
		restartsParam(0),
	}},
	{name: "gnugo", doc: "GNU Go over GTP (Debian gnugo): chinese rules, positional superko, the game's board size and komi (go only)", params: []paramDef{
		{"level", intParam, 0, 10, "GNU Go's level, 0..10 (default 10)"},
		timeoutParam,
		restartsParam(0),
	}},
	{name: "pachi", doc: "Pachi (Monte-Carlo go engine) over GTP: $TABULA_PACHI or pachi on PATH (built from source, see ../shared/tools/pachi; Debian's pachi package is an unrelated game); chinese rules, one thread, a seed per game from the match's (its games do not replay exactly) (go only)", params: []paramDef{
		{"playouts", intParam, 500, 1e8, "playouts per move (-t =N), 500..1e8 (default 1000)"},
		timeoutParam,
		restartsParam(pachiRestarts),
	}},
	{name: "grhino", doc: "GRhino over GTP (Debian grhino, program gtp-rhino; othello:size=8 only)", params: []paramDef{
		{"level", intParam, 1, 5, "GRhino's level, 1..5 (default 3)"},
		timeoutParam,
		restartsParam(0),
	}},
	{name: "uci", doc: "an outside chess engine over the Universal Chess Interface; one limit of depth, nodes, movetime or clock (default movetime=1s)", params: append([]paramDef{
		{"cmd", stringParam, 0, 0, "the engine's program, on PATH, in /usr/games or a path (required)"},
		{"args", stringParam, 0, 0, "its arguments, split at spaces; quote them: args=\"--uci\""},
		{"options", stringParam, 0, 0, "UCI options set before the first move, Name=Value;Name=Value, e.g. options=\"Skill Level=3;Hash=16\""},
	}, uciParams...), oneOf: uciLimits},
	{name: "stockfish", doc: "Stockfish over UCI (Debian stockfish): full strength, or weakened by elo or skill; one limit of depth, nodes, movetime or clock (default movetime=1s)", params: append([]paramDef{
		{"elo", intParam, 1320, 3190, "UCI_LimitStrength with UCI_Elo N (Stockfish 15.1 accepts 1350..2850, later versions 1320..3190)"},
		{"skill", intParam, 0, 20, "Skill Level, 0..20 (20: full strength)"},
	}, uciParams...), oneOf: uciLimits},
	{name: "gnubg", doc: "GNU Backgammon (Debian gnubg) choosing the moves: cubeless money play, no doubling; one gnubg process per game at a time, kept from game to game (backgammon only)", params: []paramDef{
		{"ply", intParam, 0, 2, "gnubg's evaluation depth in plies, 0..2 (default 0: its neural net on every legal move)"},
		{"cmd", stringParam, 0, 0, "gnubg's program, on PATH, in /usr/games or a path (default gnubg); run as PROGRAM [args] -t -q -p SCRIPT"},
		{"args", stringParam, 0, 0, "arguments put before -t -q -p SCRIPT, split at spaces"},
		{"timeout", durationParam, 0, 0, "time cap per move and for start-up (default 5m), on the engine's CPU time where Linux shows it: an engine past it, idle past it, or past 4 times it in wall time forfeits"},
	}},
	{name: "expectimax", doc: "expectiminimax for games of chance, to a depth in turns, or deepening a turn at a time within a time or cpu budget (default depth=1, eval=hand, prune=star2)", params: []paramDef{
		{"depth", intParam, 1, 4, "turns searched, 1..4 (1: each turn scored by the evaluation); with time or cpu, the deepest iteration (default 4)"},
		{"time", durationParam, 0, 0, "time per move, e.g. 100ms: iterative deepening from depth 1 (always completed); an iteration starts only while less than half is spent and when the growth of the last ones predicts it fits, and one the budget stops is discarded"},
		{"cpu", durationParam, 0, 0, "CPU time per move of the searching thread, e.g. 100ms, spent as time is: fair when other processes share the machine (Linux); with eval=net the network runs in that thread and is counted"},
		{"eval", stringParam, 0, 0, "evaluation at the horizon: hand (the game's heuristic), pubeval (backgammon), td (backgammon: a linear evaluation trained by TD(lambda) self-play, scripts/tdgammon), rollout, or net (a value network, path= or model=: a chance node scores the mean of the network's values after each roll, evaluated as one batch)"},
		{"path", stringParam, 0, 0, "with eval=net, the network's checkpoint file (this or model required)"},
		{"model", stringParam, 0, 0, "with eval=net, a shipped network by its name in models/manifest.json, e.g. backgammon (instead of path; the file's checksum is checked)"},
		{"precision", stringParam, 0, 0, "with eval=net, the network's arithmetic: fp32 (default), bf16, int8 or auto (fastest passing the accuracy check)"},
		{"cache", intParam, 0, 1 << 26, "with eval=net, evaluation cache entries (keyed by position) shared by the player's games, 0 = none (default 65536)"},
		{"prune", stringParam, 0, 0, "none (plain expectiminimax), star1 or star2 (Ballard's *-minimax)"},
		{"rollouts", intParam, 1, 1e6, "playouts per evaluation with eval=rollout, 1..1e6 (default 32)"},
		{"bearoff", stringParam, 0, 0, "exact values in bear-off races from the one-sided database: mem (build it, a few seconds) or a file (loaded; built and written once if missing)"},
	}},
	{name: "pubeval", doc: "Tesauro's pubeval, a linear benchmark player (backgammon only)"},
	{name: "cfr", doc: "counterfactual regret minimisation: solves the game once (its whole tree, in memory) and plays the average strategy; games of imperfect information only (kuhn, leduc)", params: []paramDef{
		{"iters", intParam, 1, 1e7, "iterations, 1..1e7 (default 10000)"},
		{"plus", intParam, 0, 1, "1: CFR+ (the default), 0: vanilla CFR"},
		{"mccfr", intParam, 0, 1, "1: external-sampling Monte Carlo CFR (one sampled walk per player an iteration; give it ~100x the iterations), 0: full-tree iterations (the default)"},
		{"seed", intParam, 0, 1e9, "seed of mccfr=1's sampling (default 1)"},
	}},
	{name: "pimc", doc: "perfect-information Monte Carlo: averages each action's exact value over determinisations drawn from the mover's information state (default samples=50; whist solves each with the double-dummy solver); games of imperfect information only (phantom, kuhn, leduc, whist)", params: []paramDef{
		{"samples", intParam, 1, 1e6, "determinisations per move, 1..1e6 (default 50)"},
	}},
	{name: "ismcts", doc: "single-observer information-set MCTS (Cowling et al. 2012): a tree of the mover's information sets, one determinisation per iteration, UCB with availability counts and random playouts (default iters=2000, c=0.7); games of imperfect information only", params: []paramDef{
		{"iters", intParam, 1, 1e8, "iterations per move, 1..1e8 (default 2000)"},
		{"c", floatParam, 0, 100, "UCB exploration constant (default 0.7)"},
	}},
	{name: "cardrules", doc: "rule-based whist: following, win the trick with the cheapest winning card, else throw the lowest; leading, play the highest master, else the lowest card of the longest plain suit (whist only)"},
}

// ParamInfo describes one parameter of a player kind: its name, its type
// ("int", "float", "duration" or "string": free text, such as a path or a
// program) and, for int and float, its range.
type ParamInfo struct {
	Name     string
	Type     string
	Min, Max float64
}

// KindInfo describes one player kind and its parameters.
type KindInfo struct {
	Name   string
	Params []ParamInfo
}

// Kinds lists every player kind that ParseSpec accepts, with its parameters,
// in the order help text shows them.
func Kinds() []KindInfo {
	types := [...]string{intParam: "int", floatParam: "float", durationParam: "duration", stringParam: "string"}
	out := make([]KindInfo, len(kinds))
	for i, k := range kinds {
		out[i].Name = k.name
		for _, p := range k.params {
			out[i].Params = append(out[i].Params, ParamInfo{Name: p.name, Type: types[p.typ], Min: p.min, Max: p.max})
		}
	}
	return out
}

func kindByName(name string) (kindDef, bool) {
	for _, k := range kinds {
		if k.name == name {
			return k, true
		}
	}
	return kindDef{}, false
}

func kindNames() string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}

// SpecHelp describes every player kind and its parameters, for command help.
func SpecHelp() string {
	var b strings.Builder
	b.WriteString("player spec: kind or kind:key=value,...\n")
	b.WriteString("  A value may be written in double quotes, inside which spaces, commas and = are\n")
	b.WriteString("  literal and \\\" and \\\\ stand for a quote and a backslash, e.g.\n")
	b.WriteString("  net:path=\"my runs/a.tbn\",sims=200 (quote the whole spec for the shell:\n")
	b.WriteString("  -player 'net:path=\"my runs/a.tbn\",sims=200'). In a list, specs are separated\n")
	b.WriteString("  by spaces, or by a comma directly before a kind.\nkinds:\n")
	for _, k := range kinds {
		fmt.Fprintf(&b, "  %s: %s\n", k.name, k.doc)
		for _, p := range k.params {
			fmt.Fprintf(&b, "    %s: %s\n", p.name, p.doc)
		}
	}
	return b.String()
}

// Param is one key=value of a spec.
type Param struct{ Key, Value string }

// Spec is a parsed player spec: a kind and its parameters in the order given.
// Values have been checked against the parameter's type and range.
type Spec struct {
	Kind   string
	Params []Param
}

// String is the spec in canonical form, kind:key=value,... as given, with
// values quoted where ParseSpec needs quotes to read them back.
func (s Spec) String() string {
	if len(s.Params) == 0 {
		return s.Kind
	}
	parts := make([]string, len(s.Params))
	for i, p := range s.Params {
		parts[i] = p.Key + "=" + quoteValue(p.Value)
	}
	return s.Kind + ":" + strings.Join(parts, ",")
}

// Has reports whether parameter key was given.
func (s Spec) Has(key string) bool {
	_, ok := s.lookup(key)
	return ok
}

func (s Spec) lookup(key string) (string, bool) {
	for _, p := range s.Params {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}

// Int returns parameter key as an int, or def when it was not given.
// ParseSpec has checked it, so it cannot fail for a parsed spec.
func (s Spec) Int(key string, def int) int {
	v, ok := s.lookup(key)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return def
	}
	return int(n)
}

// Float returns parameter key as a float64, or def.
func (s Spec) Float(key string, def float64) float64 {
	v, ok := s.lookup(key)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return def
	}
	return f
}

// Duration returns parameter key as a duration, or def.
func (s Spec) Duration(key string, def time.Duration) time.Duration {
	v, ok := s.lookup(key)
	if !ok {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return def
	}
	return d
}

// Str returns parameter key, or def.
func (s Spec) Str(key, def string) string {
	if v, ok := s.lookup(key); ok {
		return v
	}
	return def
}

// ParseSpec reads one player spec, "kind" or "kind:key=value,...". A value
// may be written in double quotes, inside which spaces, commas and '=' are
// literal and \" and \\ stand for a quote and a backslash (any other
// backslash escape is an error), e.g. net:path="my runs/a.tbn",sims=200. An
// unquoted value runs to the next comma and may not contain a quote. The
// error names the bad part and lists what is valid.
func ParseSpec(text string) (Spec, error) {
	text = strings.TrimSpace(text)
	name, rest, hasParams := strings.Cut(text, ":")
	name = strings.TrimSpace(name)
	k, ok := kindByName(name)
	if !ok {
		return Spec{}, fmt.Errorf("player spec %q: unknown kind %q; valid kinds: %s", text, name, kindNames())
	}
	spec := Spec{Kind: k.name}
	if !hasParams {
		return spec, nil
	}
	if len(k.params) == 0 {
		return Spec{}, fmt.Errorf("player spec %q: %s takes no parameters", text, k.name)
	}
	for _, kv := range splitUnquoted(rest, func(r rune) bool { return r == ',' }) {
		key, raw, okKV := strings.Cut(kv, "=")
		key, raw = strings.TrimSpace(key), strings.TrimSpace(raw)
		if !okKV || key == "" || strings.ContainsRune(key, '"') || raw == "" {
			return Spec{}, fmt.Errorf("player spec %q: %q is not of the form key=value", text, kv)
		}
		val, err := unquoteValue(raw)
		if err != nil {
			return Spec{}, fmt.Errorf("player spec %q: %s: %w", text, key, err)
		}
		var def *paramDef
		for i := range k.params {
			if k.params[i].name == key {
				def = &k.params[i]
			}
		}
		if def == nil {
			return Spec{}, fmt.Errorf("player spec %q: %s has no parameter %q; valid: %s", text, k.name, key, paramNames(k))
		}
		if spec.Has(key) {
			return Spec{}, fmt.Errorf("player spec %q: parameter %q given twice", text, key)
		}
		if err := checkValue(*def, val); err != nil {
			return Spec{}, fmt.Errorf("player spec %q: %w", text, err)
		}
		spec.Params = append(spec.Params, Param{Key: key, Value: val})
	}
	var limits []string
	for _, key := range k.oneOf {
		if spec.Has(key) {
			limits = append(limits, key)
		}
	}
	if len(limits) > 1 {
		return Spec{}, fmt.Errorf("player spec %q: %s takes one limit, got %s; give one of %s", text, k.name, strings.Join(limits, " and "), strings.Join(k.oneOf, ", "))
	}
	return spec, nil
}

// splitUnquoted splits s at every rune for which isSep is true that lies
// outside double quotes (a backslash inside quotes escapes the next rune). The
// pieces keep their quotes and escapes; an unterminated quote runs to the end.
func splitUnquoted(s string, isSep func(rune) bool) []string {
	var pieces []string
	start, inQuote, escaped := 0, false, false
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		switch {
		case escaped:
			escaped = false
		case inQuote && r == '\\':
			escaped = true
		case r == '"':
			inQuote = !inQuote
		case !inQuote && isSep(r):
			pieces = append(pieces, s[start:i])
			start = i + width
		}
		i += width
	}
	return append(pieces, s[start:])
}

// unquoteValue returns a value as written: raw itself, or the text inside its
// double quotes with \" and \\ unescaped.
func unquoteValue(raw string) (string, error) {
	if !strings.HasPrefix(raw, `"`) {
		if strings.ContainsRune(raw, '"') {
			return "", fmt.Errorf("value %s: a quote may only open a value; write the whole value in quotes, with \\\" for a quote inside", raw)
		}
		return raw, nil
	}
	var b strings.Builder
	for i := 1; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '\\':
			if i+1 >= len(raw) {
				return "", fmt.Errorf("value %s: unterminated quote", raw)
			}
			i++
			if raw[i] != '"' && raw[i] != '\\' {
				return "", fmt.Errorf("value %s: unknown escape \\%c; inside quotes only \\\" and \\\\ escape", raw, raw[i])
			}
			b.WriteByte(raw[i])
		case '"':
			if i != len(raw)-1 {
				return "", fmt.Errorf("value %s: text after the closing quote; put a comma between parameters", raw)
			}
			return b.String(), nil
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("value %s: unterminated quote", raw)
}

// quoteValue writes v so that ParseSpec reads it back: as it is, or in
// double quotes when it is empty or holds white space, a comma, '=', a quote
// or a backslash.
func quoteValue(v string) string {
	if v != "" && !strings.ContainsFunc(v, func(r rune) bool {
		return unicode.IsSpace(r) || r == ',' || r == '=' || r == '"' || r == '\\'
	}) {
		return v
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		if v[i] == '"' || v[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	b.WriteByte('"')
	return b.String()
}

func paramNames(k kindDef) string {
	parts := make([]string, len(k.params))
	for i, p := range k.params {
		parts[i] = fmt.Sprintf("%s (%s)", p.name, p.doc)
	}
	return strings.Join(parts, ", ")
}

func checkValue(p paramDef, v string) error {
	switch p.typ {
	case intParam:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || float64(n) < p.min || float64(n) > p.max {
			return fmt.Errorf("%s=%q: want %s", p.name, v, p.doc)
		}
	case floatParam:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || f < p.min || f > p.max {
			return fmt.Errorf("%s=%q: want %s", p.name, v, p.doc)
		}
	case durationParam:
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("%s=%q: want a positive duration such as 100ms or 2s", p.name, v)
		}
	}
	return nil
}

// ParseSpecs reads a list of specs. Specs are separated by white space, and a
// comma directly before a token that names a kind also separates, so both
// "net:path=a.tbn,sims=200 mcts:rollouts=1000" and "mcts:rollouts=1000,random"
// are lists of two. Separators inside a quoted value do not count:
// `net:path="my runs/a.tbn",sims=200 random` is a list of two.
func ParseSpecs(list string) ([]Spec, error) {
	var texts []string
	for _, field := range splitUnquoted(list, unicode.IsSpace) {
		if field == "" {
			continue
		}
		start := len(texts)
		for _, part := range splitUnquoted(field, func(r rune) bool { return r == ',' }) {
			head, _, _ := strings.Cut(part, ":")
			_, isKind := kindByName(head)
			if len(texts) == start || (isKind && !strings.Contains(head, "=")) {
				texts = append(texts, part)
				continue
			}
			texts[len(texts)-1] += "," + part
		}
	}
	if len(texts) == 0 {
		return nil, fmt.Errorf("empty player list; valid kinds: %s", kindNames())
	}
	specs := make([]Spec, len(texts))
	for i, t := range texts {
		s, err := ParseSpec(t)
		if err != nil {
			return nil, err
		}
		specs[i] = s
	}
	return specs, nil
}

// timeoutParam declares the timeout parameter of the outside engines.
var timeoutParam = paramDef{"timeout", durationParam, 0, 0, "time cap per command (default 5m), on the engine's CPU time where Linux shows it: an engine past it, idle past it, or past 4 times it in wall time forfeits"}

// uciParams declares the search limits of the UCI kinds, of which a move
// takes one (uciLimits), and their timeout.
var uciParams = []paramDef{
	{"depth", intParam, 1, 1000, "go depth N: plies per move, 1..1000"},
	{"nodes", intParam, 1, 1e12, "go nodes N: nodes per move, 1..1e12"},
	{"movetime", durationParam, 0, 0, "go movetime: time per move, e.g. 100ms"},
	{"clock", durationParam, 0, 0, "time per game, e.g. 10s: the player keeps the engine's clock, sends it as wtime and btime and charges each move's time to it (never below 1ms)"},
	{"inc", durationParam, 0, 0, "with clock, the time added after each move, sent as winc and binc, e.g. 100ms"},
	timeoutParam,
}

// uciLimits are the UCI kinds' limits, one at most a player.
var uciLimits = []string{"depth", "nodes", "movetime", "clock"}

// restartsParam declares the restarts parameter of the GTP engine kinds,
// whose default is def.
func restartsParam(def int) paramDef {
	return paramDef{"restarts", intParam, 0, 100, fmt.Sprintf("times a game starts the engine again, tells it the game and asks again after it dies (exits or closes its output), before its death is a forfeit, 0..100 (default %d); each restart is recorded in the game's record", def)}
}
