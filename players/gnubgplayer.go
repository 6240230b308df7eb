package players

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"tabula/games"
	"tabula/games/backgammon"
	"tabula/internal/engineproc"
	"tabula/internal/refdata"
)

// The gnubg player: GNU Backgammon chooses the moves, cubeless money play at
// a depth of 0 to 2 plies. gnubg runs as "gnubg -t -q -p gnubgplayer.py",
// whose script answers one request a line (see the script's comment): the
// position ID with the mover on roll, the dice and the depth in, gnubg's
// best move out as the position it reaches. The player plays the legal
// action of our game that leads to that position.

//go:embed gnubgplayer.py
var gnubgPlayerScript []byte

const (
	gnubgPrefix = "tabula-gnubg "
	// gnubgMaxLine bounds a line read from gnubg (its board diagrams and
	// answers are far shorter).
	gnubgMaxLine = 4096
)

// errGnubgDied is wrapped by the errors of an engine that has exited or
// closed its output.
var errGnubgDied = errors.New("engine died")

// gnubgEngine is one running gnubg process.
type gnubgEngine struct {
	proc *engineproc.Proc[string]
}

// Kill, Close and StderrTail make gnubgEngine an engineClient.
func (e *gnubgEngine) Kill() { e.proc.Kill() }
func (e *gnubgEngine) Close() error {
	e.proc.Shutdown()
	return nil
}
func (e *gnubgEngine) StderrTail() string { return e.proc.StderrTail() }

// receive returns the next line of the engine that starts with the
// protocol's prefix, without it, skipping gnubg's other output. what is the
// request waited on, for the errors.
func (e *gnubgEngine) receive(ctx context.Context, timeout time.Duration, what string) (string, error) {
	dl := e.proc.Deadline(timeout)
	defer dl.Stop()
	timedOut := func() error {
		return fmt.Errorf("engine timed out: no answer to %q %s", what, dl.Why())
	}
	for {
		line, err := e.proc.Receive(ctx, dl.C, what, timedOut)
		if err != nil {
			return "", err
		}
		if rest, ok := strings.CutPrefix(line, gnubgPrefix); ok {
			return strings.TrimSpace(rest), nil
		}
	}
}

// gnubgPool keeps the idle engines of one player spec, so that a process
// lives on from game to game (gnubg takes a while to load its networks).
type gnubgPool struct {
	path    string
	args    []string // the program's arguments, the script's included
	timeout time.Duration
	dir     string // holds the script

	mu     sync.Mutex
	idle   []*gnubgEngine
	closed bool
}

// get returns an idle engine, or starts one and waits for it to be ready.
func (pl *gnubgPool) get(ctx context.Context) (*gnubgEngine, error) {
	pl.mu.Lock()
	for len(pl.idle) > 0 {
		e := pl.idle[len(pl.idle)-1]
		pl.idle = pl.idle[:len(pl.idle)-1]
		if !e.proc.Stopped() {
			pl.mu.Unlock()
			return e, nil
		}
		e.Kill() // it died while idle
	}
	pl.mu.Unlock()
	proc, err := engineproc.Start(engineproc.Config{Path: pl.path, Args: pl.args, Prefix: "gnubg", Died: errGnubgDied},
		func(r io.Reader) func() (string, bool, error) {
			// A line longer than gnubgMaxLine is skipped.
			return engineproc.NewLineReader(r, gnubgMaxLine).Next
		})
	if err != nil {
		return nil, err
	}
	e := &gnubgEngine{proc: proc}
	hello, err := e.receive(ctx, pl.timeout, "start")
	if err == nil && hello != "ready" {
		err = fmt.Errorf("answered %q at start, want \"ready\"", gnubgPrefix+hello)
	}
	return e, err
}

// put returns a healthy engine to the pool, or stops it once the pool is
// closed.
func (pl *gnubgPool) put(e *gnubgEngine) {
	pl.mu.Lock()
	if !pl.closed && !e.proc.Stopped() {
		pl.idle = append(pl.idle, e)
		e = nil
	}
	pl.mu.Unlock()
	if e != nil {
		e.Kill()
	}
}

// close stops the idle engines and removes the script.
func (pl *gnubgPool) close() error {
	pl.mu.Lock()
	idle := pl.idle
	pl.idle, pl.closed = nil, true
	pl.mu.Unlock()
	for _, e := range idle {
		e.Close()
	}
	return os.RemoveAll(pl.dir)
}

// buildGnubg builds the factory of the gnubg kind.
func buildGnubg(g games.Game, spec Spec) (*Factory, error) {
	name := spec.String()
	if _, ok := g.(*backgammon.Game); !ok {
		return nil, fmt.Errorf("player %s: gnubg plays backgammon only, not %s", name, g.Name())
	}
	program := spec.Str("cmd", "gnubg")
	path, err := refdata.LookProgram(program)
	if err != nil {
		return nil, fmt.Errorf("player %s: engine program %q not found on PATH or in /usr/games (install: apt-get install gnubg)", name, program)
	}
	if err := backgammon.EnsureGnubgHome(); err != nil {
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	dir, err := os.MkdirTemp("", "tabula-gnubg-player-")
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	script := filepath.Join(dir, "gnubgplayer.py")
	if err := os.WriteFile(script, gnubgPlayerScript, 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	args := append(strings.Fields(spec.Str("args", "")), "-t", "-q", "-p", script)
	pool := &gnubgPool{path: path, args: args, timeout: spec.Duration("timeout", DefaultGTPTimeout), dir: dir}
	plies := spec.Int("ply", 0)
	return &Factory{Name: name,
		New: func(*rand.Rand) (Player, error) {
			return &gnubgPlayer{outside: outside[*gnubgEngine]{name: name}, pool: pool, plies: plies}, nil
		},
		Cleanup: pool.close,
	}, nil
}

// gnubgPlayer plays one game of backgammon with a gnubg engine from its
// factory's pool, taken at its first move and given back by Close.
type gnubgPlayer struct {
	outside[*gnubgEngine]
	pool  *gnubgPool
	plies int
	ends  []backgammon.TurnEnd
	// target is the position gnubg's move for a turn of doubles reaches,
	// and half the position after its first half: the second half plays on
	// to target.
	target, half backgammon.Position
	haveTarget   bool
}

// Close gives the engine back to the pool.
func (p *gnubgPlayer) Close() error {
	if p.client != nil {
		p.pool.put(p.client)
		p.client = nil
	}
	return nil
}

// failed turns an engine error into a forfeit (the engine died or hung) or,
// when ctx ended, an error.
func (p *gnubgPlayer) failed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		if p.client != nil {
			p.client.Kill()
			p.client = nil
		}
		return fmt.Errorf("player %s: %w", p.name, ctx.Err())
	}
	return p.forfeit("%v", err)
}

// ChooseAction asks gnubg for its move in s at the start of a turn and
// plays the first decision that leads to it; the second half of a turn of
// doubles plays on to the same position.
func (p *gnubgPlayer) ChooseAction(ctx context.Context, st games.State) (int, error) {
	s, ok := st.(*backgammon.State)
	if !ok {
		return 0, fmt.Errorf("player %s: not a backgammon position", p.name)
	}
	if s.IsTerminal() || s.IsChanceNode() {
		return 0, errGameOver
	}
	p.ends = s.TurnEnds(p.ends)
	if s.SecondHalf() {
		if len(p.ends) == 1 {
			p.haveTarget = false
			return p.ends[0].Action, nil // forced
		}
		if !p.haveTarget || s.Position() != p.half {
			return 0, fmt.Errorf("player %s: asked for the second half of a turn of doubles whose first half it did not play", p.name)
		}
		p.haveTarget = false
		for _, e := range p.ends {
			if e.Pos == p.target {
				return e.Action, nil
			}
		}
		return 0, fmt.Errorf("player %s: the second half of the turn cannot reach gnubg's move", p.name)
	}
	p.haveTarget = false
	var a int
	var target backgammon.Position
	if len(p.ends) == 1 {
		a, target = p.ends[0].Action, p.ends[0].Pos // forced: one way to play the turn
	} else {
		var err error
		if a, target, err = p.ask(ctx, s); err != nil {
			return 0, err
		}
	}
	if hi, lo := s.Dice(); hi == lo {
		next := s.Clone().(*backgammon.State)
		next.ApplyAction(a)
		if next.SecondHalf() {
			p.target, p.half, p.haveTarget = target, next.Position(), true
		}
	}
	return a, nil
}

// ask has the engine (started at the first question) choose the turn: the
// action to play now and the position the turn reaches.
func (p *gnubgPlayer) ask(ctx context.Context, s *backgammon.State) (int, backgammon.Position, error) {
	var none backgammon.Position
	if p.client == nil {
		e, err := p.pool.get(ctx)
		p.client = e
		if err != nil {
			if e == nil {
				return 0, none, fmt.Errorf("player %s: %w", p.name, err)
			}
			return 0, none, p.failed(ctx, err)
		}
	}
	hi, lo := s.Dice()
	req := fmt.Sprintf("%s %d %d %d", s.PositionID(), hi, lo, p.plies)
	if err := p.client.proc.Send(req); err != nil {
		return 0, none, p.failed(ctx, err)
	}
	ans, err := p.client.receive(ctx, p.pool.timeout, req)
	if err != nil {
		return 0, none, p.failed(ctx, err)
	}
	a, target, err := gnubgAction(s, p.ends, ans)
	if err != nil {
		return 0, none, p.forfeit("%v", err)
	}
	return a, target, nil
}

// gnubgAction converts gnubg's answer (without the prefix) at decision s,
// whose turn ends are ends, into the action to play now and the position
// the turn reaches. It is an error when the answer cannot be read or
// reaches none of the turn's legal ends.
func gnubgAction(s *backgammon.State, ends []backgammon.TurnEnd, answer string) (int, backgammon.Position, error) {
	mover := s.CurrentPlayer()
	cur := s.Position()
	verb, rest, _ := strings.Cut(answer, " ")
	switch verb {
	case "pass":
		for _, e := range ends {
			if e.Pos == cur {
				return e.Action, cur, nil
			}
		}
		return 0, cur, fmt.Errorf("answered no move in %s with %s, which has legal moves", s.PositionID(), diceText(s))
	case "move":
		id, move, _ := strings.Cut(rest, " ")
		want, err := backgammon.ParsePositionID(id, mover)
		if err != nil {
			return 0, cur, fmt.Errorf("answered %q, not a move: %v", gnubgPrefix+answer, err)
		}
		for _, e := range ends {
			if e.Pos == want {
				return e.Action, want, nil
			}
		}
		return 0, cur, fmt.Errorf("played %s (position %s) in %s with %s, which is none of the legal moves", move, id, s.PositionID(), diceText(s))
	case "error":
		return 0, cur, fmt.Errorf("refused the request for %s with %s: %s", s.PositionID(), diceText(s), rest)
	}
	return 0, cur, fmt.Errorf("answered %q, not a move", gnubgPrefix+answer)
}

func diceText(s *backgammon.State) string {
	hi, lo := s.Dice()
	return fmt.Sprintf("%d-%d", hi, lo)
}
