package chess

import (
	"fmt"
	"strings"

	"tabula/games"
)

const sanPieces = "PNBRQK"

// SAN writes legal move m in standard algebraic notation: the piece letter
// (none for pawns), the file, rank or both of the origin when another piece
// of the same kind could reach the same square, "x" for a capture, the
// destination, "=Q" for a promotion, "O-O"/"O-O-O" for castling, and "+"
// for check or "#" for mate.
func (p *Position) SAN(m Move) string {
	var b strings.Builder
	from, to := m.From(), m.To()
	pc := p.board[from]
	switch {
	case pc.Type() == King && int(to)-int(from) == 2:
		b.WriteString("O-O")
	case pc.Type() == King && int(from)-int(to) == 2:
		b.WriteString("O-O-O")
	default:
		capture := p.board[to] != NoPiece || (pc.Type() == Pawn && from.File() != to.File())
		if pc.Type() == Pawn {
			if capture {
				b.WriteByte(byte('a' + from.File()))
			}
		} else {
			b.WriteByte(sanPieces[pc.Type()])
			var ml MoveList
			p.LegalMoves(&ml)
			ambiguous, sameFile, sameRank := false, false, false
			for _, o := range ml.Slice() {
				if o.To() != to || o.From() == from || p.board[o.From()] != pc {
					continue
				}
				ambiguous = true
				sameFile = sameFile || o.From().File() == from.File()
				sameRank = sameRank || o.From().Rank() == from.Rank()
			}
			if ambiguous {
				if !sameFile {
					b.WriteByte(byte('a' + from.File()))
				} else if !sameRank {
					b.WriteByte(byte('1' + from.Rank()))
				} else {
					b.WriteString(from.String())
				}
			}
		}
		if capture {
			b.WriteByte('x')
		}
		b.WriteString(to.String())
		if pr := m.Promotion(); pr != 0 {
			b.WriteByte('=')
			b.WriteByte(sanPieces[pr])
		}
	}
	child := *p
	child.Make(m)
	if child.InCheck() {
		var ml MoveList
		child.LegalMoves(&ml)
		if ml.N == 0 {
			b.WriteByte('#')
		} else {
			b.WriteByte('+')
		}
	}
	return b.String()
}

// ParseSAN reads a move in standard algebraic notation and returns it if
// it is legal in p. It accepts the usual variants: check and annotation
// marks (+, #, !, ?) are ignored, castling may be written with zeros
// (0-0), the promotion sign "=" may be left out, and a capture's "x" may be
// missing. A well-formed move that is not legal, or that names more than
// one legal move, gives an error wrapping games.ErrIllegalMove.
func (p *Position) ParseSAN(text string) (Move, error) {
	s := strings.TrimRight(strings.TrimSpace(text), "+#!?")
	if s == "" {
		return 0, fmt.Errorf("san move %q: empty", text)
	}
	var ml MoveList
	p.LegalMoves(&ml)
	castle := func(kingSide bool) (Move, error) {
		for _, m := range ml.Slice() {
			if p.board[m.From()].Type() == King && (int(m.To())-int(m.From()) == 2) == kingSide && absInt(int(m.To())-int(m.From())) == 2 {
				return m, nil
			}
		}
		return 0, fmt.Errorf("%w: %s: castling is not legal here", games.ErrIllegalMove, text)
	}
	switch s {
	case "O-O", "0-0":
		return castle(true)
	case "O-O-O", "0-0-0":
		return castle(false)
	}
	piece := Pawn
	if i := strings.IndexByte("NBRQK", s[0]); i >= 0 {
		piece = PieceType(i + 1)
		s = s[1:]
	}
	var promo PieceType
	if n := len(s); n >= 2 && strings.IndexByte("NBRQnbrq", s[n-1]) >= 0 && (s[n-2] == '=' || s[n-2] >= '1' && s[n-2] <= '8') {
		promo = PieceType(strings.IndexByte("NBRQ", s[n-1]&^0x20) + 1)
		s = strings.TrimSuffix(s[:n-1], "=")
	}
	if len(s) < 2 {
		return 0, fmt.Errorf("san move %q: no destination square", text)
	}
	to, ok := parseSquare(s[len(s)-2:])
	if !ok {
		return 0, fmt.Errorf("san move %q: %q is not a destination square", text, s[len(s)-2:])
	}
	s = strings.TrimSuffix(s[:len(s)-2], "x")
	fromFile, fromRank := -1, -1
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'h' && fromFile < 0 && fromRank < 0:
			fromFile = int(c - 'a')
		case c >= '1' && c <= '8' && fromRank < 0:
			fromRank = int(c - '1')
		default:
			return 0, fmt.Errorf("san move %q: cannot read %q before the destination", text, s)
		}
	}
	if promo != 0 && piece != Pawn {
		return 0, fmt.Errorf("san move %q: only a pawn promotes", text)
	}
	var found Move
	n := 0
	for _, m := range ml.Slice() {
		pc := p.board[m.From()]
		if m.To() != to || pc.Type() != piece || m.Promotion() != promo ||
			fromFile >= 0 && m.From().File() != fromFile || fromRank >= 0 && m.From().Rank() != fromRank {
			continue
		}
		if piece == Pawn && fromFile < 0 && m.From().File() != to.File() {
			continue // a pawn capture names its file
		}
		found = m
		n++
	}
	switch {
	case n == 1:
		return found, nil
	case n > 1:
		return 0, fmt.Errorf("%w: %s is ambiguous here", games.ErrIllegalMove, text)
	case piece == Pawn && promo == 0 && bb(to)&(rank1|rank8) != 0:
		return 0, fmt.Errorf("%w: %s: a pawn reaching the last rank must promote (e.g. %s=Q)", games.ErrIllegalMove, text, strings.TrimRight(text, "+#!?"))
	}
	return 0, fmt.Errorf("%w: %s is not legal here", games.ErrIllegalMove, text)
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
