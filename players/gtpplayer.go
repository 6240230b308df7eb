package players

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"tabula/games"
	"tabula/gtp"
	"tabula/internal/refdata"
)

// DefaultGTPTimeout is the time an outside engine gets to answer one
// command unless its spec says otherwise (timeout=): on Linux its CPU time,
// with a wall-time backstop (engineproc's Proc.Deadline), so that other jobs
// on the machine do not make a slow engine forfeit. It is long because
// strong settings are slow on a 2-core machine (GRhino at level 5 took 584
// s for two whole games against random here); the cap is there so that a
// hung engine cannot stop a match.
const DefaultGTPTimeout = 5 * time.Minute

// Forfeit is the error a player returns when it loses the game by its own
// failure: an outside engine that crashed, hung past its time cap, answered
// nonsense or played an illegal move. Match scores such a game as a loss for
// that player, records why (GameRecord.Forfeit) and goes on.
type Forfeit struct {
	Reason string // what went wrong, e.g. "played the illegal move D4"
	Stderr string // the engine's last stderr lines, if any
}

func (f *Forfeit) Error() string {
	if f.Stderr == "" {
		return "forfeit: " + f.Reason
	}
	return fmt.Sprintf("forfeit: %s; engine stderr:\n%s", f.Reason, f.Stderr)
}

// Restart is an outside engine's crash that its player recovered from: the
// engine exited (or closed its output) while the player waited for it, and
// the player started it again, told it the game so far and asked again.
type Restart struct {
	Reason string // what failed, e.g. the command the engine died on
	Stderr string // the dead engine's last stderr lines, if any
}

// Restarter is implemented by players whose engine may be restarted within a
// game (GTP engines with restarts=N): TakeRestarts returns the restarts since
// its last call and forgets them. Match records them in the game's record
// (GameRecord.Restarts).
type Restarter interface {
	TakeRestarts() []Restart
}

// ErrResigned is wrapped by the error a player returns when it resigns: an
// outside engine that answered genmove with "resign". The game is lost
// normally, not by a failure; Match scores it as a loss and records the
// resignation (GameRecord.Resigned).
var ErrResigned = errors.New("resigned")

// Syncer is implemented by players that keep a board of their own (outside
// engines): before each ChooseAction, Match tells them every action played
// since the initial state, random opening plies included.
type Syncer interface {
	Sync(actions []int)
}

// gtpEngine describes how to start one outside engine.
type gtpEngine struct {
	program string // as given; looked up at Build
	install string // what to install where it is missing
	args    []string
	genmove string // the command that asks for a move
	seedArg string // the option that seeds the engine's random numbers, if any
	path    string // the program's path when found by the preset itself
	// restarts is how many times a game restarts the engine after it dies,
	// unless the spec says otherwise (restarts=).
	restarts int
}

// buildGTP builds the factory of the gtp, gnugo, pachi and grhino kinds. Every game
// starts a fresh engine process, stopped when the game ends.
func buildGTP(g games.Game, spec Spec) (*Factory, error) {
	name := spec.String()
	d, err := gtp.NewDialect(g)
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	var eng gtpEngine
	switch spec.Kind {
	case "gnugo":
		if !d.IsGo() {
			return nil, fmt.Errorf("player %s: GNU Go plays go, not %s", name, g.Name())
		}
		eng = gtpEngine{program: "gnugo", install: "apt-get install gnugo",
			// Our Go forbids a move that repeats an earlier board
			// (positional superko); GNU Go's default forbids only the
			// simple ko recapture, and lost games by forfeit for it.
			args: []string{"--mode", "gtp", "--chinese-rules", "--positional-superko", "--level", strconv.Itoa(spec.Int("level", 10))},
			// Our rules score the board as it stands (Tromp-Taylor), so
			// GNU Go must capture the dead stones before it passes, as in
			// KGS's cleanup phase; otherwise it plays as with genmove.
			genmove: "kgs-genmove_cleanup"}
	case "grhino":
		if d.IsGo() || d.Size() != 8 {
			return nil, fmt.Errorf("player %s: GRhino plays othello:size=8, not %s", name, g.Name())
		}
		eng = gtpEngine{program: "gtp-rhino", install: "apt-get install grhino",
			args: []string{"--level", strconv.Itoa(spec.Int("level", 3))}}
	case "pachi":
		if !d.IsGo() {
			return nil, fmt.Errorf("player %s: Pachi plays go, not %s", name, g.Name())
		}
		path, err := pachiProgram()
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		// -t =N: N playouts a move; threads=1: one core, so that its
		// strength does not depend on the load; -D: no board diagrams on
		// stderr. Chinese rules are its default (area scoring, as ours);
		// komi comes over GTP. kgs-genmove_cleanup captures dead stones
		// before passing, as our Tromp-Taylor scoring needs (see gnugo).
		// Pachi 12.90 sometimes dies of a failed assertion in
		// kgs-genmove_cleanup (uct_pass_is_safe_: ownermap->playouts >=
		// GJ_MINGAMES, in about one game in twenty at 10,000 playouts), so
		// a game restarts it up to twice before it forfeits.
		eng = gtpEngine{program: "pachi", path: path, install: pachiInstall,
			args:    []string{"-D", "-r", "chinese", "-t", "=" + strconv.Itoa(spec.Int("playouts", 1000)), "threads=1"},
			genmove: "kgs-genmove_cleanup", seedArg: "-s", restarts: pachiRestarts}
	default:
		eng = gtpEngine{program: spec.Str("cmd", ""), install: "the engine named by cmd=",
			args: strings.Fields(spec.Str("args", ""))}
		if eng.program == "" {
			return nil, fmt.Errorf("player %s: gtp needs cmd=PROGRAM", name)
		}
	}
	path := eng.path
	if path == "" {
		var err error
		if path, err = refdata.LookProgram(eng.program); err != nil {
			return nil, fmt.Errorf("player %s: engine program %q not found on PATH or in /usr/games (install: %s)", name, eng.program, eng.install)
		}
	}
	timeout := spec.Duration("timeout", DefaultGTPTimeout)
	restarts := spec.Int("restarts", eng.restarts)
	f := &Factory{Name: name}
	if eng.genmove == "" {
		eng.genmove = "genmove"
	}
	f.New = func(rng *rand.Rand) (Player, error) {
		args := eng.args
		if eng.seedArg != "" {
			// Seeded from the game's generator, so that each game gets
			// its own seed. Pachi's games still do not replay exactly
			// (the same match run twice here gave different moves), though
			// the same commands fed at once to Pachi with one seed do.
			args = append(slices.Clip(args), eng.seedArg, strconv.FormatUint(uint64(rng.Uint32()>>1), 10))
		}
		return &gtpPlayer{outside: outside[*gtp.Client]{name: name}, d: d, timeout: timeout, genmove: eng.genmove,
			cfg: gtp.ClientConfig{Path: path, Args: args}, maxRestarts: restarts}, nil
	}
	return f, nil
}

// PachiEnv names the environment variable that gives the path of Pachi's
// program; without it Pachi is looked up on PATH as pachi.
const PachiEnv = "TABULA_PACHI"

// pachiRestarts is how many times a game restarts a Pachi that died unless
// the spec says otherwise (restarts=).
const pachiRestarts = 2

const pachiInstall = "build Pachi from source (see ../shared/tools/pachi/README.md) and put it on PATH as pachi or set " + PachiEnv + " to its path; Debian's package pachi is an unrelated game"

// pachiChecked caches pachiProgram's verdict per program path.
var pachiChecked sync.Map // path -> error (nil: it is Pachi)

// pachiProgram finds Pachi: $TABULA_PACHI, else pachi on PATH or in
// /usr/games. It starts the program once (per path and process) and asks its
// GTP name, since a program named pachi may be Debian's platform game of the
// same name, which does not speak GTP.
func pachiProgram() (string, error) {
	path := os.Getenv(PachiEnv)
	if path != "" {
		fi, err := os.Stat(path)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w", PachiEnv, path, err)
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%s=%s: not an executable file", PachiEnv, path)
		}
	} else {
		var err error
		if path, err = refdata.LookProgram("pachi"); err != nil {
			return "", fmt.Errorf("engine program \"pachi\" not found on PATH or in /usr/games and %s is not set (install: %s)", PachiEnv, pachiInstall)
		}
	}
	if v, ok := pachiChecked.Load(path); ok {
		if v != nil {
			return "", v.(error)
		}
		return path, nil
	}
	err := checkPachi(path)
	if err != nil {
		pachiChecked.Store(path, err)
		return "", err
	}
	pachiChecked.Store(path, nil)
	return path, nil
}

// checkPachi starts path and checks that it answers the GTP command name
// with Pachi within 30 seconds.
func checkPachi(path string) error {
	c, err := gtp.Start(gtp.ClientConfig{Path: path, Args: []string{"-D"}})
	if err != nil {
		return fmt.Errorf("pachi %s: %w", path, err)
	}
	name, err := c.Do(context.Background(), 30*time.Second, "name")
	if err != nil {
		c.Kill()
		tail := c.StderrTail()
		c.Close()
		return fmt.Errorf("pachi %s does not speak GTP (is it Debian's unrelated game of that name? %s): %w; its stderr: %q", path, pachiInstall, err, tail)
	}
	c.Close()
	if !strings.HasPrefix(strings.TrimSpace(name), "Pachi") {
		return fmt.Errorf("pachi %s: answers GTP name with %q, not Pachi", path, clipText(name))
	}
	return nil
}

// clipText shortens s for an error message.
func clipText(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// gtpPlayer plays one game with an outside engine. It starts the engine at
// its first move, sets up the board (boardsize, clear_board, komi) and tells
// it every move played since with play, then asks genmove. Every move the
// engine returns is checked against our rules. An engine that dies is
// started again and told the game, up to maxRestarts times a game; then its
// death is a forfeit.
type gtpPlayer struct {
	outside[*gtp.Client]
	d           *gtp.Dialect
	cfg         gtp.ClientConfig
	timeout     time.Duration
	genmove     string
	sent        []int       // the actions the engine knows, from the initial state
	last        games.State // the position after the engine's last move
	maxRestarts int
	restarted   int       // restarts so far in this game
	untaken     []Restart // restarts not yet taken by TakeRestarts
}

// engineDied is do's error when the engine died and the game may restart it.
type engineDied struct{ Restart }

func (e *engineDied) Error() string { return "engine died: " + e.Reason }

// do sends one command; the engine's failures are forfeits, except a
// failure answer to a setup command, which would repeat every game and is
// an error, and the engine's death while restarts are left (engineDied).
func (p *gtpPlayer) do(ctx context.Context, setup bool, name string, args ...string) (string, error) {
	out, err := p.client.Do(ctx, p.timeout, name, args...)
	if err == nil {
		return out, nil
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("player %s: %w", p.name, ctx.Err())
	}
	var ee *gtp.EngineError
	if setup && errors.As(err, &ee) {
		p.Close()
		return "", fmt.Errorf("player %s: %w", p.name, err)
	}
	if errors.Is(err, gtp.ErrDied) && p.restarted < p.maxRestarts {
		return "", &engineDied{Restart{Reason: err.Error(), Stderr: p.kill()}}
	}
	return "", p.forfeit("%v", err)
}

// TakeRestarts returns the engine's restarts since the last call.
func (p *gtpPlayer) TakeRestarts() []Restart {
	r := p.untaken
	p.untaken = nil
	return r
}

// history returns the actions from the initial state to s: those given to
// Sync, or, without Sync, those the player saw plus the one move that leads
// from the last position it saw to s.
func (p *gtpPlayer) followed(s games.State) ([]int, error) {
	if p.synced {
		p.synced = false
		return p.history, nil
	}
	if s.MoveNumber() == 0 {
		return nil, nil
	}
	if p.last != nil && s.MoveNumber() == p.last.MoveNumber()+1 {
		for _, a := range p.last.LegalActions(nil) {
			c := p.last.Clone()
			c.ApplyAction(a)
			if c.Hash() == s.Hash() {
				return append(p.sent[:len(p.sent):len(p.sent)], a), nil
			}
		}
	}
	return nil, fmt.Errorf("player %s: cannot follow the game to move %d: the caller must tell it the moves (Sync)", p.name, s.MoveNumber())
}

// ChooseAction brings the engine up to date with s and asks it for a move.
func (p *gtpPlayer) ChooseAction(ctx context.Context, s games.State) (int, error) {
	if s.IsTerminal() {
		return 0, errGameOver
	}
	hist, err := p.followed(s)
	if err != nil {
		return 0, err
	}
	g := p.d.Game()
	if s.Game().Name() != g.Name() {
		return 0, fmt.Errorf("player %s: built for %s, asked to play %s", p.name, g.Name(), s.Game().Name())
	}
	check, err := games.Replay(g, hist)
	if err != nil || check.Hash() != s.Hash() || check.MoveNumber() != s.MoveNumber() {
		return 0, fmt.Errorf("player %s: the moves it was told do not lead to the position it was given", p.name)
	}
	for {
		a, err := p.ask(ctx, s, hist)
		var died *engineDied
		if !errors.As(err, &died) {
			return a, err
		}
		// The engine is stopped; the next ask starts it again and tells
		// it the whole game.
		p.restarted++
		p.untaken = append(p.untaken, died.Restart)
	}
}

// ask brings the engine up to date with s, whose history is hist, starting
// it if it is not running, and asks it for a move.
func (p *gtpPlayer) ask(ctx context.Context, s games.State, hist []int) (int, error) {
	g := p.d.Game()
	me := s.CurrentPlayer()
	if p.client == nil {
		c, err := gtp.Start(p.cfg)
		if err != nil {
			return 0, fmt.Errorf("player %s: %w", p.name, err)
		}
		p.client = c
		p.sent = p.sent[:0]
		setup := [][]string{{"boardsize", strconv.Itoa(p.d.Size())}, {"clear_board"}}
		if p.d.IsGo() {
			setup = append(setup, []string{"komi", strconv.FormatFloat(p.d.Komi(), 'f', -1, 64)})
		}
		for _, c := range setup {
			if _, err := p.do(ctx, true, c[0], c[1:]...); err != nil {
				return 0, err
			}
		}
	}
	if len(p.sent) > len(hist) || !slices.Equal(p.sent, hist[:len(p.sent)]) {
		if _, err := p.do(ctx, true, "clear_board"); err != nil {
			return 0, err
		}
		p.sent = p.sent[:0]
	}
	st := g.NewInitialState()
	for i, a := range hist {
		if i >= len(p.sent) && (p.d.IsGo() || a != p.d.Pass()) {
			if _, err := p.do(ctx, false, "play", gtp.ColorName(st.CurrentPlayer()), p.d.FormatMove(a)); err != nil {
				var f *Forfeit
				if errors.As(err, &f) {
					f.Reason = fmt.Sprintf("refused the legal move %s %s: %s", gtp.ColorName(st.CurrentPlayer()), p.d.FormatMove(a), f.Reason)
				}
				return 0, err
			}
		}
		st.ApplyAction(a)
	}
	p.sent = append(p.sent[:0], hist...)
	if !p.d.IsGo() {
		// GRhino passes by itself for a side with no move and refuses to be
		// told or asked about the pass; the moves before it have been sent.
		if legal := s.LegalActions(nil); len(legal) == 1 && legal[0] == p.d.Pass() {
			p.sent = append(p.sent, legal[0])
			p.last = s.Clone()
			p.last.ApplyAction(legal[0])
			return legal[0], nil
		}
	}
	out, err := p.do(ctx, false, p.genmove, gtp.ColorName(me))
	if err != nil {
		return 0, err
	}
	if strings.EqualFold(out, "resign") {
		if err := p.Close(); err != nil {
			return 0, fmt.Errorf("player %s: %w (closing the engine: %v)", p.name, ErrResigned, err)
		}
		return 0, fmt.Errorf("player %s: %w", p.name, ErrResigned)
	}
	a, err := p.d.ParseMove(out)
	if err != nil {
		return 0, p.forfeit("answered genmove with %q, not a move: %v", out, err)
	}
	if !s.IsLegal(a) {
		return 0, p.forfeit("played the illegal move %s", p.d.FormatMove(a))
	}
	p.sent = append(p.sent, a)
	p.last = s.Clone()
	p.last.ApplyAction(a)
	return a, nil
}
