package uci

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

	"tabula/games/chess"
	"tabula/internal/engineproc"
	"tabula/internal/version"
)

// Searcher chooses a move in a position under the go command's limits. The
// engine gives it a context that ends at the time budget or at stop; it must
// then return its best move so far promptly.
type Searcher interface {
	Search(ctx context.Context, pos Position, lim Limits) (Result, error)
}

// Result is a Searcher's move and what it can say about the search.
type Result struct {
	Move int
	Info Info
}

// Options are the values of the engine's options Hash (MB) and Threads.
type Options struct {
	HashMB  int
	Threads int
}

// Builder makes a Searcher with the given options. The engine calls it
// before the first search, after ucinewgame and after an option changed;
// it closes the Searcher it replaces if that is an io.Closer.
type Builder func(o Options) (Searcher, error)

// EngineConfig configures an Engine.
type EngineConfig struct {
	// Name and Author answer uci ("id name", "id author"); Version, when
	// set, follows the name in "id name".
	Name    string
	Version string
	Author  string
	// HashMB is the Hash option's default; HashMax its maximum.
	HashMB  int
	HashMax int
	// ThreadsMax is the Threads option's maximum.
	ThreadsMax int
	// Log receives one line per command and every error, never stdout;
	// nil discards.
	Log *slog.Logger
}

// DefaultEngineConfig names the engine tabula, its version the build's VCS
// revision (version.Revision, the revision -version prints, as GTP's
// version answers), with 16 MB of hash.
func DefaultEngineConfig() EngineConfig {
	return EngineConfig{Name: "tabula", Version: version.Revision(), Author: "the tabula authors", HashMB: 16, HashMax: 4096, ThreadsMax: 1}
}

// Validate checks the names (one line each) and the option ranges.
func (c EngineConfig) Validate() error {
	switch {
	case c.Name == "" || strings.ContainsAny(c.Name, "\r\n"):
		return fmt.Errorf("uci: engine name %q: want one non-empty line", c.Name)
	case strings.ContainsAny(c.Version, "\r\n"):
		return fmt.Errorf("uci: engine version %q: want one line", c.Version)
	case strings.ContainsAny(c.Author, "\r\n"):
		return fmt.Errorf("uci: engine author %q: want one line", c.Author)
	case c.HashMax < 1 || c.HashMB < 1 || c.HashMB > c.HashMax:
		return fmt.Errorf("uci: hash %d MB, maximum %d: want 1 <= hash <= maximum", c.HashMB, c.HashMax)
	case c.ThreadsMax < 1:
		return fmt.Errorf("uci: threads maximum %d: want >= 1", c.ThreadsMax)
	}
	return nil
}

// Engine answers UCI commands with a Searcher's moves.
type Engine struct {
	cfg   EngineConfig
	log   *slog.Logger
	build Builder
	game  chess.Game

	opts     Options
	searcher Searcher
	stale    bool // opts changed since searcher was built
	pos      Position
	w        *bufio.Writer
}

// NewEngine returns an engine for chess whose searchers come from build.
func NewEngine(cfg EngineConfig, build Builder) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if build == nil {
		return nil, errors.New("uci: engine: no searcher builder")
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &Engine{cfg: cfg, log: log, build: build, opts: Options{HashMB: cfg.HashMB, Threads: 1}, stale: true}
	e.pos = StartPosition(e.game)
	return e, nil
}

// Close releases the searcher if it holds resources (io.Closer).
func (e *Engine) Close() error {
	err := closeSearcher(e.searcher)
	e.searcher = nil
	return err
}

func closeSearcher(s Searcher) error {
	if c, ok := s.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// search is a running go command.
type search struct {
	cancel context.CancelFunc
	done   chan searchDone
	// held: bestmove waits for stop (go infinite) or for stop or
	// ponderhit (go ponder).
	held     bool
	infinite bool
	result   *searchDone
	legal    []int
	start    time.Time
}

type searchDone struct {
	res Result
	err error
}

// Run reads commands from r and writes to w until quit, the end of r, or
// ctx is done. A search still running is stopped (at the end of r, only
// one that only stop would end), and its bestmove written, first. It
// returns nil after quit or at the end of input.
func (e *Engine) Run(ctx context.Context, r io.Reader, w io.Writer) error {
	e.w = bufio.NewWriter(w)
	stopRead := make(chan struct{})
	defer close(stopRead)
	lines, readErr := engineproc.ReadLines(r, MaxLineBytes, stopRead)
	var cur *search
	// finish waits for the running search, if any, and writes its bestmove.
	finish := func() error {
		if cur == nil {
			return nil
		}
		cur.cancel()
		if cur.result == nil {
			d := <-cur.done
			cur.result = &d
		}
		err := e.bestmove(cur)
		cur = nil
		return err
	}
	for {
		var done <-chan searchDone
		if cur != nil && cur.result == nil {
			done = cur.done
		}
		var ln engineproc.Line
		var ok bool
		select {
		case <-ctx.Done():
			return errors.Join(finish(), ctx.Err())
		case d := <-done:
			cur.result = &d
			if !cur.held {
				if err := finish(); err != nil {
					return err
				}
			}
			continue
		case ln, ok = <-lines:
		}
		if !ok {
			// At the end of input a search with limits runs to its end;
			// one that only stop would end is stopped.
			if cur != nil && !cur.held && cur.result == nil {
				select {
				case d := <-cur.done:
					cur.result = &d
				case <-ctx.Done():
				}
			}
			if err := finish(); err != nil {
				return err
			}
			select {
			case err := <-readErr:
				return fmt.Errorf("uci: reading commands: %w", err)
			default:
				return nil
			}
		}
		fields := strings.Fields(ln.Text)
		if len(fields) == 0 {
			continue
		}
		if ln.TooLong {
			if err := e.infoString(fmt.Sprintf("error: line longer than %d bytes ignored", MaxLineBytes)); err != nil {
				return err
			}
			continue
		}
		name, args := fields[0], fields[1:]
		e.log.Debug("uci", "command", clip(ln.Text))
		var err error
		switch name {
		case "quit":
			return finish()
		case "stop":
			err = finish()
		case "ponderhit":
			if cur != nil && !cur.infinite {
				cur.held = false
				if cur.result != nil {
					err = finish()
				}
			}
		case "isready":
			err = e.println("readyok")
		default:
			if cur != nil && name != "uci" && name != "debug" {
				if cur.held {
					err = e.infoString(fmt.Sprintf("error: %s ignored: a search is running; send stop first", clip(name)))
					break
				}
				// A search with limits ends by itself: the command
				// waits for its bestmove.
				if cur.result == nil {
					select {
					case d := <-cur.done:
						cur.result = &d
					case <-ctx.Done():
						return errors.Join(finish(), ctx.Err())
					}
				}
				if err = finish(); err != nil {
					break
				}
			}
			if name == "go" {
				cur, err = e.startGo(ctx, args)
			} else {
				err = e.handle(name, args)
			}
		}
		if err != nil {
			return err
		}
	}
}

// handle runs a command that does not involve a running search. Failures
// are written as info strings; the error is a write failure.
func (e *Engine) handle(name string, args []string) error {
	switch name {
	case "uci":
		lines := []string{
			"id name " + strings.TrimSpace(e.cfg.Name+" "+e.cfg.Version),
			"id author " + e.cfg.Author,
			fmt.Sprintf("option name Hash type spin default %d min 1 max %d", e.cfg.HashMB, e.cfg.HashMax),
			fmt.Sprintf("option name Threads type spin default 1 min 1 max %d", e.cfg.ThreadsMax),
			"uciok",
		}
		return e.println(strings.Join(lines, "\n"))
	case "debug", "register":
		return nil
	case "ucinewgame":
		e.stale = true
		e.pos = StartPosition(e.game)
		return nil
	case "setoption":
		if err := e.setOption(args); err != nil {
			return e.infoString("error: " + err.Error())
		}
		return nil
	case "position":
		pos, err := ParsePosition(e.game, args)
		if err != nil {
			e.log.Info("uci: position refused", "error", err.Error())
			return e.infoString("error: " + err.Error() + "; the position is unchanged")
		}
		e.pos = pos
		return nil
	}
	return e.infoString(fmt.Sprintf("error: unknown command %q", clip(name)))
}

// setOption reads "name NAME value VALUE" for Hash and Threads.
func (e *Engine) setOption(args []string) error {
	if len(args) < 2 || args[0] != "name" {
		return errors.New("setoption: want setoption name NAME value VALUE")
	}
	var name, value []string
	cur := &name
	for _, w := range args[1:] {
		if w == "value" && cur == &name {
			cur = &value
			continue
		}
		*cur = append(*cur, w)
	}
	n := strings.Join(name, " ")
	v := strings.Join(value, " ")
	intValue := func(lo, hi int) (int, error) {
		x, err := strconv.Atoi(v)
		if err != nil || x < lo || x > hi {
			return 0, fmt.Errorf("setoption %s: value %q, want %d..%d", n, clip(v), lo, hi)
		}
		return x, nil
	}
	switch strings.ToLower(n) {
	case "hash":
		x, err := intValue(1, e.cfg.HashMax)
		if err != nil {
			return err
		}
		if x != e.opts.HashMB {
			e.opts.HashMB, e.stale = x, true
		}
	case "threads":
		x, err := intValue(1, e.cfg.ThreadsMax)
		if err != nil {
			return err
		}
		if x != e.opts.Threads {
			e.opts.Threads, e.stale = x, true
		}
	default:
		return fmt.Errorf("setoption: unknown option %q; options: Hash, Threads", clip(n))
	}
	return nil
}

// startGo starts a search of the current position in a goroutine.
func (e *Engine) startGo(ctx context.Context, args []string) (*search, error) {
	lim, err := ParseGo(args)
	if err != nil {
		return nil, e.infoString("error: " + err.Error() + "; go ignored")
	}
	pos := e.pos
	pos.Moves = append([]int(nil), pos.Moves...)
	pos.State = pos.State.Clone().(*chess.State)
	var sctx context.Context
	var cancel context.CancelFunc
	cp := pos.State.Position()
	if d, ok := lim.Budget(cp.SideToMove()); ok {
		sctx, cancel = context.WithTimeout(ctx, d)
	} else {
		sctx, cancel = context.WithCancel(ctx)
	}
	s := &search{cancel: cancel, done: make(chan searchDone, 1), held: lim.Infinite || lim.Ponder, infinite: lim.Infinite,
		legal: pos.State.LegalActions(nil), start: time.Now()}
	if len(s.legal) == 0 || pos.State.IsTerminal() {
		s.done <- searchDone{err: fmt.Errorf("the game is over (%s)", pos.State.Status())}
		return s, nil
	}
	if e.stale || e.searcher == nil {
		if err := closeSearcher(e.searcher); err != nil {
			e.log.Warn("uci: closing the old searcher", "error", err.Error())
		}
		e.searcher = nil
		sr, err := e.build(e.opts)
		if err != nil {
			s.done <- searchDone{err: err}
			return s, nil
		}
		e.searcher, e.stale = sr, false
	}
	sr := e.searcher
	go func() {
		defer func() {
			if p := recover(); p != nil {
				s.done <- searchDone{err: fmt.Errorf("the search panicked: %v", p)}
			}
		}()
		res, err := sr.Search(sctx, pos, lim)
		s.done <- searchDone{res: res, err: err}
	}()
	return s, nil
}

// bestmove writes the info line and the bestmove of a finished search. A
// failed search, or a move that is not legal, is reported in an info string,
// and the first legal move is played instead; with no legal move the answer
// is "bestmove (none)".
func (e *Engine) bestmove(s *search) error {
	d := s.result
	if len(s.legal) == 0 {
		if d.err != nil {
			if err := e.infoString("error: " + d.err.Error()); err != nil {
				return err
			}
		}
		return e.println("bestmove (none)")
	}
	move := d.res.Move
	legal := false
	for _, a := range s.legal {
		legal = legal || a == move
	}
	switch {
	case d.err != nil:
		e.log.Warn("uci: search failed", "error", d.err.Error())
		if err := e.infoString("error: the search failed: " + d.err.Error() + "; playing the first legal move"); err != nil {
			return err
		}
		move = s.legal[0]
	case !legal:
		if err := e.infoString(fmt.Sprintf("error: the player chose %s, not a legal move; playing the first legal move", chess.Game{}.FormatAction(move))); err != nil {
			return err
		}
		move = s.legal[0]
	default:
		info := d.res.Info
		if info.Time == 0 {
			info.Time = time.Since(s.start)
		}
		if len(info.PV) == 0 {
			info.PV = []int{move}
		}
		if line := info.String(); line != "" {
			if err := e.println("info " + line); err != nil {
				return err
			}
		}
	}
	return e.println("bestmove " + chess.MoveOf(move).String())
}

// infoString writes an info string line.
func (e *Engine) infoString(text string) error {
	e.log.Info("uci", "info", text)
	return e.println("info string " + strings.ReplaceAll(text, "\n", " "))
}

// println writes text and a newline, and flushes.
func (e *Engine) println(text string) error {
	if _, err := e.w.WriteString(text + "\n"); err != nil {
		return fmt.Errorf("uci: writing: %w", err)
	}
	if err := e.w.Flush(); err != nil {
		return fmt.Errorf("uci: writing: %w", err)
	}
	return nil
}
