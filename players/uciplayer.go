package players

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"tabula/games"
	"tabula/games/chess"
	"tabula/internal/refdata"
	"tabula/uci"
)

// DefaultUCIMoveTime is the time per move an outside UCI engine is given
// when its spec sets no limit (depth, nodes or movetime).
const DefaultUCIMoveTime = time.Second

// uciOption is one setoption an outside engine gets before its first game.
type uciOption struct{ name, value string }

// buildUCI builds the factory of the uci and stockfish kinds. Every game
// starts a fresh engine process, stopped when the game ends.
func buildUCI(g games.Game, spec Spec) (*Factory, error) {
	name := spec.String()
	cg, ok := g.(chess.Game)
	if !ok {
		return nil, fmt.Errorf("player %s: UCI engines play chess, not %s", name, g.Name())
	}
	clock, inc := spec.Duration("clock", 0), spec.Duration("inc", 0)
	if spec.Has("inc") && !spec.Has("clock") {
		return nil, fmt.Errorf("player %s: inc needs clock (a game clock to add it to)", name)
	}
	program, install := spec.Str("cmd", ""), "the engine named by cmd="
	args := strings.Fields(spec.Str("args", ""))
	var opts []uciOption
	switch spec.Kind {
	case "stockfish":
		program, install = "stockfish", "apt-get install stockfish"
		if spec.Has("elo") && spec.Has("skill") {
			return nil, fmt.Errorf("player %s: give elo or skill, not both", name)
		}
		if spec.Has("elo") {
			opts = append(opts, uciOption{"UCI_LimitStrength", "true"}, uciOption{"UCI_Elo", strconv.Itoa(spec.Int("elo", 0))})
		}
		if spec.Has("skill") {
			opts = append(opts, uciOption{"Skill Level", strconv.Itoa(spec.Int("skill", 20))})
		}
	default:
		if program == "" {
			return nil, fmt.Errorf("player %s: uci needs cmd=PROGRAM", name)
		}
		var err error
		if opts, err = parseUCIOptions(spec.Str("options", "")); err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
	}
	path, err := refdata.LookProgram(program)
	if err != nil {
		return nil, fmt.Errorf("player %s: engine program %q not found on PATH or in /usr/games (install: %s)", name, program, install)
	}
	lim := uci.Limits{Depth: spec.Int("depth", 0), Nodes: int64(spec.Int("nodes", 0)), MoveTime: spec.Duration("movetime", 0)}
	if lim.Depth == 0 && lim.Nodes == 0 && lim.MoveTime == 0 && clock == 0 {
		lim.MoveTime = DefaultUCIMoveTime
	}
	timeout := spec.Duration("timeout", DefaultGTPTimeout)
	return &Factory{Name: name, New: func(*rand.Rand) (Player, error) {
		return &uciPlayer{outside: outside[*uci.Client]{name: name}, game: cg, timeout: timeout, lim: lim, opts: opts,
			clock: clock, inc: inc, cfg: uci.ClientConfig{Path: path, Args: args}}, nil
	}}, nil
}

// parseUCIOptions reads "Name=Value;Name=Value" (names may hold spaces).
func parseUCIOptions(text string) ([]uciOption, error) {
	var opts []uciOption
	for _, part := range strings.Split(text, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		n, v, ok := strings.Cut(part, "=")
		n, v = strings.TrimSpace(n), strings.TrimSpace(v)
		if !ok || n == "" || strings.ContainsAny(n+v, "\r\n") {
			return nil, fmt.Errorf("options: %q is not of the form Name=Value", part)
		}
		opts = append(opts, uciOption{n, v})
	}
	return opts, nil
}

// uciPlayer plays one game of chess with an outside UCI engine. It starts
// the engine at its first move (uci, setoption, ucinewgame, isready), then
// for every move sends the game so far (position startpos moves ..., or the
// position's FEN when it was not told the moves) and go with its limits.
// Every move the engine returns is checked against our rules.
type uciPlayer struct {
	outside[*uci.Client]
	game    chess.Game
	cfg     uci.ClientConfig
	timeout time.Duration
	lim     uci.Limits
	opts    []uciOption
	value   float64
	// clock is the time left on the engine's game clock (0: no clock),
	// inc what each move adds to it.
	clock, inc time.Duration
}

// Value is the engine's last reported score for the side to move, in
// pawns (a mate counts as 100 pawns).
func (p *uciPlayer) Value() float64 { return p.value }

// failed turns a client error into a forfeit (the engine died or hung) or,
// when ctx ended, an error.
func (p *uciPlayer) failed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		p.Close()
		return fmt.Errorf("player %s: %w", p.name, ctx.Err())
	}
	return p.forfeit("%v", err)
}

// start starts the engine and sets its options. An option the engine does
// not declare, or a value outside its range, is an error (it would fail
// every game), not a forfeit.
func (p *uciPlayer) start(ctx context.Context) error {
	c, err := uci.Start(p.cfg)
	if err != nil {
		return fmt.Errorf("player %s: %w", p.name, err)
	}
	p.client = c
	_, declared, err := c.Handshake(ctx, p.timeout)
	if err != nil {
		return p.failed(ctx, err)
	}
	for _, o := range p.opts {
		var d *uci.Option
		for i := range declared {
			if strings.EqualFold(declared[i].Name, o.name) {
				d = &declared[i]
			}
		}
		if d == nil {
			p.Close()
			return fmt.Errorf("player %s: the engine has no option %q", p.name, o.name)
		}
		if d.Type == "spin" && d.HasRange {
			n, err := strconv.ParseInt(o.value, 10, 64)
			if err != nil || n < d.Min || n > d.Max {
				p.Close()
				return fmt.Errorf("player %s: option %s=%s: the engine accepts %d..%d", p.name, d.Name, o.value, d.Min, d.Max)
			}
		}
		if err := c.Send("setoption name " + d.Name + " value " + o.value); err != nil {
			return p.failed(ctx, err)
		}
	}
	if err := c.Send("ucinewgame"); err != nil {
		return p.failed(ctx, err)
	}
	if err := c.IsReady(ctx, p.timeout); err != nil {
		return p.failed(ctx, err)
	}
	return nil
}

// position writes s for a position command: the start position and the
// moves given to Sync when they lead to s (so that the engine knows the
// repetitions), else s's FEN.
func (p *uciPlayer) position(s *chess.State) string {
	if p.synced {
		p.synced = false
		if r, err := games.Replay(p.game, p.history); err == nil && r.Hash() == s.Hash() && r.MoveNumber() == s.MoveNumber() {
			if len(p.history) == 0 {
				return "startpos"
			}
			return "startpos moves " + p.game.FormatActions(p.history)
		}
	}
	pos := s.Position()
	return "fen " + pos.FEN()
}

// ChooseAction asks the engine for a move in s. With a clock, the go
// command carries the time left as wtime and btime (the player keeps only
// its engine's clock, so both sides get it) and the increment as winc and
// binc; the move's time, from sending the position to the bestmove, is
// charged to the clock and the increment added, the clock never dropping
// below a millisecond, as the alphabeta player's does.
func (p *uciPlayer) ChooseAction(ctx context.Context, s games.State) (int, error) {
	cs, ok := s.(*chess.State)
	if !ok {
		return 0, fmt.Errorf("player %s: not a chess position", p.name)
	}
	if cs.IsTerminal() {
		return 0, errGameOver
	}
	if p.client == nil {
		if err := p.start(ctx); err != nil {
			return 0, err
		}
	}
	lim := p.lim
	if p.clock > 0 {
		lim.WTime, lim.BTime, lim.WInc, lim.BInc = p.clock, p.clock, p.inc, p.inc
	}
	start := time.Now()
	best, info, err := p.client.Go(ctx, p.timeout, p.position(cs), lim)
	if err != nil {
		return 0, p.failed(ctx, err)
	}
	if p.clock > 0 {
		p.clock = max(p.clock-time.Since(start), time.Millisecond) + p.inc
	}
	switch {
	case info.Score.Mate > 0:
		p.value = 100
	case info.Score.Mate < 0:
		p.value = -100
	case info.Score.Known:
		p.value = float64(info.Score.CP) / 100
	}
	if best == "" || best == "(none)" || best == "0000" {
		return 0, p.forfeit("answered bestmove %q in a position with legal moves", best)
	}
	m, err := chess.ParseUCI(best)
	if err != nil {
		return 0, p.forfeit("answered bestmove %q, not a move: %v", best, err)
	}
	a := chess.ActionOf(m)
	if !cs.IsLegal(a) {
		return 0, p.forfeit("played the illegal move %s", best)
	}
	return a, nil
}
