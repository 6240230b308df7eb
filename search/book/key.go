// Package book reads, writes and builds chess opening books in Polyglot's
// .bin format, the format chess GUIs and engines share: 16-byte entries
// (key, move, weight, learn), integers big-endian, sorted by key, where the
// key is the Zobrist hash of the position with Polyglot's published table of
// 781 random numbers (random64.go). Key and KeyAfter compute the key,
// EncodeMove and DecodeMove convert moves, Book reads a file and answers
// probes, Write and WriteFile write entries, and Build counts the moves of
// PGN games as Polyglot's make-book does.
//
// For other games (Othello first) the package holds game books
// (gamebook.go): positions of any deterministic game of perfect
// information keyed by their hash up to the board's symmetries, in a
// checksummed file of tabula's own, built from played games by Logistello's
// book learning (Learn, learn.go).
package book

import "tabula/games/chess"

// Offsets of the parts of random64.
const (
	offCastle    = 768
	offEnPassant = 772
	offTurn      = 780
)

// noFile marks the absence of an en passant file.
const noFile = -1

// Key returns the Polyglot key of p. The format adds the en passant key of
// the file of a pawn that just moved two squares whenever a pawn of the side
// to move stands beside it, legal capture or not; p keeps an en passant
// target only when the capture is legal, so Key differs from the format in
// one case: after a double push whose only neighbouring pawns may not take
// (pinned, or the push gave a discovered check). KeyAfter follows the
// format exactly where the move is known, and Book's probes also try the
// keys of that case.
func Key(p *chess.Position) uint64 {
	ep := noFile
	if t := p.EnPassant(); t != chess.NoSquare {
		ep = t.File()
	}
	return keyOf(p, ep)
}

// KeyAfter plays m, which must be legal, on a copy of before and returns
// the new position with its Polyglot key, the en passant part by the
// format's rule: a pawn of the side to move beside the pawn that moved two
// squares.
func KeyAfter(before *chess.Position, m chess.Move) (chess.Position, uint64) {
	after := *before
	after.Make(m)
	ep := noFile
	if before.PieceAt(m.From()).Type() == chess.Pawn && (m.From()^m.To()) == 16 && besidePawn(&after, m.To()) {
		ep = m.To().File()
	}
	return after, keyOf(&after, ep)
}

// besidePawn reports whether a pawn of the side to move stands on a square
// next to s on the same rank.
func besidePawn(p *chess.Position, s chess.Square) bool {
	us := p.SideToMove()
	for _, df := range []int{-1, 1} {
		f := s.File() + df
		if f < 0 || f > 7 {
			continue
		}
		pc := p.PieceAt(chess.Square(s.Rank()*8 + f))
		if pc != chess.NoPiece && pc.Type() == chess.Pawn && pc.Color() == us {
			return true
		}
	}
	return false
}

// keyOf is the key of p with the en passant part of file ep (noFile: none).
func keyOf(p *chess.Position, ep int) uint64 {
	var k uint64
	for s := chess.Square(0); s < 64; s++ {
		pc := p.PieceAt(s)
		if pc == chess.NoPiece {
			continue
		}
		kind := 2 * int(pc.Type())
		if pc.Color() == chess.White {
			kind++
		}
		k ^= random64[64*kind+int(s)]
	}
	for i, r := range []struct {
		c        chess.Color
		kingSide bool
	}{{chess.White, true}, {chess.White, false}, {chess.Black, true}, {chess.Black, false}} {
		if p.CanCastle(r.c, r.kingSide) {
			k ^= random64[offCastle+i]
		}
	}
	if ep != noFile {
		k ^= random64[offEnPassant+ep]
	}
	if p.SideToMove() == chess.White {
		k ^= random64[offTurn]
	}
	return k
}

// probeKeys returns Key(p) followed by the keys the format could give p
// when p holds no en passant target although a pawn may just have moved two
// squares beside a pawn of the side to move (the capture being illegal).
// The positions behind these keys have the same legal moves as p.
func probeKeys(p *chess.Position) []uint64 {
	keys := []uint64{Key(p)}
	if p.EnPassant() != chess.NoSquare {
		return keys
	}
	// The pushed pawn stands on rank 5 (White to move) or rank 4, the two
	// squares it crossed are empty.
	rank, dir := 4, 1
	them := chess.Black
	if p.SideToMove() == chess.Black {
		rank, dir, them = 3, -1, chess.White
	}
	for f := 0; f < 8; f++ {
		s := chess.Square(rank*8 + f)
		pc := p.PieceAt(s)
		if pc == chess.NoPiece || pc.Type() != chess.Pawn || pc.Color() != them {
			continue
		}
		skipped := chess.Square((rank+dir)*8 + f)
		origin := chess.Square((rank+2*dir)*8 + f)
		if p.PieceAt(skipped) != chess.NoPiece || p.PieceAt(origin) != chess.NoPiece || !besidePawn(p, s) {
			continue
		}
		keys = append(keys, keyOf(p, f))
	}
	return keys
}

// EncodeMove returns m, legal in p, in Polyglot's encoding: to square in
// bits 0-5, from square in bits 6-11 (each file + 8*row), promotion piece
// in bits 12-14 (1 knight, 2 bishop, 3 rook, 4 queen), castling as the king
// taking its own rook (e1h1, e1a1, e8h8, e8a8).
func EncodeMove(p *chess.Position, m chess.Move) uint16 {
	from, to := m.From(), m.To()
	if p.PieceAt(from).Type() == chess.King {
		switch {
		case to == from+2:
			to = from + 3
		case from == to+2:
			to = from - 4
		}
	}
	return uint16(to) | uint16(from)<<6 | uint16(m.Promotion())<<12
}

// DecodeMove returns the legal move of p that Polyglot's code pm stands
// for, or false when pm is no legal move there.
func DecodeMove(p *chess.Position, pm uint16) (chess.Move, bool) {
	from, to := chess.Square(pm>>6&63), chess.Square(pm&63)
	promo := chess.PieceType(pm >> 12 & 7)
	if promo > chess.Queen {
		return 0, false
	}
	if pc := p.PieceAt(from); pc.Type() == chess.King {
		if rook := p.PieceAt(to); rook != chess.NoPiece && rook.Type() == chess.Rook && rook.Color() == pc.Color() {
			switch {
			case to == from+3:
				to = from + 2
			case from == to+4:
				to = from - 2
			}
		}
	}
	m := chess.NewMove(from, to, promo)
	var ml chess.MoveList
	p.LegalMoves(&ml)
	for _, lm := range ml.Slice() {
		if lm == m {
			return m, true
		}
	}
	return 0, false
}
