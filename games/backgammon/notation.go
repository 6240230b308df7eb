package backgammon

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"tabula/games"
)

// PositionID returns gnubg's 14-character position ID of the state's
// checkers, with the player to move (or to roll) as the player on roll.
func (s *State) PositionID() string { return PositionID(&s.pos, int(s.player)) }

// PositionID returns gnubg's position ID of q with player onRoll on roll:
// for the other player and then for onRoll, each of its points 1..24 and
// the bar in its own numbering writes one 1 bit per checker and a 0 bit;
// the 80 bits fill 10 bytes from the least significant bit, which base64
// writes as 14 characters.
func PositionID(q *Position, onRoll int) string {
	var key [10]byte
	bit := 0
	for _, c := range [2]int{1 - onRoll, onRoll} {
		for i := 0; i <= Points; i++ {
			n := int(q.Bar[c])
			if i < Points {
				n = int(q.Board[c][i])
			}
			for ; n > 0; n-- {
				key[bit/8] |= 1 << (bit % 8)
				bit++
			}
			bit++
		}
	}
	return base64.RawStdEncoding.EncodeToString(key[:])
}

// ParsePositionID reads a gnubg position ID into a position in which player
// onRoll is the player on roll. Checkers not on the board or the bar are off.
func ParsePositionID(id string, onRoll int) (Position, error) {
	var q Position
	if onRoll != 0 && onRoll != 1 {
		return q, fmt.Errorf("position ID %q: player on roll %d, want 0 or 1", id, onRoll)
	}
	if len(id) != 14 {
		return q, fmt.Errorf("position ID %q: %d characters, want 14", id, len(id))
	}
	key, err := base64.RawStdEncoding.Strict().DecodeString(id)
	if err != nil || len(key) != 10 {
		return q, fmt.Errorf("position ID %q is not base64 of 10 bytes", id)
	}
	bit := 0
	for _, c := range [2]int{1 - onRoll, onRoll} {
		total := 0
		for i := 0; i <= Points; i++ {
			n := 0
			for bit < 80 && key[bit/8]&(1<<(bit%8)) != 0 {
				n++
				bit++
			}
			if bit >= 80 {
				return q, fmt.Errorf("position ID %q ends in the middle of a point", id)
			}
			bit++
			total += n
			if total > Checkers {
				return q, fmt.Errorf("position ID %q gives a player more than %d checkers", id, Checkers)
			}
			if i < Points {
				q.Board[c][i] = int8(n)
			} else {
				q.Bar[c] = int8(n)
			}
		}
		q.Off[c] = int8(Checkers - total)
	}
	for ; bit < 80; bit++ {
		if key[bit/8]&(1<<(bit%8)) != 0 {
			return q, fmt.Errorf("position ID %q has bits set past its last point", id)
		}
	}
	if err := q.Check(); err != nil {
		return q, fmt.Errorf("position ID %q: %w", id, err)
	}
	return q, nil
}

// checkerMove is one checker move in gnubg's numbering: from 25 is the bar,
// to 0 is off.
type checkerMove struct {
	from, to int
	hit      bool
}

// checkerMoves returns the checker moves of decision a in the order played.
func (s *State) checkerMoves(a int) []checkerMove {
	p := int(s.player)
	x, y, order := a%676/26, a%26, a/676
	type sd struct{ src, d int }
	seq := []sd{{x, int(s.dice[0])}, {y, int(s.dice[1])}}
	if order == 1 && s.dice[0] != s.dice[1] {
		seq[0], seq[1] = seq[1], seq[0]
	}
	q := s.pos
	var out []checkerMove
	for _, m := range seq {
		if m.src == NoMove {
			continue
		}
		to := m.src - m.d + 1
		if m.src == BarSource {
			to = 25 - m.d
		}
		out = append(out, checkerMove{from: m.src + 1, to: max(to, 0), hit: q.step(p, m.src, m.d)})
	}
	return out
}

// FormatMove writes decision a of s in gnubg's notation: each checker's path
// from/to (25 written bar, 0 off), a * after a point where it hits, an
// intermediate point shown only where it hits, moves of the highest point
// first (then the farthest-reaching
// last) and equal moves counted as (n): "8/5 6/5", "bar/22*", "24/18*/13",
// "13/7(2)". A turn of doubles takes two decisions, each written alone. The
// pass of a player who cannot move is "pass". a must be legal in s. At a
// chance node it writes the roll, e.g. "6-3" (games.MoveNotation).
func (s *State) FormatMove(a int) string {
	if s.chance {
		h, l := ActionRoll(a)
		return fmt.Sprintf("%d-%d", h, l)
	}
	if a == PassAction {
		return "pass"
	}
	moves := s.checkerMoves(a)
	// Chain moves of one checker: a move starting where an earlier one
	// ended continues it.
	type path struct {
		pts  []int
		hits []bool
	}
	var paths []path
	for _, m := range moves {
		joined := false
		for i := range paths {
			pp := &paths[i]
			switch {
			case pp.pts[len(pp.pts)-1] == m.from && m.from != 0:
				// This checker continues an earlier move.
				pp.pts = append(pp.pts, m.to)
				pp.hits = append(pp.hits, m.hit)
				joined = true
			case pp.pts[0] == m.to && m.to != 0 && !m.hit:
				// A checker moved onto the start of an earlier move:
				// the same position as one checker moving through.
				pp.pts = append([]int{m.from}, pp.pts...)
				pp.hits = append([]bool{false}, pp.hits...)
				joined = true
			}
			if joined {
				break
			}
		}
		if !joined {
			paths = append(paths, path{pts: []int{m.from, m.to}, hits: []bool{false, m.hit}})
		}
	}
	// Checkers on the same path are written once with a count; a hit by
	// the first of them marks the path (gnubg: "13/7*(2)").
	for i := range paths {
		for j := range paths {
			if i != j && slices.Equal(paths[i].pts, paths[j].pts) {
				for k := range paths[i].hits {
					paths[i].hits[k] = paths[i].hits[k] || paths[j].hits[k]
				}
			}
		}
	}
	texts := make([]string, 0, len(paths))
	froms := make([]int, 0, len(paths))
	tos := make([]int, 0, len(paths))
	for _, pp := range paths {
		var b strings.Builder
		b.WriteString(pointName(pp.pts[0]))
		for i := 1; i < len(pp.pts); i++ {
			if i < len(pp.pts)-1 && !pp.hits[i] {
				continue
			}
			b.WriteString("/" + pointName(pp.pts[i]))
			if pp.hits[i] {
				b.WriteByte('*')
			}
		}
		texts = append(texts, b.String())
		froms = append(froms, pp.pts[0])
		tos = append(tos, pp.pts[len(pp.pts)-1])
	}
	idx := make([]int, len(texts))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		if froms[i] != froms[j] {
			return froms[j] - froms[i]
		}
		if tos[i] != tos[j] {
			return tos[j] - tos[i]
		}
		return strings.Compare(texts[i], texts[j])
	})
	var parts []string
	for k := 0; k < len(idx); {
		n := 1
		for k+n < len(idx) && texts[idx[k+n]] == texts[idx[k]] {
			n++
		}
		if n > 1 {
			parts = append(parts, fmt.Sprintf("%s(%d)", texts[idx[k]], n))
		} else {
			parts = append(parts, texts[idx[k]])
		}
		k += n
	}
	return strings.Join(parts, " ")
}

func pointName(p int) string {
	switch p {
	case 25:
		return "bar"
	case 0:
		return "off"
	}
	return strconv.Itoa(p)
}

// ParseMove reads a decision of s in gnubg's notation (as FormatMove writes
// it; an intermediate point may be left out, a * is optional, "pass" or ""
// for no move) and returns the legal action that reaches the same position.
// The error says what is malformed or that the move is not legal here.
func (s *State) ParseMove(text string) (int, error) {
	if s.IsTerminal() {
		return 0, errors.New("backgammon: no move to play here: the game is over")
	}
	if s.chance {
		return s.parseRoll(text)
	}
	q := s.pos
	p := int(s.player)
	text = strings.TrimSpace(text)
	if text != "" && text != "pass" {
		for _, tok := range strings.Fields(text) {
			n := 1
			if i := strings.IndexByte(tok, '('); i >= 0 {
				if !strings.HasSuffix(tok, ")") {
					return 0, fmt.Errorf("backgammon: move %q: unclosed count in %q", text, tok)
				}
				k, err := strconv.Atoi(tok[i+1 : len(tok)-1])
				if err != nil || k < 1 || k > 4 {
					return 0, fmt.Errorf("backgammon: move %q: bad count in %q", text, tok)
				}
				n, tok = k, tok[:i]
			}
			parts := strings.Split(tok, "/")
			if len(parts) < 2 {
				return 0, fmt.Errorf("backgammon: move %q: %q is not from/to", text, tok)
			}
			pts := make([]int, len(parts))
			for i, part := range parts {
				v, err := parsePoint(strings.TrimSuffix(part, "*"))
				if err != nil {
					return 0, fmt.Errorf("backgammon: move %q: %w", text, err)
				}
				pts[i] = v
			}
			for ; n > 0; n-- {
				for i := 1; i < len(pts); i++ {
					if err := q.moveChecker(p, pts[i-1], pts[i]); err != nil {
						return 0, fmt.Errorf("backgammon: move %q: %w", text, err)
					}
				}
			}
		}
	}
	c := s.legal()
	for i, a := range c.actions {
		if c.after[i] == q {
			return int(a), nil
		}
	}
	return 0, fmt.Errorf("%w: %q is not a legal move for player %d with %d-%d", games.ErrIllegalMove, text, p, s.dice[0], s.dice[1])
}

// parseRoll reads the dice at a chance node: "6-3", "63" or "6 3".
func (s *State) parseRoll(text string) (int, error) {
	t := strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(text))
	if len(t) != 2 || t[0] < '1' || t[0] > '6' || t[1] < '1' || t[1] > '6' {
		return 0, fmt.Errorf("backgammon: %q is not a roll such as 6-3 (the dice are to be rolled)", text)
	}
	a := RollAction(int(t[0]-'0'), int(t[1]-'0'))
	if !s.IsLegal(a) {
		return 0, fmt.Errorf("%w: the opening roll cannot be a double (%s)", games.ErrIllegalMove, text)
	}
	return a, nil
}

func parsePoint(t string) (int, error) {
	switch strings.ToLower(t) {
	case "bar":
		return 25, nil
	case "off":
		return 0, nil
	}
	v, err := strconv.Atoi(t)
	if err != nil || v < 1 || v > 24 {
		return 0, fmt.Errorf("%q is not a point (1-24, bar or off)", t)
	}
	return v, nil
}

// moveChecker moves one checker of player p from point from to point to
// (gnubg numbering), hitting a blot there; it checks only that the checker
// exists, that it moves forward and that the point is open.
func (q *Position) moveChecker(p, from, to int) error {
	if to >= from || from == 0 {
		return fmt.Errorf("%s/%s does not move forward", pointName(from), pointName(to))
	}
	if from == 25 {
		if q.Bar[p] == 0 {
			return errors.New("no checker on the bar")
		}
		q.Bar[p]--
	} else {
		if q.Board[p][from-1] == 0 {
			return fmt.Errorf("no checker on point %d", from)
		}
		q.Board[p][from-1]--
	}
	if to == 0 {
		q.Off[p]++
		return nil
	}
	o := &q.Board[1-p][24-to]
	switch {
	case *o >= 2:
		return fmt.Errorf("point %d is held by the opponent", to)
	case *o == 1:
		*o = 0
		q.Bar[1-p]++
	}
	q.Board[p][to-1]++
	return nil
}

// FormatAction writes action a without a position (the dice unknown): the
// source of the high die's move and of the low die's move in the order
// played, e.g. "8h 6l" (order 0), "6l 8h" (order 1), "-" for no move, "bar"
// for the bar; "pass" for action 675. Chance outcomes have no separate text:
// FormatActions writes rolls. Use State.FormatMove for gnubg notation.
func (g *Game) FormatAction(a int) string {
	if a == PassAction {
		return "pass"
	}
	if a < 0 || a >= NumActions {
		return "?"
	}
	x, y, order := a%676/26, a%26, a/676
	h, l := sourceName(x)+"h", sourceName(y)+"l"
	if order == 1 {
		return l + " " + h
	}
	return h + " " + l
}

func sourceName(src int) string {
	switch src {
	case BarSource:
		return "bar"
	case NoMove:
		return "-"
	}
	return strconv.Itoa(src + 1)
}

// ParseAction reads what FormatAction writes.
func (g *Game) ParseAction(text string) (int, error) {
	text = strings.TrimSpace(text)
	if text == "pass" {
		return PassAction, nil
	}
	f := strings.Fields(text)
	if len(f) != 2 {
		return 0, fmt.Errorf("backgammon: action %q: want two sources such as \"8h 6l\" or \"pass\"", text)
	}
	var src [2]int
	var tags [2]byte
	for i, t := range f {
		if len(t) < 2 {
			return 0, fmt.Errorf("backgammon: action %q: bad source %q", text, t)
		}
		tags[i] = t[len(t)-1]
		switch name := t[:len(t)-1]; name {
		case "bar":
			src[i] = BarSource
		case "-":
			src[i] = NoMove
		default:
			v, err := strconv.Atoi(name)
			if err != nil || v < 1 || v > 24 {
				return 0, fmt.Errorf("backgammon: action %q: bad source %q", text, t)
			}
			src[i] = v - 1
		}
	}
	switch {
	case tags == [2]byte{'h', 'l'}:
		return src[0]*26 + src[1], nil
	case tags == [2]byte{'l', 'h'}:
		return 676 + src[1]*26 + src[0], nil
	}
	return 0, fmt.Errorf("backgammon: action %q: want one h (high die) and one l (low die) source", text)
}

// FormatActions writes a game's actions from the initial state: each roll as
// "31:" before the decision it gives, decisions in gnubg notation, items
// separated by "; " (the two halves of doubles are two items):
// "31: 8/5 6/5; 66: 24/18(2); 13/7(2); 52: ...". Actions that are not legal
// where they are played are written as raw action numbers "#n".
func (g *Game) FormatActions(actions []int) string {
	s := g.NewInitialState().(*State)
	var b strings.Builder
	prevRoll := false
	for i, a := range actions {
		switch {
		case i == 0:
		case prevRoll:
			b.WriteByte(' ')
		default:
			b.WriteString("; ")
		}
		prevRoll = false
		switch {
		case !s.IsLegal(a):
			// The rest cannot be written without the position.
			for k, r := range actions[i:] {
				if k > 0 {
					b.WriteString("; ")
				}
				fmt.Fprintf(&b, "#%d", r)
			}
			return b.String()
		case s.chance:
			h, l := ActionRoll(a)
			fmt.Fprintf(&b, "%d%d:", h, l)
			prevRoll = true
		default:
			b.WriteString(s.FormatMove(a))
		}
		s.ApplyAction(a)
	}
	return b.String()
}

// ParseActions reads what FormatActions writes. Decisions in gnubg notation
// depend on the position, so it replays the game as it reads and reports the
// first item that is not legal.
func (g *Game) ParseActions(text string) ([]int, error) {
	s := g.NewInitialState().(*State)
	var out []int
	raw := false
	for n, item := range strings.Split(text, ";") {
		item = strings.TrimSpace(item)
		if item == "" && n == 0 && strings.TrimSpace(text) == "" {
			break
		}
		if strings.HasPrefix(item, "#") {
			a, err := strconv.Atoi(item[1:])
			if err != nil {
				return nil, fmt.Errorf("backgammon: item %d %q: bad action number", n+1, item)
			}
			out = append(out, a)
			if !raw && s.IsLegal(a) {
				s.ApplyAction(a)
			} else {
				raw = true // the rest is only raw numbers
			}
			continue
		}
		if raw {
			return nil, fmt.Errorf("backgammon: item %d %q: only raw #n actions can follow an illegal one", n+1, item)
		}
		if len(item) >= 3 && item[2] == ':' {
			d1, d2 := int(item[0]-'0'), int(item[1]-'0')
			if d1 < 1 || d1 > 6 || d2 < 1 || d2 > 6 {
				return nil, fmt.Errorf("backgammon: item %d %q: bad roll", n+1, item)
			}
			a := RollAction(d1, d2)
			if !s.chance || !s.IsLegal(a) {
				return nil, fmt.Errorf("backgammon: item %d %q: the roll %d%d cannot come here", n+1, item, d1, d2)
			}
			out = append(out, a)
			s.ApplyAction(a)
			item = strings.TrimSpace(item[3:])
			if item == "" {
				continue
			}
		}
		if s.chance || s.IsTerminal() {
			return nil, fmt.Errorf("backgammon: item %d %q: a move where the dice are to be rolled or the game is over", n+1, item)
		}
		a, err := s.ParseMove(item)
		if err != nil {
			return nil, fmt.Errorf("backgammon: item %d: %w", n+1, err)
		}
		out = append(out, a)
		s.ApplyAction(a)
	}
	return out, nil
}
