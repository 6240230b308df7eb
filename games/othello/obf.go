package othello

import (
	"fmt"
	"strconv"
	"strings"
)

// MoveScore is one move of an FFO .obf line with its exact score.
type MoveScore struct {
	Square int // 0..63, row*8+col (a1 = 0); 64 for a pass
	Score  int // final disc differential for the side to move after this move
}

// Position is one line of an FFO .obf file: an 8x8 position with the side to
// move and, where given, the exact score of the listed moves, best first.
type Position struct {
	Black, White uint64 // 8-wide layout, a1 = bit 0
	Player       int    // Black or White to move
	Moves        []MoveScore
}

// Boards returns the discs of the side to move and of the other side.
func (p Position) Boards() (mover, opponent uint64) {
	if p.Player == Black {
		return p.Black, p.White
	}
	return p.White, p.Black
}

// Best returns the best score listed, and false when none is listed.
func (p Position) Best() (int, bool) {
	if len(p.Moves) == 0 {
		return 0, false
	}
	best := p.Moves[0].Score
	for _, m := range p.Moves[1:] {
		best = max(best, m.Score)
	}
	return best, true
}

// ParseOBF reads one line of the FFO .obf format: 64 characters for a1..h8
// row by row ('X' or '*' black, 'O' white, '-' empty), the side to move ('X'
// or 'O'), then optional "; MOVE:+score" entries (a move "PS" or "--" is a
// pass). Scores are exact final disc differentials for the side to move,
// with empty squares given to the winner.
func ParseOBF(line string) (Position, error) {
	var p Position
	fields := strings.Split(strings.TrimSpace(line), ";")
	head := strings.Fields(fields[0])
	if len(head) != 2 {
		return p, fmt.Errorf("obf line %q: want 64 squares, a space and the side to move", clip(line))
	}
	board, side := head[0], head[1]
	if len(board) != 64 {
		return p, fmt.Errorf("obf line %q: board has %d characters, want 64", clip(line), len(board))
	}
	for i := 0; i < 64; i++ {
		switch board[i] {
		case 'X', 'x', '*':
			p.Black |= 1 << uint(i)
		case 'O', 'o':
			p.White |= 1 << uint(i)
		case '-', '.':
		default:
			return p, fmt.Errorf("obf line %q: square %d is %q, want X, O or -", clip(line), i, board[i])
		}
	}
	switch side {
	case "X", "x", "*":
		p.Player = Black
	case "O", "o":
		p.Player = White
	default:
		return p, fmt.Errorf("obf line %q: side to move %q, want X or O", clip(line), side)
	}
	for _, f := range fields[1:] {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		mv, sc, ok := strings.Cut(f, ":")
		if !ok {
			return p, fmt.Errorf("obf line %q: entry %q is not MOVE:score", clip(line), f)
		}
		sq, err := parseOBFSquare(strings.TrimSpace(mv))
		if err != nil {
			return p, fmt.Errorf("obf line %q: %w", clip(line), err)
		}
		score, err := strconv.Atoi(strings.TrimSpace(sc))
		if err != nil || score < -64 || score > 64 {
			return p, fmt.Errorf("obf line %q: score %q is not an integer in [-64, 64]", clip(line), sc)
		}
		p.Moves = append(p.Moves, MoveScore{Square: sq, Score: score})
	}
	return p, nil
}

func parseOBFSquare(s string) (int, error) {
	if strings.EqualFold(s, "ps") || s == "--" || strings.EqualFold(s, "pass") {
		return 64, nil
	}
	if len(s) != 2 {
		return 0, fmt.Errorf("move %q is not a square like G8", s)
	}
	c, r := int(s[0]|0x20)-'a', int(s[1])-'1'
	if c < 0 || c >= 8 || r < 0 || r >= 8 {
		return 0, fmt.Errorf("move %q is not a square a1..h8", s)
	}
	return r*8 + c, nil
}

// clip shortens text for an error message.
func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "..."
	}
	return s
}
