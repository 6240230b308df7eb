package gogame

import (
	"fmt"
	"strconv"
	"strings"
)

// FromText sets up a position from a board written as text, one line per
// row from the top: 'X' or 'B' a black stone, 'O' or 'W' a white stone
// (either case), '.' or '+' an empty point; spaces within a line and blank
// lines are ignored. toMove is the player to move (0 black, 1 white). The
// position is the start of the game: move number 0, no passes, and its
// board is the only one in the superko history. It returns an error if the
// text is not size lines of size points or a group has no liberty.
func FromText(g *Game, text string, toMove int) (*State, error) {
	if g == nil {
		return nil, fmt.Errorf("go position: no game")
	}
	if toMove != 0 && toMove != 1 {
		return nil, fmt.Errorf("go position: player to move %d is not 0 (black) or 1 (white)", toMove)
	}
	b := make([]int8, 0, g.n)
	rows := 0
	for li, line := range strings.Split(text, "\n") {
		line = strings.Join(strings.Fields(line), "")
		if line == "" {
			continue
		}
		rows++
		if len(line) != g.size {
			return nil, fmt.Errorf("go position: line %d %q has %d points, want %d", li+1, line, len(line), g.size)
		}
		if rows > g.size {
			return nil, fmt.Errorf("go position: more than %d rows", g.size)
		}
		for i := 0; i < len(line); i++ {
			switch line[i] {
			case 'X', 'x', 'B', 'b':
				b = append(b, Black)
			case 'O', 'o', 'W', 'w':
				b = append(b, White)
			case '.', '+':
				b = append(b, Empty)
			default:
				return nil, fmt.Errorf("go position: line %d: %q is not one of X B O W . +", li+1, line[i])
			}
		}
	}
	if rows != g.size {
		return nil, fmt.Errorf("go position: %d rows, want %d", rows, g.size)
	}
	return g.fromBoard(b, toMove)
}

// fromBoard builds a starting state from a board; b is kept (shared by the
// clones of the state), so the caller must not change it afterwards.
func (g *Game) fromBoard(b []int8, toMove int) (*State, error) {
	s := g.newState()
	for p, c := range b {
		if c != Empty {
			s.placeNoCapture(p, c)
		}
	}
	for p, c := range b {
		if c != Empty && s.nlib[s.head[p]] == 0 {
			return nil, fmt.Errorf("go position: the group at %s has no liberty", g.FormatAction(p))
		}
	}
	clear(s.table)
	s.insert(s.hash)
	s.toMove = int8(toMove)
	s.setup = &setup{board: b, toMove: toMove}
	return s, nil
}

// placeNoCapture puts a stone of colour c on the empty point p, merging it
// with its friends, without resolving captures (setup uses it as it is).
func (s *State) placeNoCapture(p int, c int8) {
	g := s.g
	w := g.words
	key := g.keys[int(c-1)*g.n+p]
	s.board[p] = c
	s.hash ^= key
	s.removeEmpty(p)
	s.head[p] = int16(p)
	s.next[p] = int16(p)
	s.gsize[p] = 1
	s.ghash[p] = key
	lb := s.libs[p*w : (p+1)*w]
	clear(lb)
	nl := int16(0)
	adj := g.adj[4*p : 4*p+int(g.deg[p])]
	bit, word := uint64(1)<<(uint(p)&63), p>>6
	for _, q := range adj {
		if s.board[q] == Empty {
			lb[q>>6] |= 1 << (uint(q) & 63)
			nl++
			continue
		}
		hd := int(s.head[q])
		if x := &s.libs[hd*w+word]; *x&bit != 0 {
			*x &^= bit
			s.nlib[hd]--
		}
	}
	s.nlib[p] = nl
	for _, q := range adj {
		if s.board[q] == c && s.head[q] != s.head[p] {
			s.merge(int(s.head[p]), int(s.head[q]))
		}
	}
}

// String draws the board with GTP coordinates ('X' black, 'O' white, '.'
// empty), then who is to move, or the result when the game is over.
func (s *State) String() string {
	g := s.g
	var b strings.Builder
	cols := func() {
		b.WriteString("   ")
		for c := 0; c < g.size; c++ {
			b.WriteByte(' ')
			b.WriteByte(gtpColumns[c])
		}
		b.WriteByte('\n')
	}
	cols()
	for r := 0; r < g.size; r++ {
		fmt.Fprintf(&b, "%3d", g.size-r)
		for c := 0; c < g.size; c++ {
			b.WriteByte(' ')
			b.WriteByte(".XO"[s.board[r*g.size+c]])
		}
		fmt.Fprintf(&b, " %d\n", g.size-r)
	}
	cols()
	if s.IsTerminal() {
		sc := s.Score()
		switch {
		case sc > 0:
			fmt.Fprintf(&b, "game over: B+%s", strconv.FormatFloat(sc, 'g', -1, 64))
		case sc < 0:
			fmt.Fprintf(&b, "game over: W+%s", strconv.FormatFloat(-sc, 'g', -1, 64))
		default:
			b.WriteString("game over: draw")
		}
	} else {
		b.WriteString([2]string{"black", "white"}[s.toMove])
		b.WriteString(" to move")
		if s.passes > 0 {
			b.WriteString(" (last move pass)")
		}
	}
	fmt.Fprintf(&b, ", move %d, komi %s\n", len(s.moves), strconv.FormatFloat(g.komi, 'g', -1, 64))
	return b.String()
}
