// Command endgamethrows finds where Othello games were thrown away in the
// endgame: it replays games written by "arena match -out" and, from the
// first position with at most N empty squares after the random opening,
// solves every position exactly before and after each move
// (search/othelloend). A move that lowers the mover's exact outcome (a win
// to a draw or a loss, a draw to a loss) is a throw; for each game it
// prints the exact outcome at N empties for the first mover and the first
// throw, and for each player the games it threw and the games it lost or
// drew from a won position at N empties.
//
//	go run ./scripts/endgamethrows [-empties 16] GAMES.jsonl...
//
// It measures what exact endgames in a player's search (net:...,endgame=N)
// would have saved. Each position of 16 empties takes a fraction of a
// second; 20 empties take seconds.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/bits"
	"os"
	"slices"

	"tabula/games"
	"tabula/games/othello"
	"tabula/match"
	"tabula/search/othelloend"
)

func main() {
	empties := flag.Int("empties", 16, "solve from the first position with at most this many empty squares, 1..20")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: endgamethrows [-empties N] GAMES.jsonl...")
		os.Exit(2)
	}
	if err := run(os.Stdout, *empties, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "endgamethrows:", err)
		os.Exit(1)
	}
}

// tally counts one player's endgames.
type tally struct {
	games, thrown, wonAtN, spoiled int // spoiled: won at N empties, not won at the end
}

func run(w io.Writer, empties int, files []string) error {
	if empties < 1 || empties > 20 {
		return fmt.Errorf("-empties %d: want 1 to 20", empties)
	}
	g, err := games.New("othello:size=8")
	if err != nil {
		return err
	}
	sv, err := othelloend.New(othelloend.DefaultConfig())
	if err != nil {
		return err
	}
	byPlayer := map[string]*tally{}
	var names []string
	for _, path := range files {
		recs, err := readGames(path, g)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if r.Forfeit != nil || r.Resigned {
				fmt.Fprintf(w, "%s game %d: not played out (forfeit or resignation), skipped\n", path, r.Index)
				continue
			}
			ge, err := throws(g, sv, r, empties)
			if err != nil {
				return fmt.Errorf("%s: game %d: %w", path, r.Index, err)
			}
			fmt.Fprintf(w, "%s game %d: %s\n", path, r.Index, ge.describe(r, empties))
			for seat, name := range r.Players {
				t := byPlayer[name]
				if t == nil {
					t = &tally{}
					byPlayer[name] = t
					names = append(names, name)
				}
				t.games++
				if ge.firstBy == seat {
					t.thrown++
				}
				if ge.reached && sign(ge.atN)*(1-2*seat) > 0 {
					t.wonAtN++
					if r.Winner != seat {
						t.spoiled++
					}
				}
			}
		}
	}
	slices.Sort(names)
	fmt.Fprintf(w, "\nby player (from %d empties, exact): games, games where it threw the first outcome away, games it had won at %d empties, of them not won\n", empties, empties)
	for _, n := range names {
		t := byPlayer[n]
		fmt.Fprintf(w, "%s: %d games, %d thrown, %d won at %d empties, %d of them not won\n", n, t.games, t.thrown, t.wonAtN, empties, t.spoiled)
	}
	return nil
}

// gameEnd is what the solver says of one game's end.
type gameEnd struct {
	reached   bool // a position with at most N empties was reached after the opening
	atN       int  // the exact final disc difference for the first mover there
	atEmpties int  // its empties
	firstBy   int  // the seat of the first throw, -1 for none
	before    int  // the thrower's exact score before and after its throw
	after     int
	throwAt   int // the empties of the throw
}

func (e gameEnd) describe(r match.GameRecord, n int) string {
	if !e.reached {
		return fmt.Sprintf("ended before %d empties", n)
	}
	s := fmt.Sprintf("%+d for %s at %d empties", e.atN, r.Players[0], e.atEmpties)
	if e.firstBy < 0 {
		return s + "; no throw"
	}
	return fmt.Sprintf("%s; %s threw it at %d empties (%+d to %+d for it)", s, r.Players[e.firstBy], e.throwAt, e.before, e.after)
}

// throws replays r and solves its endgame from the first position with at
// most n empties.
func throws(g games.Game, sv *othelloend.Solver, r match.GameRecord, n int) (gameEnd, error) {
	ge := gameEnd{firstBy: -1}
	acts, err := g.(games.Notation).ParseActions(r.Moves)
	if err != nil {
		return ge, err
	}
	s := g.NewInitialState()
	for i, a := range acts {
		st := s.(*othello.State)
		p, o := st.Boards()
		e := 64 - bits.OnesCount64(p|o)
		if i >= r.OpeningPlies && e <= n {
			mover := st.CurrentPlayer()
			before, _ := sv.Solve(p, o)
			if !ge.reached {
				ge.reached, ge.atEmpties = true, e
				ge.atN = before * (1 - 2*mover)
			}
			c := s.Clone()
			if err := games.Play(c, a); err != nil {
				return ge, fmt.Errorf("move %d: %w", i+1, err)
			}
			var after int
			if c.IsTerminal() {
				after = int(c.Returns()[mover]) // +-1 or 0: its sign is what counts
			} else {
				cp, co := c.(*othello.State).Boards()
				v, _ := sv.Solve(cp, co)
				after = v
				if c.CurrentPlayer() != mover {
					after = -v
				}
			}
			if ge.firstBy < 0 && sign(after) < sign(before) {
				ge.firstBy, ge.before, ge.after, ge.throwAt = mover, before, after, e
			}
		}
		if err := games.Play(s, a); err != nil {
			return ge, fmt.Errorf("move %d: %w", i+1, err)
		}
	}
	if !s.IsTerminal() {
		return ge, fmt.Errorf("the moves do not end the game")
	}
	return ge, nil
}

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// readGames reads the Othello 8x8 records of an "arena match -out" file.
func readGames(path string, g games.Game) ([]match.GameRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []match.GameRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var r match.GameRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: not a game record: %w", path, line, err)
		}
		if r.Game != g.Name() {
			return nil, fmt.Errorf("%s:%d: a game of %q, want %s", path, line, r.Game, g.Name())
		}
		recs = append(recs, r)
	}
	return recs, sc.Err()
}
