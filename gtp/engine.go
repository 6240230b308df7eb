package gtp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"tabula/games"
	"tabula/games/gogame"
	"tabula/internal/engineproc"
	"tabula/internal/version"
)

// Chooser picks a move; package players' players are Choosers.
type Chooser interface {
	ChooseAction(ctx context.Context, s games.State) (int, error)
}

// Syncer is implemented by choosers that keep a board of their own (outside
// engines): they are told every action played since the initial state
// before each ChooseAction.
type Syncer interface {
	Sync(actions []int)
}

// Builder makes a chooser for a game. The engine calls it at the start and
// again when boardsize or komi changes the game.
type Builder func(g games.Game) (Chooser, error)

// EngineConfig configures an Engine.
type EngineConfig struct {
	// Name and Version answer the name and version commands.
	Name    string
	Version string
	// Log receives one line per command handled and every error, never
	// stdout; nil discards.
	Log *slog.Logger
}

// DefaultEngineConfig names the engine tabula, its version the build's VCS
// revision (version.Revision, the revision -version prints).
func DefaultEngineConfig() EngineConfig {
	return EngineConfig{Name: "tabula", Version: version.Revision()}
}

// Validate checks the names: GTP answers are one line.
func (c EngineConfig) Validate() error {
	if c.Name == "" || strings.ContainsAny(c.Name, "\r\n") {
		return fmt.Errorf("gtp: engine name %q: want one non-empty line", c.Name)
	}
	if strings.ContainsAny(c.Version, "\r\n") {
		return fmt.Errorf("gtp: engine version %q: want one line", c.Version)
	}
	return nil
}

// Commands lists the commands Engine knows, in list_commands order.
var Commands = []string{
	"protocol_version", "name", "version", "known_command", "list_commands",
	"boardsize", "clear_board", "komi", "play", "genmove", "undo",
	"final_score", "final_status_list", "kata-get-rules", "showboard",
	"loadsgf", "printsgf", "time_settings", "kgs-time_settings", "time_left", "quit",
}

// Engine answers GTP commands for a game (Go or Othello) with a chooser's
// moves. It checks every move it is given or generates against the rules.
type Engine struct {
	cfg     EngineConfig
	log     *slog.Logger
	build   Builder
	pos     *Position
	chooser Chooser
	clock   Clock
	quit    bool
}

// NewEngine returns an engine for game g whose moves come from build(g).
func NewEngine(cfg EngineConfig, g games.Game, build Builder) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if build == nil {
		return nil, errors.New("gtp: engine: no player builder")
	}
	d, err := NewDialect(g)
	if err != nil {
		return nil, err
	}
	ch, err := build(g)
	if err != nil {
		return nil, fmt.Errorf("gtp: engine: %w", err)
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Engine{cfg: cfg, log: log, build: build, pos: NewPosition(d), chooser: ch}, nil
}

// Position returns the engine's position.
func (e *Engine) Position() *Position { return e.pos }

// Close releases the chooser if it holds resources (io.Closer).
func (e *Engine) Close() error {
	if c, ok := e.chooser.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// line is one input line.
type line = engineproc.Line

// Run reads commands from r and writes responses to w until quit, the end
// of r, or ctx is done. It returns nil after quit or at the end of input.
// The analysis commands stream their answers until the next input line
// (see analyze.go), which is then handled as usual.
func (e *Engine) Run(ctx context.Context, r io.Reader, w io.Writer) error {
	bw := bufio.NewWriter(w)
	stop := make(chan struct{})
	defer close(stop)
	lines, readErr := engineproc.ReadLines(r, MaxLineBytes, stop)
	var pending *line
	// next returns the next input line, waiting for one if block is set;
	// more is false at the end of input.
	next := func(block bool) (ln *line, more bool) {
		if block {
			select {
			case <-ctx.Done():
				return nil, true
			case l, ok := <-lines:
				if !ok {
					return nil, false
				}
				return &l, true
			}
		}
		select {
		case l, ok := <-lines:
			if !ok {
				return nil, false
			}
			return &l, true
		default:
			return nil, true
		}
	}
	for !e.quit {
		var ln line
		if pending != nil {
			ln, pending = *pending, nil
		} else {
			var ok bool
			select {
			case <-ctx.Done():
				return ctx.Err()
			case ln, ok = <-lines:
			}
			if !ok {
				select {
				case err := <-readErr:
					return fmt.Errorf("gtp: reading commands: %w", err)
				default:
					return nil
				}
			}
		}
		cmd, isCmd, err := ParseCommand(ln.Text)
		if !isCmd {
			continue
		}
		if ln.TooLong {
			err = fmt.Errorf("syntax error: command longer than %d bytes", MaxLineBytes)
		}
		if err == nil && isStreaming(cmd.Name) {
			if _, ok := e.chooser.(Analyzer); ok {
				e.log.Debug("gtp", "command", cmd.String(), "response", "(streamed)")
				stopped, err := e.streamAnalysis(ctx, cmd, bw, next)
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					return fmt.Errorf("gtp: writing response: %w", err)
				}
				pending = stopped
				continue
			}
		}
		var text string
		if err == nil {
			text, err = e.Handle(ctx, cmd)
		}
		if err != nil {
			e.log.Info("gtp", "command", cmd.String(), "error", err.Error())
			text = err.Error()
		} else {
			e.log.Debug("gtp", "command", cmd.String(), "response", text)
		}
		if werr := WriteResponse(bw, cmd, err == nil, text); werr != nil {
			return fmt.Errorf("gtp: writing response: %w", werr)
		}
		if werr := bw.Flush(); werr != nil {
			return fmt.Errorf("gtp: writing response: %w", werr)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// commands lists the commands this engine knows: Commands, and
// AnalysisCommands when its chooser is an Analyzer.
func (e *Engine) commands() []string {
	if _, ok := e.chooser.(Analyzer); ok {
		return append(append([]string(nil), Commands...), AnalysisCommands...)
	}
	return Commands
}

// Handle executes one command and returns its response text, or an error
// whose text is the failure response ("illegal move", "unknown command",
// ...).
func (e *Engine) Handle(ctx context.Context, cmd Command) (string, error) {
	args := cmd.Args
	need := func(n int) error {
		if len(args) != n {
			return fmt.Errorf("syntax error: %s takes %d argument(s), got %d", cmd.Name, n, len(args))
		}
		return nil
	}
	switch cmd.Name {
	case "protocol_version":
		return "2", nil
	case "name":
		return e.cfg.Name, nil
	case "version":
		return e.cfg.Version, nil
	case "known_command":
		if err := need(1); err != nil {
			return "", err
		}
		for _, c := range e.commands() {
			if c == args[0] {
				return "true", nil
			}
		}
		return "false", nil
	case "list_commands":
		return strings.Join(e.commands(), "\n"), nil
	case "quit":
		e.quit = true
		return "", nil
	case "boardsize":
		if err := need(1); err != nil {
			return "", err
		}
		n, err := strconv.Atoi(args[0])
		if err != nil {
			return "", fmt.Errorf("syntax error: board size %q is not an integer", clip(args[0]))
		}
		d, err := e.pos.Dialect().WithSize(n)
		if err != nil {
			return "", fmt.Errorf("unacceptable size: %w", err)
		}
		if err := e.rebuild(d, true); err != nil {
			return "", fmt.Errorf("unacceptable size: %w", err)
		}
		return "", nil
	case "clear_board":
		e.pos.Clear()
		return "", nil
	case "komi":
		if err := need(1); err != nil {
			return "", err
		}
		k, err := strconv.ParseFloat(args[0], 64)
		if err != nil {
			return "", fmt.Errorf("syntax error: komi %q is not a number", clip(args[0]))
		}
		if !e.pos.Dialect().IsGo() {
			// Controllers send komi whatever the game; as other engines
			// do, a game without komi accepts and ignores it.
			e.log.Info("gtp: komi ignored: the game has no komi", "game", e.pos.Dialect().Game().Name(), "komi", k)
			return "", nil
		}
		if k == e.pos.Dialect().Komi() {
			return "", nil
		}
		d, err := e.pos.Dialect().WithKomi(k)
		if err != nil {
			return "", fmt.Errorf("syntax error: %w", err)
		}
		if err := e.rebuild(d, false); err != nil {
			return "", err
		}
		return "", nil
	case "play":
		if err := need(2); err != nil {
			return "", err
		}
		color, err := ParseColor(args[0])
		if err != nil {
			return "", fmt.Errorf("syntax error: %w", err)
		}
		a, err := e.pos.Dialect().ParseMove(args[1])
		if err != nil {
			return "", fmt.Errorf("syntax error: invalid coordinate: %w", err)
		}
		if err := e.pos.Play(color, a); err != nil {
			// "illegal move: D4 is not legal here; legal moves: ...": the
			// standard failure text first, for controllers that match it.
			e.log.Info("gtp: play refused", "move", args[1], "reason", err.Error())
			if errors.Is(err, games.ErrIllegalMove) {
				return "", err
			}
			return "", fmt.Errorf("illegal move: %w", err)
		}
		return "", nil
	case "genmove":
		if err := need(1); err != nil {
			return "", err
		}
		color, err := ParseColor(args[0])
		if err != nil {
			return "", fmt.Errorf("syntax error: %w", err)
		}
		return e.genmove(ctx, color)
	case "undo":
		if err := e.pos.Undo(); err != nil {
			return "", fmt.Errorf("cannot undo: %w", err)
		}
		return "", nil
	case "final_score":
		return FormatScore(e.pos.Dialect().Score(e.pos.State())), nil
	case "final_status_list":
		return e.finalStatusList(args)
	case "kata-get-rules":
		if err := need(0); err != nil {
			return "", err
		}
		return e.kataGetRules()
	case "loadsgf":
		return e.loadSGF(args)
	case "printsgf":
		return e.printSGF(args)
	case "time_settings", "kgs-time_settings":
		parse := parseTimeSettings
		if cmd.Name == "kgs-time_settings" {
			parse = parseKGSTimeSettings
		}
		tc, err := parse(args)
		if err != nil {
			return "", err
		}
		e.clock.SetControl(tc)
		if _, ok := e.chooser.(TimeLimiter); !ok && tc.System != NoTime {
			e.log.Warn("gtp: the player takes no time limit: it plays as configured whatever the clock")
		}
		return "", nil
	case "time_left":
		if err := need(3); err != nil {
			return "", err
		}
		color, err := ParseColor(args[0])
		if err != nil {
			return "", fmt.Errorf("syntax error: %w", err)
		}
		left, err := parseSeconds("time", args[1])
		if err != nil {
			return "", err
		}
		stones, err := parseCount("stones", args[2])
		if err != nil {
			return "", err
		}
		e.clock.SetLeft(color, left, stones)
		return "", nil
	case "showboard":
		return "\n" + e.pos.State().String(), nil
	}
	if an, ok := e.chooser.(Analyzer); ok {
		switch cmd.Name {
		case "gogui-analyze_commands":
			return goguiAnalyzeCommands(), nil
		case "tabula-policy", "tabula-visits", "tabula-value", "tabula-gfx":
			if err := need(0); err != nil {
				return "", err
			}
			return e.goguiAnalysis(ctx, an, cmd.Name)
		}
		if isStreaming(cmd.Name) {
			return "", fmt.Errorf("%s streams its answer: it is answered in Run only", cmd.Name)
		}
	}
	return "", errors.New("unknown command")
}

// genmove asks the chooser for color's move and plays it.
func (e *Engine) genmove(ctx context.Context, color int) (string, error) {
	d := e.pos.Dialect()
	s, err := e.pos.Ready(color)
	if err != nil {
		return "", fmt.Errorf("cannot generate a move: %w", err)
	}
	if sy, ok := e.chooser.(Syncer); ok {
		sy.Sync(e.pos.Actions())
	}
	timed := e.clock.Control().System != NoTime
	limit := e.clock.Budget(color, movesLeft(s))
	if tl, ok := e.chooser.(TimeLimiter); ok {
		// Without a clock, 0 gives the player back its own limit.
		tl.SetMoveTime(limit)
	}
	start := time.Now()
	a, err := e.chooser.ChooseAction(ctx, s.Clone())
	if err != nil {
		return "", fmt.Errorf("cannot generate a move: %w", err)
	}
	if timed {
		spent := time.Since(start)
		e.clock.Overran(limit, spent)
		if !e.clock.Charge(color, spent) {
			e.log.Warn("gtp: out of time by the engine's own clock", "color", colorWord(color))
		}
	}
	if err := e.pos.Play(color, a); err != nil {
		return "", fmt.Errorf("cannot generate a move: the player chose %s: %w", d.FormatMove(a), err)
	}
	return d.FormatMove(a), nil
}

// movesLeft estimates the moves the player to move in s has left to play:
// in Go half the empty points (the legal moves, near enough), at least 10;
// in Othello half the empty squares.
func movesLeft(s games.State) int {
	if gs, ok := s.(*gogame.State); ok {
		empty := 0
		n := gs.Game().(*gogame.Game).Size()
		for p := range n * n {
			if gs.At(p) == gogame.Empty {
				empty++
			}
		}
		return max(10, empty/2)
	}
	_, h, w := s.Game().ObservationShape()
	return max(1, (h*w-4-s.MoveNumber()+1)/2)
}

// rebuild switches to dialect d's game: a new chooser for it, and the moves
// played so far replayed where legal. A chooser that cannot play the new game
// is an error for a new board size; for a new komi the old chooser plays on
// (a network trained with one komi still plays another).
func (e *Engine) rebuild(d *Dialect, sizeChanged bool) error {
	if d.Game().Name() == e.pos.Dialect().Game().Name() {
		// The same game (a controller repeats boardsize before each
		// game): keep the player and the moves.
		return nil
	}
	ch, err := e.build(d.Game())
	if err != nil {
		if sizeChanged {
			return err
		}
		e.log.Warn("gtp: the player cannot be rebuilt for the new game; it plays on unchanged", "game", d.Game().Name(), "error", err.Error())
		ch = e.chooser
	}
	if ch != e.chooser {
		if c, ok := e.chooser.(io.Closer); ok {
			if err := c.Close(); err != nil {
				e.log.Warn("gtp: closing the old player", "error", err.Error())
			}
		}
		e.chooser = ch
	}
	moves := append([]Move(nil), e.pos.Moves()...)
	kept := e.pos.Replay(d, moves)
	if kept < len(moves) {
		e.log.Info("gtp: moves dropped by the new game", "kept", kept, "dropped", len(moves)-kept)
	}
	return nil
}
