package chess

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseFEN reads a position in Forsyth-Edwards Notation. The two clocks may
// be left out (as in EPD and the usual perft lists): they default to 0 and
// 1. The parser is strict: an error names the field and what is wrong with
// it, and positions that break the rules are refused (not one king per
// side, pawns on the first or last rank, the side not to move in check, a
// castling right without its king and rook at home, an en passant target
// without the pawn that skipped it).
func ParseFEN(fen string) (Position, error) {
	initTables()
	var p Position
	fields := strings.Fields(fen)
	if len(fields) != 4 && len(fields) != 6 {
		return p, fmt.Errorf("fen %q: %d fields, want 6 (placement, side, castling, en passant, halfmove clock, fullmove number) or the first 4", fen, len(fields))
	}
	errf := func(format string, args ...any) (Position, error) {
		return Position{}, fmt.Errorf("fen %q: %s", fen, fmt.Sprintf(format, args...))
	}
	p.ep = NoSquare
	rows := strings.Split(fields[0], "/")
	if len(rows) != 8 {
		return errf("placement has %d ranks, want 8", len(rows))
	}
	for i, row := range rows {
		rank := 7 - i
		file := 0
		for _, c := range row {
			switch {
			case c >= '1' && c <= '8':
				file += int(c - '0')
			case strings.ContainsRune(pieceLetters[1:], c):
				if file > 7 {
					return errf("rank %d has more than 8 squares", rank+1)
				}
				p.put(Piece(strings.IndexRune(pieceLetters, c)), squareAt(file, rank))
				file++
			default:
				return errf("rank %d: %q is neither a piece letter (PNBRQK, pnbrqk) nor a digit 1-8", rank+1, c)
			}
		}
		if file != 8 {
			return errf("rank %d has %d squares, want 8", rank+1, file)
		}
	}
	for _, c := range [2]Color{White, Black} {
		name := [2]string{"white", "black"}[c]
		if n := p.pieces(c, King).count(); n != 1 {
			return errf("%d %s kings, want 1", n, name)
		}
		if n := p.pieces(c, Pawn).count(); n > 8 {
			return errf("%d %s pawns, want at most 8", n, name)
		}
		if n := p.byColor[c].count(); n > 16 {
			return errf("%d %s pieces, want at most 16", n, name)
		}
	}
	if p.byType[Pawn]&(rank1|rank8) != 0 {
		return errf("a pawn on the first or last rank")
	}
	switch fields[1] {
	case "w":
		p.side = White
	case "b":
		p.side = Black
		p.hash ^= zobristSide
	default:
		return errf("side to move %q, want w or b", fields[1])
	}
	if fields[2] != "-" {
		for _, c := range fields[2] {
			var right uint8
			var king, rook Square
			var col Color
			switch c {
			case 'K':
				right, king, rook, col = castleWK, 4, 7, White
			case 'Q':
				right, king, rook, col = castleWQ, 4, 0, White
			case 'k':
				right, king, rook, col = castleBK, 60, 63, Black
			case 'q':
				right, king, rook, col = castleBQ, 60, 56, Black
			default:
				return errf("castling %q: %q is not one of KQkq", fields[2], c)
			}
			if p.castling&right != 0 {
				return errf("castling %q: %q given twice", fields[2], c)
			}
			if p.board[king] != makePiece(col, King) || p.board[rook] != makePiece(col, Rook) {
				return errf("castling right %c without the king on %v and the rook on %v", c, king, rook)
			}
			p.castling |= right
		}
		if fields[2] != castlingString(p.castling) {
			return errf("castling %q is out of order, want %q", fields[2], castlingString(p.castling))
		}
	}
	p.hash ^= zobristCastling[p.castling]
	if fields[3] != "-" {
		t, ok := parseSquare(fields[3])
		if !ok {
			return errf("en passant target %q is not a square", fields[3])
		}
		wantRank, pawnSq, from := 5, t-8, t+8
		if p.side == Black {
			wantRank, pawnSq, from = 2, t+8, t-8
		}
		if t.Rank() != wantRank {
			return errf("en passant target %v is not on rank %d", t, wantRank+1)
		}
		if p.board[pawnSq] != makePiece(p.side^1, Pawn) || p.board[t] != NoPiece || p.board[from] != NoPiece {
			return errf("en passant target %v without a pawn that just moved two squares past it", t)
		}
		// The target is kept only when a capture there is legal, so that
		// equal positions have equal hashes and FEN.
		if p.epLegal(t) {
			p.ep = t
			p.hash ^= zobristEP[t.File()]
		}
	}
	p.fullmove = 1
	if len(fields) == 6 {
		h, err := strconv.Atoi(fields[4])
		if err != nil || h < 0 || h > 1000 || fields[4] != strconv.Itoa(h) {
			return errf("halfmove clock %q, want an integer 0-1000", fields[4])
		}
		f, err := strconv.Atoi(fields[5])
		if err != nil || f < 1 || f > 100000 || fields[5] != strconv.Itoa(f) {
			return errf("fullmove number %q, want an integer 1-100000", fields[5])
		}
		p.halfmove, p.fullmove = uint16(h), uint32(f)
	}
	if p.attackersTo(p.kingSquare(p.side^1), p.occupied())&p.byColor[p.side] != 0 {
		return errf("the side not to move is in check")
	}
	return p, nil
}

// MustParseFEN is ParseFEN for constants known to be valid; it panics on
// an error.
func MustParseFEN(fen string) Position {
	p, err := ParseFEN(fen)
	if err != nil {
		panic(err)
	}
	return p
}

func parseSquare(s string) (Square, bool) {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' {
		return NoSquare, false
	}
	return squareAt(int(s[0]-'a'), int(s[1]-'1')), true
}

func castlingString(c uint8) string {
	if c == 0 {
		return "-"
	}
	var b []byte
	for i, l := range "KQkq" {
		if c&(1<<i) != 0 {
			b = append(b, byte(l))
		}
	}
	return string(b)
}

// FEN writes the position in Forsyth-Edwards Notation. The en passant
// field names the target only when an en passant capture is legal.
func (p *Position) FEN() string {
	var b strings.Builder
	for rank := 7; rank >= 0; rank-- {
		empty := 0
		for file := 0; file < 8; file++ {
			pc := p.board[squareAt(file, rank)]
			if pc == NoPiece {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteByte(pieceLetters[pc])
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if rank > 0 {
			b.WriteByte('/')
		}
	}
	fmt.Fprintf(&b, " %c %s %v %d %d", "wb"[p.side], castlingString(p.castling), p.ep, p.halfmove, p.fullmove)
	return b.String()
}
