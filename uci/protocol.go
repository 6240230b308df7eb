// Package uci speaks the Universal Chess Interface, both sides of it, as
// package gtp does for the Go Text Protocol: an Engine that answers a chess
// GUI (or any UCI host) with the moves of a Searcher, and a Client that
// drives an outside UCI engine such as Stockfish for the arena.
//
// The engine reads commands on one goroutine and searches on another, so
// that stop and isready are answered while it thinks. Every move of a
// position command is checked against the rules; a command that fails (bad
// syntax, an illegal move, an unknown command) changes nothing and is
// answered with an "info string" line saying why, as UCI has no error
// response.
package uci

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"tabula/games/chess"
)

// MaxLineBytes is the longest line read; a longer one is reported and
// skipped rather than buffered without bound.
const MaxLineBytes = 64 << 10

// Limits are the search limits of a go command. Zero fields are not given.
type Limits struct {
	Depth     int
	Nodes     int64
	MoveTime  time.Duration
	WTime     time.Duration
	BTime     time.Duration
	WInc      time.Duration
	BInc      time.Duration
	MovesToGo int
	Infinite  bool
	Ponder    bool
}

// ParseGo reads the arguments of a go command. searchmoves and mate are
// refused; unknown words are errors.
func ParseGo(args []string) (Limits, error) {
	var l Limits
	for i := 0; i < len(args); i++ {
		word := args[i]
		switch word {
		case "infinite":
			l.Infinite = true
			continue
		case "ponder":
			l.Ponder = true
			continue
		}
		if i+1 >= len(args) {
			return Limits{}, fmt.Errorf("go: %s needs a value", word)
		}
		n, err := strconv.ParseInt(args[i+1], 10, 64)
		if err != nil {
			return Limits{}, fmt.Errorf("go: %s %q: want an integer", word, clip(args[i+1]))
		}
		i++
		ms := time.Duration(n) * time.Millisecond
		positive := func() error {
			if n <= 0 {
				return fmt.Errorf("go: %s %d: want a positive number", word, n)
			}
			return nil
		}
		switch word {
		case "depth":
			if n <= 0 || n > 1000 {
				return Limits{}, fmt.Errorf("go: depth %d: want 1..1000", n)
			}
			l.Depth = int(n)
		case "nodes":
			if err := positive(); err != nil {
				return Limits{}, err
			}
			l.Nodes = n
		case "movetime":
			if err := positive(); err != nil {
				return Limits{}, err
			}
			l.MoveTime = ms
		case "wtime":
			l.WTime = max(ms, time.Millisecond) // a flag already fallen still gets a move
		case "btime":
			l.BTime = max(ms, time.Millisecond)
		case "winc":
			l.WInc = max(ms, 0)
		case "binc":
			l.BInc = max(ms, 0)
		case "movestogo":
			if n <= 0 || n > 1000 {
				return Limits{}, fmt.Errorf("go: movestogo %d: want 1..1000", n)
			}
			l.MovesToGo = int(n)
		default:
			return Limits{}, fmt.Errorf("go: unknown or unsupported limit %q", clip(word))
		}
	}
	return l, nil
}

// String writes the limits as the arguments of a go command ("depth 5").
func (l Limits) String() string {
	var parts []string
	add := func(name string, v int64) {
		if v > 0 {
			parts = append(parts, name, strconv.FormatInt(v, 10))
		}
	}
	if l.Infinite {
		parts = append(parts, "infinite")
	}
	if l.Ponder {
		parts = append(parts, "ponder")
	}
	add("depth", int64(l.Depth))
	add("nodes", l.Nodes)
	add("movetime", l.MoveTime.Milliseconds())
	add("wtime", l.WTime.Milliseconds())
	add("btime", l.BTime.Milliseconds())
	add("winc", l.WInc.Milliseconds())
	add("binc", l.BInc.Milliseconds())
	add("movestogo", int64(l.MovesToGo))
	return strings.Join(parts, " ")
}

// HasClock reports whether the limits give the mover's clock.
func (l Limits) HasClock(side chess.Color) bool {
	if side == chess.White {
		return l.WTime > 0
	}
	return l.BTime > 0
}

// Budget returns the time the mover may spend on this move, or false when
// the limits set no time (depth, nodes, infinite or nothing). With a
// movetime it is the movetime less a small safety margin; with a clock it is
// an even share of the remaining time over movestogo moves (30 when not
// given) plus three quarters of the increment, never more than the clock
// less a margin.
func (l Limits) Budget(side chess.Color) (time.Duration, bool) {
	if l.Infinite {
		return 0, false
	}
	if l.MoveTime > 0 {
		return max(l.MoveTime-min(l.MoveTime/10, 50*time.Millisecond), time.Millisecond), true
	}
	left, inc := l.WTime, l.WInc
	if side == chess.Black {
		left, inc = l.BTime, l.BInc
	}
	if left <= 0 {
		return 0, false
	}
	togo := time.Duration(30)
	if l.MovesToGo > 0 {
		togo = time.Duration(l.MovesToGo)
	}
	d := left/togo + inc*3/4
	d = min(d, left-min(left/10, 100*time.Millisecond))
	return max(d, time.Millisecond), true
}

// Position is a game as a position command gives it: the start position
// (FEN "" for the standard start) and the moves played from there, with the
// state they lead to.
type Position struct {
	FEN   string
	Moves []int
	State *chess.State
}

// StartPosition is the standard initial position with no moves.
func StartPosition(g chess.Game) Position {
	return Position{State: g.NewInitialState().(*chess.State)}
}

// ParsePosition reads the arguments of a position command: "startpos" or
// "fen" and a FEN of 4 or 6 fields, then optionally "moves" and moves in
// UCI notation. Every move is checked against the rules; the error names the
// first one that is not legal.
func ParsePosition(g chess.Game, args []string) (Position, error) {
	if len(args) == 0 {
		return Position{}, errors.New("position: want startpos or fen FEN, optionally followed by moves")
	}
	var pos Position
	rest := args[1:]
	switch args[0] {
	case "startpos":
		pos.State = g.NewInitialState().(*chess.State)
	case "fen":
		n := 0
		for n < len(rest) && rest[n] != "moves" {
			n++
		}
		fen := strings.Join(rest[:n], " ")
		s, err := g.NewState(fen)
		if err != nil {
			return Position{}, fmt.Errorf("position: %w", err)
		}
		pos.FEN, pos.State = fen, s
		rest = rest[n:]
	default:
		return Position{}, fmt.Errorf("position: %q: want startpos or fen", clip(args[0]))
	}
	if len(rest) == 0 {
		return pos, nil
	}
	if rest[0] != "moves" {
		return Position{}, fmt.Errorf("position: %q after the position: want moves", clip(rest[0]))
	}
	for i, text := range rest[1:] {
		m, err := chess.ParseUCI(text)
		if err != nil {
			return Position{}, fmt.Errorf("position: move %d: %w", i+1, err)
		}
		a := chess.ActionOf(m)
		if pos.State.IsTerminal() {
			return Position{}, fmt.Errorf("position: move %d %s: the game is already over (%s)", i+1, text, pos.State.Status())
		}
		if !pos.State.IsLegal(a) {
			cp := pos.State.Position()
			return Position{}, fmt.Errorf("position: move %d %s is not legal in %s", i+1, text, cp.FEN())
		}
		pos.State.ApplyAction(a)
		pos.Moves = append(pos.Moves, a)
	}
	return pos, nil
}

// Score is a search's evaluation for the side to move: centipawns, or a
// mate in Mate moves (negative: the side to move is mated).
type Score struct {
	Known bool
	CP    int
	Mate  int
}

// Info is what a search can report about itself; zero fields are left out of
// the info line.
type Info struct {
	Depth int
	Nodes int64
	Time  time.Duration
	Score Score
	PV    []int
}

// String writes the info as the arguments of an info line ("depth 5 score
// cp 31 nodes 1234 nps 56000 time 22 pv e2e4 e7e5"), empty when nothing is
// known.
func (in Info) String() string {
	var parts []string
	if in.Depth > 0 {
		parts = append(parts, "depth", strconv.Itoa(in.Depth))
	}
	if in.Score.Known {
		if in.Score.Mate != 0 {
			parts = append(parts, "score", "mate", strconv.Itoa(in.Score.Mate))
		} else {
			parts = append(parts, "score", "cp", strconv.Itoa(in.Score.CP))
		}
	}
	if in.Nodes > 0 {
		parts = append(parts, "nodes", strconv.FormatInt(in.Nodes, 10))
		if in.Time > 0 {
			parts = append(parts, "nps", strconv.FormatInt(int64(float64(in.Nodes)/in.Time.Seconds()), 10))
		}
	}
	if in.Time > 0 {
		parts = append(parts, "time", strconv.FormatInt(in.Time.Milliseconds(), 10))
	}
	if len(in.PV) > 0 {
		parts = append(parts, "pv")
		for _, a := range in.PV {
			parts = append(parts, chess.MoveOf(a).String())
		}
	}
	return strings.Join(parts, " ")
}

// ParseInfo reads the score and depth of an engine's info line (the words
// after "info"); other fields are skipped.
func ParseInfo(args []string) Info {
	var in Info
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "string":
			return in // the rest is free text
		case "depth":
			if i+1 < len(args) {
				in.Depth, _ = strconv.Atoi(args[i+1])
				i++
			}
		case "nodes":
			if i+1 < len(args) {
				in.Nodes, _ = strconv.ParseInt(args[i+1], 10, 64)
				i++
			}
		case "score":
			if i+2 < len(args) {
				n, err := strconv.Atoi(args[i+2])
				if err == nil {
					switch args[i+1] {
					case "cp":
						in.Score = Score{Known: true, CP: n}
					case "mate":
						in.Score = Score{Known: true, Mate: n}
					}
				}
				i += 2
			}
		}
	}
	return in
}

// Option is one option an engine declares in answer to uci.
type Option struct {
	Name, Type, Default string
	Min, Max            int64
	HasRange            bool
}

// ParseOption reads an option line's words after "option": name NAME (which
// may hold spaces) type T [default D] [min N] [max N] [var V ...].
func ParseOption(args []string) (Option, error) {
	var o Option
	keys := map[string]bool{"name": true, "type": true, "default": true, "min": true, "max": true, "var": true}
	fields := map[string]string{}
	key := ""
	for _, w := range args {
		if keys[w] && !(key == "name" && w == "var") {
			key = w
			if _, seen := fields[w]; !seen {
				fields[w] = ""
			}
			continue
		}
		if key == "" {
			return Option{}, fmt.Errorf("option: %q before name", clip(w))
		}
		if fields[key] != "" {
			fields[key] += " "
		}
		fields[key] += w
	}
	o.Name, o.Type, o.Default = fields["name"], fields["type"], fields["default"]
	if o.Name == "" || o.Type == "" {
		return Option{}, errors.New("option: want name and type")
	}
	if lo, ok := fields["min"]; ok {
		hi := fields["max"]
		var err1, err2 error
		o.Min, err1 = strconv.ParseInt(lo, 10, 64)
		o.Max, err2 = strconv.ParseInt(hi, 10, 64)
		o.HasRange = err1 == nil && err2 == nil
	}
	return o, nil
}

// clip shortens text quoted in an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
