package backgammon

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// MatGame is one game of a match file in the Jellyfish .mat format that
// GNU Backgammon reads with "import mat" and writes with "export match mat".
type MatGame struct {
	// Players are the names of the first mover (player 0, the left column)
	// and of the other player (the right column).
	Players [2]string
	// Score is each player's score before the game.
	Score [2]int
	// Actions are the game's actions from the initial state: rolls and
	// decisions, as games.State plays them.
	Actions []int
	// Winner (0 or 1, -1 when the game did not end) and Points (1, 2 or
	// 3) are what the game's last line says. WriteMat takes them from the
	// game's final position; ReadMat checks them against it.
	Winner, Points int
	// Resigned is set by ReadMat for a game whose "Wins" line comes before
	// the end of the game: the other player resigned.
	Resigned bool
}

// Mat is a match file: Length is the match length in points, 0 for a
// money session (gnubg's convention for money play), Event and Date (any
// text, e.g. 2026.12.02) go to the header when not empty.
type Mat struct {
	Length      int
	Event, Date string
	Games       []MatGame
}

// matName makes a player name that the .mat player line can carry: gnubg
// reads the line as "name : score   name : score", so the colon and blanks
// are replaced by underscores; an empty name becomes "player".
func matName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r == ':' || unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, name)
	if name == "" {
		return "player"
	}
	return name
}

// matTurn is one turn of a .mat file: the dice and the checker moves in the
// order played ("13/11 24/23", "25/22* 6/2", bar written 25 and off 0, as
// gnubg writes them), or no moves for a roll that cannot be played.
type matTurn struct {
	player    int
	high, low int
	moves     []string
}

func (t matTurn) String() string {
	s := fmt.Sprintf("%d%d:", t.high, t.low)
	if len(t.moves) > 0 {
		s += " " + strings.Join(t.moves, " ")
	}
	return s
}

// matTurns replays actions from g's initial state and groups them into
// turns, each checker move written from/to with a * for a hit.
func matTurns(g *Game, actions []int) ([]matTurn, *State, error) {
	s := g.NewInitialState().(*State)
	var turns []matTurn
	for i, a := range actions {
		if !s.IsLegal(a) {
			return nil, nil, fmt.Errorf("backgammon: .mat: action %d (%d) is not legal", i, a)
		}
		if s.chance {
			h, l := ActionRoll(a)
			turns = append(turns, matTurn{player: int(s.player), high: h, low: l})
		} else {
			t := &turns[len(turns)-1]
			if a != PassAction {
				for _, m := range s.checkerMoves(a) {
					mv := fmt.Sprintf("%d/%d", m.from, m.to)
					if m.hit {
						mv += "*"
					}
					t.moves = append(t.moves, mv)
				}
			}
		}
		s.ApplyAction(a)
	}
	return turns, s, nil
}

// matColumn is the width of the first player's column after "NNN) ", as
// gnubg writes it.
const matColumn = 28

// WriteMat writes m as a .mat file. Each game's winner and points are
// those of its final position (a game that did not end has no "Wins"
// line).
func WriteMat(w io.Writer, g *Game, m *Mat) error {
	if m.Length < 0 {
		return fmt.Errorf("backgammon: .mat: match length %d, want 0 (money) or more", m.Length)
	}
	bw := bufio.NewWriter(w)
	if m.Event != "" {
		fmt.Fprintf(bw, "; [Event %q]\n", m.Event)
	}
	if m.Date != "" {
		fmt.Fprintf(bw, "; [EventDate %q]\n", m.Date)
	}
	fmt.Fprintf(bw, "\n %d point match\n", m.Length)
	for gi := range m.Games {
		mg := &m.Games[gi]
		turns, end, err := matTurns(g, mg.Actions)
		if err != nil {
			return fmt.Errorf("game %d: %w", gi+1, err)
		}
		mg.Winner, mg.Points = end.Points()
		left := fmt.Sprintf("%s : %d", matName(mg.Players[0]), mg.Score[0])
		fmt.Fprintf(bw, "\n Game %d\n %-*s %s : %d\n", gi+1, matColumn+3, left, matName(mg.Players[1]), mg.Score[1])
		line := 0
		for i := 0; i < len(turns); i++ {
			line++
			// Player 0 opens the game, so the turns alternate 0, 1, 0, ...
			t := turns[i]
			if t.player != 0 {
				return fmt.Errorf("backgammon: .mat: game %d: turn %d is player 1's, want player 0's", gi+1, i+1)
			}
			if i+1 < len(turns) {
				fmt.Fprintf(bw, "%3d) %-*s %s\n", line, matColumn, t, turns[i+1])
				i++
			} else {
				fmt.Fprintf(bw, "%3d) %s\n", line, t)
			}
		}
		if mg.Winner >= 0 {
			indent := 6
			if mg.Winner == 1 {
				indent = 6 + matColumn
			}
			plural := "s"
			if mg.Points == 1 {
				plural = ""
			}
			fmt.Fprintf(bw, "%*sWins %d point%s\n", indent, "", mg.Points, plural)
		}
	}
	return bw.Flush()
}

// ReadMat reads a .mat file as WriteMat and gnubg write it (cubeless: a
// cube action is an error) and replays every game in g, checking each
// move's legality and the "Wins" line against the final position. The
// player who opened a game is its player 0 (gnubg's files may have the
// right column's player open: then Players and Score are swapped from the
// file's order). Errors name the line.
func ReadMat(r io.Reader, g *Game) (*Mat, error) {
	m := &Mat{Length: -1}
	sc := bufio.NewScanner(r)
	var cur *MatGame
	var s *State
	var rd *matReader
	n := 0
	finish := func() error {
		if cur == nil {
			return nil
		}
		w, p := s.Points()
		if w < 0 && cur.Winner >= 0 && !s.IsTerminal() {
			// A "Wins" line before the end: the loser resigned (gnubg's
			// players do; the format does not say so otherwise).
			cur.Resigned = true
			return nil
		}
		if cur.Winner != w || (w >= 0 && cur.Points != p) {
			return fmt.Errorf("backgammon: .mat game %d: the file says player %d wins %d points, the moves give player %d %d points", len(m.Games), cur.Winner, cur.Points, w, p)
		}
		return nil
	}
	for sc.Scan() {
		n++
		line := sc.Text()
		text := strings.TrimSpace(line)
		switch {
		case text == "":
			continue
		case strings.HasPrefix(text, ";"):
			if k, v, ok := matHeader(text); ok {
				switch k {
				case "Event":
					m.Event = v
				case "EventDate":
					m.Date = v
				}
			}
			continue
		case strings.HasSuffix(text, "point match"):
			v, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(text, "point match")))
			if err != nil || v < 0 {
				return nil, fmt.Errorf("backgammon: .mat line %d: %q is not \"N point match\"", n, text)
			}
			m.Length = v
			continue
		case strings.HasPrefix(text, "Game "):
			if err := finish(); err != nil {
				return nil, err
			}
			m.Games = append(m.Games, MatGame{Winner: -1})
			cur = &m.Games[len(m.Games)-1]
			s = g.NewInitialState().(*State)
			rd = &matReader{s: s, mg: cur}
			if !sc.Scan() {
				return nil, fmt.Errorf("backgammon: .mat line %d: %q without its player line", n, text)
			}
			n++
			f := strings.Fields(sc.Text())
			if len(f) != 6 || f[1] != ":" || f[4] != ":" {
				return nil, fmt.Errorf("backgammon: .mat line %d: %q is not \"name : score  name : score\"", n, sc.Text())
			}
			for i, k := range []int{0, 3} {
				sc, err := strconv.Atoi(f[k+2])
				if err != nil {
					return nil, fmt.Errorf("backgammon: .mat line %d: bad score %q", n, f[k+2])
				}
				cur.Players[i], cur.Score[i] = f[k], sc
			}
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("backgammon: .mat line %d: %q before the first game", n, text)
		}
		if strings.HasPrefix(text, "Wins ") {
			f := strings.Fields(text)
			p := 0
			if len(f) >= 3 {
				p, _ = strconv.Atoi(f[1])
			}
			if p < 1 {
				return nil, fmt.Errorf("backgammon: .mat line %d: %q is not \"Wins N point(s)\"", n, text)
			}
			cur.Points = p
			cur.Winner = 0
			if strings.Index(line, "Wins") > 6+matColumn/2 {
				cur.Winner = 1
			}
			if rd.swapped {
				cur.Winner = 1 - cur.Winner
			}
			continue
		}
		num, rest, ok := strings.Cut(text, ")")
		if _, err := strconv.Atoi(num); !ok || err != nil {
			return nil, fmt.Errorf("backgammon: .mat line %d: %q is not a numbered line of moves", n, text)
		}
		if len(cur.Actions) == 0 && len(rest)-len(strings.TrimLeft(rest, " ")) > matColumn/2 {
			// The left column's first turn is empty: the right player
			// opened, and is player 0 here.
			rd.swapped = true
			cur.Players[0], cur.Players[1] = cur.Players[1], cur.Players[0]
			cur.Score[0], cur.Score[1] = cur.Score[1], cur.Score[0]
		}
		for _, tok := range strings.Fields(rest) {
			if err := rd.token(tok); err != nil {
				return nil, fmt.Errorf("backgammon: .mat line %d: %w", n, err)
			}
		}
		if err := rd.flush(); err != nil {
			return nil, fmt.Errorf("backgammon: .mat line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("backgammon: .mat: %w", err)
	}
	if m.Length < 0 {
		return nil, errors.New("backgammon: .mat: no \"N point match\" line")
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return m, nil
}

func matHeader(text string) (key, value string, ok bool) {
	text = strings.TrimSpace(strings.TrimPrefix(text, ";"))
	if !strings.HasPrefix(text, "[") || !strings.HasSuffix(text, "]") {
		return "", "", false
	}
	k, v, ok := strings.Cut(text[1:len(text)-1], " ")
	if !ok {
		return "", "", false
	}
	if u, err := strconv.Unquote(strings.TrimSpace(v)); err == nil {
		v = u
	}
	return k, v, true
}

var errCube = errors.New("cube actions are not supported (tabula's backgammon has no cube)")

// matReader replays the game being read.
type matReader struct {
	s       *State
	mg      *MatGame
	pending []string // checker moves of the turn being read
	swapped bool     // the right column's player opened the game
}

// token reads one token of a move line: a roll "62:" starts a turn (ending
// the one before), a checker move "13/7*" extends it.
func (r *matReader) token(tok string) error {
	s := r.s
	if len(tok) == 3 && tok[2] == ':' {
		if err := r.flush(); err != nil {
			return err
		}
		d1, d2 := int(tok[0]-'0'), int(tok[1]-'0')
		if !s.chance && !s.IsTerminal() {
			h, l := s.Dice()
			return fmt.Errorf("roll %q: the turn before it, %d%d, has no moves (or too few), though it can be played", tok, h, l)
		}
		if s.IsTerminal() {
			return fmt.Errorf("roll %q after the end of the game", tok)
		}
		if d1 < 1 || d1 > 6 || d2 < 1 || d2 > 6 {
			return fmt.Errorf("bad roll %q", tok)
		}
		a := RollAction(max(d1, d2), min(d1, d2))
		if !s.IsLegal(a) {
			return fmt.Errorf("roll %q cannot open the game (a double)", tok)
		}
		r.mg.Actions = append(r.mg.Actions, a)
		s.ApplyAction(a)
		r.pending = r.pending[:0]
		return nil
	}
	low := strings.ToLower(tok)
	for _, c := range []string{"double", "take", "drop", "pass", "beaver", "resign"} {
		if strings.HasPrefix(low, c) {
			return fmt.Errorf("%q: %w", tok, errCube)
		}
	}
	if s.chance || s.IsTerminal() {
		return fmt.Errorf("checker move %q without a roll before it", tok)
	}
	from, to, ok := strings.Cut(strings.TrimSuffix(tok, "*"), "/")
	if !ok {
		return fmt.Errorf("%q is not a checker move such as 13/7", tok)
	}
	r.pending = append(r.pending, matPoint(from)+"/"+matPoint(to))
	return nil
}

// matPoint turns gnubg's .mat point numbers 25 (bar) and 0 (off) into the
// names ParseMove reads.
func matPoint(p string) string {
	switch p {
	case "25":
		return "bar"
	case "0":
		return "off"
	}
	return p
}

// flush plays the turn read since the last roll: one decision, or for
// doubles the first two checker moves and then the rest as the second
// half (when the position leaves one).
func (r *matReader) flush() error {
	s := r.s
	if s.chance || s.IsTerminal() {
		if len(r.pending) > 0 {
			return fmt.Errorf("checker moves %q without a roll", strings.Join(r.pending, " "))
		}
		return nil
	}
	h, l := s.Dice()
	p := int(s.player)
	moves := r.pending
	for !s.chance && !s.IsTerminal() && int(s.player) == p {
		k := len(moves)
		if h == l {
			k = min(k, 2)
		}
		text := strings.Join(moves[:k], " ")
		a, err := s.ParseMove(text)
		if err != nil && k == 0 {
			// No moves where some are legal: the record stops here (a
			// game cut short after a roll, or after the first half of
			// doubles); a roll after it is refused.
			break
		}
		if err != nil {
			return fmt.Errorf("turn %d%d: %w", h, l, err)
		}
		r.mg.Actions = append(r.mg.Actions, a)
		s.ApplyAction(a)
		moves = moves[k:]
	}
	if len(moves) > 0 {
		return fmt.Errorf("turn %d%d: checker moves %q left after the turn ended", h, l, strings.Join(moves, " "))
	}
	r.pending = r.pending[:0]
	return nil
}
