package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"tabula/games"
	"tabula/games/gogame"
	"tabula/games/records"
	"tabula/games/sgf"
	"tabula/gtp"
	"tabula/internal/atomicfile"
	"tabula/internal/cliflag"
	"tabula/players"
)

func init() {
	register(subcommand{
		name:    "",
		summary: "-game G -player SPEC [-human first|second] [-seed S] [-sgf FILE] [-record FILE]: play against SPEC in the terminal",
		run:     runTerminal,
	})
}

// who made a move of the game.
const (
	byHuman = iota
	byEngine
	byChance
)

// terminal is one game between a person at the terminal and an engine.
type terminal struct {
	g   games.Game
	not games.Notation // nil for a game whose moves are written in context (poker)
	// hidden is set in a game of imperfect information: the person sees
	// only its own information state, the engine's moves only when they
	// are public, and cannot take moves back.
	hidden bool
	player players.Player
	human  int // the person's player number
	rng    *rand.Rand
	out    io.Writer
	lines  <-chan string
	s      games.State
	moves  []int
	who    []int
	// values holds the engine's value of each of its moves, by move index,
	// where it reports one (players.Valuer).
	values map[int]float64
	// sgfPath, if set, is where the game's SGF record is written at the end.
	sgfPath string
	// recordPath, if set, is where the game's record in its game's
	// format (games/records) is written at the end.
	recordPath string
	// confirm is a move the person was warned about (a pass that lets the
	// game end lost) and may now play by typing it again; -1 when none.
	confirm int
}

// runTerminal plays one game in the terminal.
func runTerminal(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := verbFlags("play", "play -game G -player SPEC [-human first|second] [-seed S] [-sgf FILE] [-record FILE]", players.SpecHelp(), stderr)
	fs.String("game", "connect4", "game spec, e.g. connect4, othello:size=6, go:size=9 (a net player's checkpoint's game when left out)")
	playerSpec := fs.String("player", "", "the engine's player spec (required); see arena help")
	side := fs.String("human", "first", "the side the person plays: first or second")
	seed := fs.Uint64("seed", 1, "seed of the engine's and the dice's random sources")
	sgfPath := fs.String("sgf", "", "write the game as SGF to this file when it ends (go and othello)")
	recordPath := fs.String("record", "", "write the game to this file when it ends, in its game's record format: "+records.Formats)
	if err := cliflag.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("play: unexpected arguments %q", fs.Args())
	}
	if *playerSpec == "" {
		fs.Usage()
		return errors.New("play: -player is required")
	}
	t := &terminal{out: stdout, rng: rand.New(rand.NewPCG(*seed, 0x7465726d)), confirm: -1}
	switch *side {
	case "first":
		t.human = 0
	case "second":
		t.human = 1
	default:
		return fmt.Errorf("play: -human %q: want first or second", *side)
	}
	spec, err := players.ParseSpec(*playerSpec)
	if err != nil {
		return fmt.Errorf("play: %w", err)
	}
	g, err := gameFor(fs, spec) // -game, or a net player's checkpoint's game
	if err != nil {
		return fmt.Errorf("play: %w", err)
	}
	not, _ := g.(games.Notation)
	if _, ok := g.NewInitialState().(games.MoveNotation); !ok && not == nil {
		return fmt.Errorf("play: game %s has no move notation to type moves in", g.Name())
	}
	f, err := players.Build(g, spec)
	if err != nil {
		return fmt.Errorf("play: %w", err)
	}
	defer f.Close()
	p, err := f.New(rand.New(rand.NewPCG(*seed, 0x656e67)))
	if err != nil {
		return fmt.Errorf("play: %w", err)
	}
	if c, ok := p.(io.Closer); ok {
		defer c.Close()
	}
	if *sgfPath != "" && !sgf.Supports(g) {
		return fmt.Errorf("play: -sgf: game %s has no SGF records (go and othello have)", g.Name())
	}
	if f, _ := records.Format(g); *recordPath != "" && f == "" {
		return fmt.Errorf("play: -record: game %s has no record format (%s have)", g.Name(), records.Formats)
	}
	t.sgfPath, t.recordPath, t.values = *sgfPath, *recordPath, map[int]float64{}
	t.g, t.not, t.player, t.s = g, not, p, g.NewInitialState()
	t.hidden = games.HasHiddenInformation(g)
	t.lines = readLines(ctx, stdin)
	return t.run(ctx)
}

// maxInputLine is the longest input line read; a longer one is refused.
const maxInputLine = 4096

// tooLongLine stands for an input line longer than maxInputLine.
const tooLongLine = "\x00too long"

// readLines delivers stdin's lines; the channel closes at the end of input.
func readLines(ctx context.Context, r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		lr := gtp.NewLineReader(r, maxInputLine)
		for {
			line, tooLong, err := lr.Next()
			if err != nil {
				return
			}
			if tooLong {
				line = tooLongLine
			}
			select {
			case ch <- line:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

const terminalHelp = `commands: a move in the game's notation, undo (take back your last move),
hint (the engine's choice for you), quit`

// run plays until the game ends, the person quits, input ends or ctx is
// done (Ctrl-C).
func (t *terminal) run(ctx context.Context) error {
	fmt.Fprintf(t.out, "%s: you play %s against %s; %s\n", t.g.Name(), sideName(t.human), t.player.Name(), terminalHelp)
	if t.hidden {
		fmt.Fprintln(t.out, "you see only what your seat sees (your cards or marks, and what is public); the rest is shown at the end.")
	}
	for {
		if games.IsChanceNode(t.s) {
			a, err := games.SampleChance(t.s, t.rng)
			if err != nil {
				return fmt.Errorf("play: %w", err)
			}
			if !t.hidden { // a deal may be the engine's card: the view shows what the person sees of it
				fmt.Fprintf(t.out, "\n%s", t.s.String())
				fmt.Fprintf(t.out, "chance: %s\n", games.FormatMove(t.s, a))
			}
			t.apply(a, byChance)
			continue
		}
		fmt.Fprintf(t.out, "\n%s\n", strings.TrimRight(t.view(), "\n"))
		if t.s.IsTerminal() {
			t.finish()
			return nil
		}
		if t.s.CurrentPlayer() != t.human {
			a, err := t.choose(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return t.interrupted()
				}
				return fmt.Errorf("play: the engine: %w", err)
			}
			text := games.FormatMove(t.s, a) // before the move: the notation may need the position
			if san, ok := t.s.(sanWriter); ok {
				text += " (" + san.SAN(a) + ")"
			}
			before := t.s.Clone()
			public := t.isPublic(a)
			if err := games.Play(t.s, a); err != nil {
				return fmt.Errorf("play: the engine chose %s: %w", text, err)
			}
			t.moves, t.who = append(t.moves, a), append(t.who, byEngine)
			if v, ok := t.player.(players.Valuer); ok {
				t.values[len(t.moves)-1] = v.Value()
			}
			if !public {
				fmt.Fprintln(t.out, "the engine has moved (its move is hidden from you).")
				continue
			}
			fmt.Fprintf(t.out, "engine plays %s%s\n", text, t.analysis(before, "the engine"))
			continue
		}
		done, err := t.humanTurn(ctx)
		if done || err != nil {
			return err
		}
	}
}

// humanTurn reads lines until the person makes a move, and reports done
// when the session is over (quit, end of input, Ctrl-C).
func (t *terminal) humanTurn(ctx context.Context) (done bool, err error) {
	if legal := t.s.LegalActions(nil); len(legal) == 1 {
		fmt.Fprintf(t.out, "your only legal move is %s.\n", games.FormatMove(t.s, legal[0]))
	}
	for {
		fmt.Fprintf(t.out, "your move (%s): ", sideName(t.human))
		var line string
		var ok bool
		select {
		case <-ctx.Done():
			return true, t.interrupted()
		case line, ok = <-t.lines:
		}
		if !ok {
			fmt.Fprintln(t.out, "\nend of input: the game stops here.")
			t.printGame()
			return true, nil
		}
		if line == tooLongLine {
			fmt.Fprintf(t.out, "that line is longer than %d bytes; type a move or help.\n", maxInputLine)
			continue
		}
		line = strings.TrimSpace(line)
		switch strings.ToLower(line) {
		case "":
			continue
		case "quit", "exit", "resign":
			fmt.Fprintln(t.out, "you quit.")
			t.printGame()
			return true, nil
		case "help", "?":
			fmt.Fprintln(t.out, terminalHelp)
			continue
		case "undo":
			if t.hidden {
				fmt.Fprintln(t.out, "no undo in a game of hidden information: taking back would show what was hidden.")
				continue
			}
			if t.undo() {
				return false, nil
			}
			fmt.Fprintln(t.out, "nothing to undo: you have not moved yet.")
			continue
		case "hint":
			a, err := t.choose(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return true, t.interrupted()
				}
				fmt.Fprintf(t.out, "no hint: %v\n", err)
				continue
			}
			fmt.Fprintf(t.out, "hint: %s%s\n", games.FormatMove(t.s, a), t.analysis(t.s, "you"))
			continue
		}
		a, err := games.ParseMove(t.s, line)
		if errors.Is(err, games.ErrIllegalMove) {
			fmt.Fprintf(t.out, "%v; %s; try again.\n", err, legalMoves(t.s))
			continue
		}
		if err != nil {
			fmt.Fprintf(t.out, "cannot read %q: %v; %s (type help for the commands)\n", line, err, legalMoves(t.s))
			continue
		}
		if a != t.confirm {
			if warning := t.endsLost(a); warning != "" {
				fmt.Fprintf(t.out, "%s; type %s again to play it anyway, or another move.\n", warning, games.FormatMove(t.s, a))
				t.confirm = a
				continue
			}
		}
		if err := games.Play(t.s, a); err != nil {
			fmt.Fprintf(t.out, "%v; try again.\n", err)
			continue
		}
		t.confirm = -1
		t.moves, t.who = append(t.moves, a), append(t.who, byHuman)
		return false, nil
	}
}

// sanWriter is a state that also writes moves in standard algebraic
// notation (chess): the engine's moves are shown in both notations.
type sanWriter interface {
	SAN(a int) string
}

// legalMoves lists the legal moves of s for a refused move's message: in
// SAN, all of them, for a state that writes SAN (chess: "legal moves: Na3
// Nc3 ... e4"), else games.LegalMoves' list of at most maxListedMoves.
func legalMoves(s games.State) string {
	w, ok := s.(sanWriter)
	if !ok || s.IsTerminal() {
		return games.LegalMoves(s, maxListedMoves)
	}
	legal := slices.Clone(s.LegalActions(nil))
	slices.Sort(legal)
	names := make([]string, len(legal))
	for i, a := range legal {
		names[i] = w.SAN(a)
	}
	return "legal moves: " + strings.Join(names, " ")
}

// maxListedMoves is how many legal moves a refused move's message lists.
const maxListedMoves = 20

// endsLost warns about a legal move a of the person's that ends the game at
// once, or lets the engine end it at once (in Go: a pass, which the engine
// may answer with a pass), when the game so ended is lost for the person. It
// returns "" when there is nothing to warn about.
func (t *terminal) endsLost(a int) string {
	if !t.s.IsLegal(a) || len(t.s.LegalActions(nil)) == 1 {
		return ""
	}
	c := t.s.Clone()
	var how string
	if e, ok := c.(games.Ending); ok && e.EndingAction() == a {
		c.ApplyAction(a)
		how = "this ends the game"
	} else {
		c.ApplyAction(a)
		e, ok := c.(games.Ending)
		if !ok || c.IsTerminal() || e.EndingAction() < 0 {
			return ""
		}
		end := e.EndingAction()
		how = fmt.Sprintf("after %s the engine can end the game at once by playing %s", games.FormatMove(t.s, a), games.FormatMove(c, end))
		c.ApplyAction(end)
	}
	if !c.IsTerminal() {
		return ""
	}
	if r := c.Returns(); r[t.human] >= r[1-t.human] {
		return ""
	}
	return fmt.Sprintf("careful: %s, and you would lose%s", how, scoreText(c))
}

// scoreText describes the score of a finished game where the game counts
// one (Go: the area score, komi included, every stone on the board
// counted as alive), else "".
func scoreText(s games.State) string {
	if sc, ok := s.(interface{ Score() float64 }); ok {
		return fmt.Sprintf(" (%s by area scoring: every stone on the board counts as alive)", gtp.FormatScore(sc.Score()))
	}
	return ""
}

// choose asks the engine for the move of the player to move.
func (t *terminal) choose(ctx context.Context) (int, error) {
	if sy, ok := t.player.(players.Syncer); ok {
		sy.Sync(t.moves)
	}
	return t.player.ChooseAction(ctx, t.s.Clone())
}

// view is what the person sees of the position: in a game of hidden
// information its own view (the state's PlayerView, else its information
// state) until the end, else the whole position.
func (t *terminal) view() string {
	if !t.hidden || t.s.IsTerminal() {
		return t.s.String()
	}
	if v, ok := t.s.(interface{ PlayerView(p int) string }); ok {
		return v.PlayerView(t.human)
	}
	if is, ok := t.s.(games.InformationState); ok {
		return is.InformationStateString(t.human)
	}
	return "(hidden)"
}

// isPublic reports whether the person would see which move a is, the
// engine's legal move now: in a game of perfect information always; in a
// game of hidden information when every other legal move would leave the
// person another information state (poker's bets and whist's cards are
// public, phantom tic-tac-toe's marks are not).
func (t *terminal) isPublic(a int) bool {
	if !t.hidden {
		return true
	}
	key := func(b int) string {
		c := t.s.Clone()
		c.ApplyAction(b)
		is, ok := c.(games.InformationState)
		if !ok {
			return ""
		}
		return is.InformationStateString(t.human)
	}
	mine := key(a)
	for _, b := range t.s.LegalActions(nil) {
		if b != a && key(b) == mine {
			return false
		}
	}
	return true
}

// analysis describes the engine's choice in s: its value for whom (the
// side it chose a move for: "the engine", or "you" for a hint) and its most
// likely moves, where the player reports them.
func (t *terminal) analysis(s games.State, whom string) string {
	var b strings.Builder
	if v, ok := t.player.(players.Valuer); ok {
		fmt.Fprintf(&b, " (value %+.3f for %s)", v.Value(), whom)
	}
	if an, ok := t.player.(players.Analyzer); ok {
		if pol := an.LastPolicy(); len(pol) > 0 {
			type mp struct {
				a int
				p float32
			}
			var top []mp
			for a, p := range pol {
				if p > 0 {
					top = append(top, mp{a, p})
				}
			}
			sort.Slice(top, func(i, j int) bool { return top[i].p > top[j].p || top[i].p == top[j].p && top[i].a < top[j].a })
			if len(top) > 5 {
				top = top[:5]
			}
			b.WriteString("; top moves:")
			for _, m := range top {
				fmt.Fprintf(&b, " %s %.0f%%", games.FormatMove(s, m.a), 100*m.p)
			}
		}
	}
	return b.String()
}

// apply plays an action known to be legal.
func (t *terminal) apply(a, who int) {
	t.s.ApplyAction(a)
	t.moves, t.who = append(t.moves, a), append(t.who, who)
}

// undo takes back the person's last move and everything after it; it
// reports false when the person has not moved.
func (t *terminal) undo() bool {
	last := -1
	for i, w := range t.who {
		if w == byHuman {
			last = i
		}
	}
	if last < 0 {
		return false
	}
	s, err := games.Replay(t.g, t.moves[:last])
	if err != nil {
		return false // unreachable: these moves were played
	}
	fmt.Fprintf(t.out, "took back %s.\n", t.formatMoves(t.moves[:last], t.moves[last:]))
	t.s, t.moves, t.who = s, t.moves[:last], t.who[:last]
	for i := range t.values {
		if i >= last {
			delete(t.values, i)
		}
	}
	return true
}

// formatMoves writes moves, played after prefix from the initial state, in
// the game's notation, or move by move in the state's (poker).
func (t *terminal) formatMoves(prefix, moves []int) string {
	if t.not != nil {
		return t.not.FormatActions(moves)
	}
	s, err := games.Replay(t.g, prefix)
	if err != nil {
		return fmt.Sprint(moves) // unreachable: these moves were played
	}
	parts := make([]string, len(moves))
	for i, a := range moves {
		parts[i] = games.FormatMove(s, a)
		s.ApplyAction(a)
	}
	return strings.Join(parts, " ")
}

// finish prints the result and the game.
func (t *terminal) finish() {
	r := t.s.Returns()
	score := scoreText(t.s)
	if sc, ok := t.s.(interface {
		Score() [2]float64
		ScoreUnit() string
	}); ok {
		score = fmt.Sprintf(" (you %+g %s)", sc.Score()[t.human], sc.ScoreUnit())
	}
	switch {
	case r[t.human] > r[1-t.human]:
		fmt.Fprintf(t.out, "result: you win%s.\n", score)
	case r[t.human] < r[1-t.human]:
		fmt.Fprintf(t.out, "result: the engine wins%s.\n", score)
	default:
		fmt.Fprintf(t.out, "result: a draw%s.\n", score)
	}
	t.printGame()
}

func (t *terminal) printGame() {
	fmt.Fprintf(t.out, "game (%s): %s\n", t.g.Name(), t.formatMoves(nil, t.moves))
	if t.sgfPath != "" {
		if err := t.writeSGF(); err != nil {
			fmt.Fprintf(t.out, "could not write the SGF record: %v\n", err)
		} else {
			fmt.Fprintf(t.out, "SGF record written to %s\n", t.sgfPath)
		}
	}
	if t.recordPath != "" {
		if err := t.writeRecord(); err != nil {
			fmt.Fprintf(t.out, "could not write the game record: %v\n", err)
		} else {
			fmt.Fprintf(t.out, "game record written to %s\n", t.recordPath)
		}
	}
}

// writeRecord writes the game so far to t.recordPath in its game's format.
func (t *terminal) writeRecord() error {
	rec := records.Game{Players: [2]string{"you", t.player.Name()}, Actions: t.moves, Values: t.valueList(),
		Date: time.Now().Format("2006-01-02"), Event: "tabula play"}
	if t.human == 1 {
		rec.Players[0], rec.Players[1] = rec.Players[1], rec.Players[0]
	}
	var b bytes.Buffer
	if err := records.Write(&b, t.g, rec); err != nil {
		return err
	}
	return atomicfile.Write(t.recordPath, b.Bytes())
}

// valueList returns the engine's value of each move, NaN where none.
func (t *terminal) valueList() []float64 {
	vals := make([]float64, len(t.moves))
	for i := range vals {
		vals[i] = math.NaN()
		if v, ok := t.values[i]; ok {
			vals[i] = v
		}
	}
	return vals
}

// writeSGF writes the game so far to t.sgfPath.
func (t *terminal) writeSGF() error {
	rec, err := sgf.FromActions(t.g, t.moves, t.valueList())
	if err != nil {
		return err
	}
	names := [2]string{"you", t.player.Name()}
	if t.human == 1 {
		names[0], names[1] = names[1], names[0]
	}
	rec.Black, rec.White = names[0], names[1]
	rec.Date = time.Now().Format("2006-01-02")
	if _, ok := t.g.(*gogame.Game); ok {
		rec.Rules = "Tromp-Taylor"
	}
	var b bytes.Buffer
	if err := sgf.Write(&b, rec); err != nil {
		return err
	}
	return atomicfile.Write(t.sgfPath, b.Bytes())
}

// interrupted ends the session on Ctrl-C.
func (t *terminal) interrupted() error {
	fmt.Fprintln(t.out, "\ninterrupted.")
	t.printGame()
	return nil
}

func sideName(p int) string {
	if p == 0 {
		return "first"
	}
	return "second"
}
