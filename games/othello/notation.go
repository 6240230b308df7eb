package othello

import (
	"fmt"
	"strings"
)

// PassText is how FormatAction writes PASS. ParseAction also accepts "ps"
// and "--", in any case.
const PassText = "pass"

// FormatAction writes action a as column letter and row number ("f5"), or
// "pass".
func (g *Game) FormatAction(a int) string {
	if a == g.pass {
		return PassText
	}
	if a < 0 || a > g.pass {
		return fmt.Sprintf("#%d", a)
	}
	return string([]byte{byte('a' + a%g.size), byte('1' + a/g.size)})
}

// ParseAction reads one move: a column letter (either case) and a row
// number, or "pass" ("ps", "--"). It checks syntax and range, not legality.
func (g *Game) ParseAction(text string) (int, error) {
	t := strings.TrimSpace(text)
	a, n, err := g.scanAction(t)
	if err != nil {
		return 0, err
	}
	if n != len(t) {
		return 0, fmt.Errorf("othello move %q: unexpected text after %q", text, t[:n])
	}
	return a, nil
}

// scanAction reads one move at the start of t and returns it and the number
// of bytes it took.
func (g *Game) scanAction(t string) (action, n int, err error) {
	if len(t) > 8 {
		t = t[:8] // keeps errors short; a move is at most 4 bytes
	}
	if t == "" {
		return 0, 0, fmt.Errorf("othello move: empty text")
	}
	for _, p := range []string{"pass", "ps", "--"} {
		if len(t) >= len(p) && strings.EqualFold(t[:len(p)], p) {
			return g.pass, len(p), nil
		}
	}
	if len(t) < 2 {
		return 0, 0, fmt.Errorf("othello move at %q: want a column letter and a row number (e.g. f5) or pass", t)
	}
	col := int(t[0]|0x20) - 'a'
	row := int(t[1]) - '1'
	last := byte('a' + g.size - 1)
	if col < 0 || col >= g.size {
		return 0, 0, fmt.Errorf("othello move at %q: column %q is not in a..%c", t, t[0], last)
	}
	if row < 0 || row >= g.size {
		return 0, 0, fmt.Errorf("othello move at %q: row %q is not in 1..%d", t, t[1], g.size)
	}
	return row*g.size + col, 2, nil
}

// FormatActions concatenates the moves ("f5d6c3", a pass as "pass").
func (g *Game) FormatActions(actions []int) string {
	var b strings.Builder
	for _, a := range actions {
		b.WriteString(g.FormatAction(a))
	}
	return b.String()
}

// ParseActions reads a move sequence, concatenated ("f5d6c3") or separated
// by spaces or commas ("F5 D6 pass"). It checks syntax, not legality.
func (g *Game) ParseActions(text string) ([]int, error) {
	var out []int
	i := 0
	for i < len(text) {
		switch text[i] {
		case ' ', '\t', '\n', '\r', ',':
			i++
			continue
		}
		a, n, err := g.scanAction(text[i:])
		if err != nil {
			return nil, fmt.Errorf("move %d at byte %d: %w", len(out)+1, i, err)
		}
		out = append(out, a)
		i += n
	}
	return out, nil
}
