package sgf

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"tabula/games"
	"tabula/games/gogame"
	"tabula/games/othello"
)

// MaxBytes is the largest file Read accepts.
const MaxBytes = 16 << 20

// maxDepth bounds the nesting of game trees.
const maxDepth = 10000

// property is one property of a node with its values, unescaped.
type property struct {
	name   string
	values []string
	pos    int // byte offset of the name
}

// node is one node: its properties in file order.
type node struct {
	props []property
	pos   int
}

func (n *node) get(name string) (property, bool) {
	for _, p := range n.props {
		if p.name == name {
			return p, true
		}
	}
	return property{}, false
}

// gameTree is a sequence of nodes and the variations after it.
type gameTree struct {
	nodes    []node
	children []*gameTree
}

// SyntaxError is an error in an SGF file, with where it was.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("sgf: line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

type parser struct {
	src []byte
	i   int
}

func (p *parser) errAt(pos int, format string, args ...any) error {
	line, col := 1, 1
	for _, c := range p.src[:min(pos, len(p.src))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			p.i++
		default:
			return
		}
	}
}

// collection reads Collection = GameTree { GameTree }.
func (p *parser) collection() ([]*gameTree, error) {
	var trees []*gameTree
	for {
		p.skipSpace()
		if p.i == len(p.src) {
			break
		}
		if p.src[p.i] != '(' {
			return nil, p.errAt(p.i, "unexpected %q outside a game tree: want '('", p.src[p.i])
		}
		t, err := p.tree(0)
		if err != nil {
			return nil, err
		}
		trees = append(trees, t)
	}
	if len(trees) == 0 {
		return nil, p.errAt(p.i, "no game tree: an SGF file starts with '(;'")
	}
	return trees, nil
}

// tree reads GameTree = "(" Sequence { GameTree } ")", at its '('.
func (p *parser) tree(depth int) (*gameTree, error) {
	if depth > maxDepth {
		return nil, p.errAt(p.i, "game trees nested deeper than %d", maxDepth)
	}
	open := p.i
	p.i++
	t := &gameTree{}
	for {
		p.skipSpace()
		if p.i == len(p.src) {
			return nil, p.errAt(open, "game tree opened here is not closed: missing ')'")
		}
		switch c := p.src[p.i]; c {
		case ';':
			if len(t.children) > 0 {
				return nil, p.errAt(p.i, "node after a variation: nodes must come before the variations of a game tree")
			}
			n, err := p.node()
			if err != nil {
				return nil, err
			}
			t.nodes = append(t.nodes, n)
		case '(':
			if len(t.nodes) == 0 {
				return nil, p.errAt(p.i, "variation before any node: a game tree starts with ';'")
			}
			ch, err := p.tree(depth + 1)
			if err != nil {
				return nil, err
			}
			t.children = append(t.children, ch)
		case ')':
			if len(t.nodes) == 0 {
				return nil, p.errAt(p.i, "empty game tree: a game tree holds at least one node")
			}
			p.i++
			return t, nil
		default:
			return nil, p.errAt(p.i, "unexpected %q: want ';', '(' or ')'", c)
		}
	}
}

// node reads Node = ";" { Property }, at its ';'.
func (p *parser) node() (node, error) {
	n := node{pos: p.i}
	p.i++
	for {
		p.skipSpace()
		if p.i == len(p.src) {
			return n, nil
		}
		c := p.src[p.i]
		if c == ';' || c == '(' || c == ')' {
			return n, nil
		}
		if c < 'A' || c > 'Z' {
			return n, p.errAt(p.i, "unexpected %q: want a property name in capital letters", c)
		}
		start := p.i
		for p.i < len(p.src) && p.src[p.i] >= 'A' && p.src[p.i] <= 'Z' {
			p.i++
		}
		name := string(p.src[start:p.i])
		if len(name) > 8 {
			return n, p.errAt(start, "property name %q is too long", clip(name))
		}
		if _, dup := n.get(name); dup {
			return n, p.errAt(start, "property %s appears twice in one node", name)
		}
		pr := property{name: name, pos: start}
		for {
			p.skipSpace()
			if p.i == len(p.src) || p.src[p.i] != '[' {
				break
			}
			v, err := p.value()
			if err != nil {
				return n, err
			}
			pr.values = append(pr.values, v)
		}
		if len(pr.values) == 0 {
			return n, p.errAt(start, "property %s has no value: want %s[...]", name, name)
		}
		n.props = append(n.props, pr)
	}
}

// value reads PropValue = "[" text "]", at its '[', undoing escapes: a
// backslash keeps the next character, and a backslash before a line break
// removes it (a soft line break).
func (p *parser) value() (string, error) {
	open := p.i
	p.i++
	var b []byte
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch c {
		case ']':
			p.i++
			return string(b), nil
		case '\\':
			p.i++
			if p.i == len(p.src) {
				return "", p.errAt(open, "value opened here is not closed: missing ']'")
			}
			switch e := p.src[p.i]; e {
			case '\n', '\r':
				p.i++
				if p.i < len(p.src) && (p.src[p.i] == '\n' || p.src[p.i] == '\r') && p.src[p.i] != e {
					p.i++
				}
				continue
			default:
				b = append(b, e)
			}
		default:
			b = append(b, c)
		}
		p.i++
	}
	return "", p.errAt(open, "value opened here is not closed: missing ']'")
}

func clip(s string) string {
	if len(s) > 24 {
		return s[:24] + "..."
	}
	return s
}

// Read reads the main line (the first variation at every branch) of the
// first game of an SGF collection, checks it as described in the package
// comment, and returns it.
func Read(r io.Reader) (*Record, error) {
	src, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("sgf: %w", err)
	}
	if len(src) > MaxBytes {
		return nil, fmt.Errorf("sgf: file larger than %d bytes", MaxBytes)
	}
	return Parse(src)
}

// Parse is Read of a file's bytes.
func Parse(src []byte) (*Record, error) {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	p := &parser{src: src}
	trees, err := p.collection()
	if err != nil {
		return nil, err
	}
	var line []node
	for t := trees[0]; t != nil; {
		line = append(line, t.nodes...)
		if len(t.children) == 0 {
			break
		}
		t = t.children[0]
	}
	return p.record(line)
}

// setupProps are the setup properties, allowed in the root node only.
var setupProps = []string{"AB", "AW", "AE"}

// record interprets the nodes of a main line.
func (p *parser) record(line []node) (*Record, error) {
	root := &line[0]
	one := func(n *node, name string) (string, *property, error) {
		pr, ok := n.get(name)
		if !ok {
			return "", nil, nil
		}
		if len(pr.values) != 1 {
			return "", nil, p.errAt(pr.pos, "property %s has %d values, want one", name, len(pr.values))
		}
		return pr.values[0], &pr, nil
	}
	gm := GMGo
	if v, pr, err := one(root, "GM"); err != nil {
		return nil, err
	} else if pr != nil {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || (n != GMGo && n != GMOthello) {
			return nil, p.errAt(pr.pos, "GM[%s]: the game is not go (GM[1]) or othello (GM[2])", clip(v))
		}
		gm = n
	}
	if v, pr, err := one(root, "FF"); err != nil {
		return nil, err
	} else if pr != nil {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > 4 {
			return nil, p.errAt(pr.pos, "FF[%s]: want a file format 1 to 4", clip(v))
		}
	}
	if v, pr, err := one(root, "CA"); err != nil {
		return nil, err
	} else if pr != nil {
		if cs := strings.ToUpper(strings.TrimSpace(v)); cs != "UTF-8" && cs != "UTF8" && cs != "US-ASCII" && cs != "ASCII" && cs != "ISO-8859-1" && cs != "LATIN1" {
			return nil, p.errAt(pr.pos, "CA[%s]: the charset is not UTF-8, US-ASCII or ISO-8859-1", clip(v))
		}
	}
	size := 19
	if gm == GMOthello {
		size = 8
	}
	if v, pr, err := one(root, "SZ"); err != nil {
		return nil, err
	} else if pr != nil {
		cols, rows, composed := strings.Cut(v, ":")
		n, err1 := strconv.Atoi(strings.TrimSpace(cols))
		m := n
		var err2 error
		if composed {
			m, err2 = strconv.Atoi(strings.TrimSpace(rows))
		}
		switch {
		case err1 != nil || err2 != nil:
			return nil, p.errAt(pr.pos, "SZ[%s]: want a board size such as SZ[9]", clip(v))
		case n != m:
			return nil, p.errAt(pr.pos, "SZ[%s]: the board is not square", clip(v))
		}
		size = n
	}
	var g games.Game
	var err error
	rec := &Record{}
	if gm == GMGo {
		komi := 0.0
		if v, pr, err := one(root, "KM"); err != nil {
			return nil, err
		} else if pr != nil {
			k, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || math.IsNaN(k) || math.IsInf(k, 0) {
				return nil, p.errAt(pr.pos, "KM[%s]: the komi is not a number", clip(v))
			}
			komi = k
		}
		g, err = gogame.New(size, komi, 0)
		if err == nil {
			// A record may be longer than the default length cap.
			n := 0
			for i := range line {
				if _, ok := line[i].get("B"); ok {
					n++
				} else if _, ok := line[i].get("W"); ok {
					n++
				}
			}
			if n > g.MaxGameLength() {
				g, err = gogame.New(size, komi, min(n+1, 20*size*size))
			}
		}
	} else {
		g, err = othello.New(size)
	}
	if err != nil {
		return nil, p.errAt(root.pos, "%v", err)
	}
	rec.Game = g
	for _, f := range []struct {
		name string
		dst  *string
	}{{"PB", &rec.Black}, {"PW", &rec.White}, {"RE", &rec.Result}, {"DT", &rec.Date}, {"RU", &rec.Rules}, {"EV", &rec.Event}, {"AP", &rec.Application}} {
		v, _, err := one(root, f.name)
		if err != nil {
			return nil, err
		}
		*f.dst = v
	}
	if err := p.setup(root, g, rec); err != nil {
		return nil, err
	}
	if v, pr, err := one(root, "PL"); err != nil {
		return nil, err
	} else if pr != nil {
		switch strings.ToUpper(strings.TrimSpace(v)) {
		case "B":
		case "W":
			if gm != GMGo {
				return nil, p.errAt(pr.pos, "PL[W]: othello games where white moves first are not supported")
			}
			rec.SetupToMove = 1
		default:
			return nil, p.errAt(pr.pos, "PL[%s]: want B or W", clip(v))
		}
	}
	s, err := rec.Start()
	if err != nil {
		return nil, p.errAt(root.pos, "%v", err)
	}
	ps := pass(g)
	for i := range line {
		n := &line[i]
		if i > 0 {
			for _, name := range append(setupProps, "PL") {
				if pr, ok := n.get(name); ok {
					return nil, p.errAt(pr.pos, "setup property %s after the first node: positions set up mid-game are not supported", name)
				}
			}
		}
		b, hasB := n.get("B")
		w, hasW := n.get("W")
		comment, _, err := one(n, "C")
		if err != nil {
			return nil, err
		}
		if hasB && hasW {
			return nil, p.errAt(w.pos, "node holds both B and W: want one move a node")
		}
		if !hasB && !hasW {
			if i == 0 {
				rec.Comment = comment
			}
			continue
		}
		mv, color := b, 0
		if hasW {
			mv, color = w, 1
		}
		if len(mv.values) != 1 {
			return nil, p.errAt(mv.pos, "move %s has %d values, want one", mv.name, len(mv.values))
		}
		a, err := p.action(mv, size, gm, ps)
		if err != nil {
			return nil, err
		}
		num := len(rec.Moves) + 1
		if s.IsTerminal() {
			return nil, p.errAt(mv.pos, "move %d %s[%s]: the game is already over", num, mv.name, mv.values[0])
		}
		if color != s.CurrentPlayer() && gm == GMOthello && s.IsLegal(ps) && !hasOtherMove(s, ps) {
			// A forced pass the file left out.
			rec.Moves = append(rec.Moves, Move{Color: s.CurrentPlayer(), Action: ps})
			s.ApplyAction(ps)
			num++
		}
		if color != s.CurrentPlayer() {
			return nil, p.errAt(mv.pos, "move %d %s[%s]: %s to move", num, mv.name, mv.values[0], colorName(s.CurrentPlayer()))
		}
		if err := games.Play(s, a); err != nil {
			return nil, p.errAt(mv.pos, "move %d %s[%s]: %v", num, mv.name, mv.values[0], err)
		}
		m := Move{Color: color, Action: a, Comment: comment}
		if v, rest, ok := splitValue(comment); ok {
			m.Value, m.HasValue, m.Comment = v, true, rest
		}
		rec.Moves = append(rec.Moves, m)
	}
	return rec, nil
}

// hasOtherMove reports whether s has a legal action besides pass.
func hasOtherMove(s games.State, pass int) bool {
	for _, a := range s.LegalActions(nil) {
		if a != pass {
			return true
		}
	}
	return false
}

// action reads a move's point.
func (p *parser) action(mv property, size, gm, passAction int) (int, error) {
	v := mv.values[0]
	if v == "" || (gm == GMGo && v == "tt" && size <= 19) {
		return passAction, nil
	}
	if len(v) != 2 {
		return 0, p.errAt(mv.pos, "%s[%s]: want a point of two letters such as %s[cd], or %s[] for a pass", mv.name, clip(v), mv.name, mv.name)
	}
	col, row := int(v[0])-'a', int(v[1])-'a'
	if col < 0 || col >= size || row < 0 || row >= size {
		return 0, p.errAt(mv.pos, "%s[%s]: the point is off the %dx%d board", mv.name, v, size, size)
	}
	return row*size + col, nil
}

// setup reads the root's setup stones: in Go any position (a handicap, or
// a position as GNU Go's printsgf writes it), into rec; in Othello at most
// the initial position's own discs.
func (p *parser) setup(root *node, g games.Game, rec *Record) error {
	size := 0
	switch gg := g.(type) {
	case *gogame.Game:
		size = gg.Size()
	case *othello.Game:
		size = gg.Size()
	}
	for _, name := range setupProps {
		pr, ok := root.get(name)
		if !ok {
			continue
		}
		if name == "AE" {
			return p.errAt(pr.pos, "setup property AE: clearing points is not supported (the board starts empty)")
		}
		var pts []int
		seen := map[int]bool{}
		for _, v := range pr.values {
			if len(v) != 2 || v[0] < 'a' || v[1] < 'a' || int(v[0])-'a' >= size || int(v[1])-'a' >= size {
				return p.errAt(pr.pos, "%s[%s]: want a point of two letters on the %dx%d board", name, clip(v), size, size)
			}
			a := (int(v[1])-'a')*size + int(v[0]) - 'a'
			if seen[a] {
				return p.errAt(pr.pos, "%s[%s]: the point is listed twice", name, v)
			}
			seen[a] = true
			pts = append(pts, a)
		}
		if og, ok := g.(*othello.Game); ok {
			black, white := og.NewInitialState().(*othello.State).Discs()
			want := black
			if name == "AW" {
				want = white
			}
			var got uint64
			for _, a := range pts {
				got |= 1 << uint(a/size*8+a%size) // the 8-wide layout of Discs
			}
			if got != want {
				return p.errAt(pr.pos, "setup property %s: the discs are not those of the initial position (other setups are not supported)", name)
			}
			continue
		}
		if name == "AB" {
			rec.SetupBlack = pts
		} else {
			rec.SetupWhite = pts
		}
	}
	for _, a := range rec.SetupBlack {
		for _, b := range rec.SetupWhite {
			if a == b {
				return p.errAt(root.pos, "setup: point %s holds a black and a white stone", point(a, size))
			}
		}
	}
	return nil
}
