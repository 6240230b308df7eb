package chess

// Zobrist keys, drawn from a seeded generator at start-up.
var (
	zobristPiece    [13][64]uint64 // indexed by Piece; row 0 (no piece) unused
	zobristCastling [16]uint64
	zobristEP       [8]uint64
	zobristSide     uint64
	zobristClock    [256]uint64 // State.Hash: the halfmove clock
	zobristRep      [3]uint64   // State.Hash: earlier occurrences of the position
)

func initZobrist() {
	seed := uint64(0x2b1_c4e55)
	for pc := 1; pc < 13; pc++ {
		for s := range zobristPiece[pc] {
			zobristPiece[pc][s] = next(&seed)
		}
	}
	for i := range zobristCastling {
		zobristCastling[i] = next(&seed)
	}
	zobristCastling[0] = 0
	for i := range zobristEP {
		zobristEP[i] = next(&seed)
	}
	zobristSide = next(&seed)
	for i := range zobristClock {
		zobristClock[i] = next(&seed)
	}
	zobristClock[0] = 0
	for i := range zobristRep {
		zobristRep[i] = next(&seed)
	}
	zobristRep[0] = 0
}

// computeHash recomputes the Zobrist hash from scratch (Make updates it
// incrementally; tests compare the two).
func (p *Position) computeHash() uint64 {
	var h uint64
	for s := Square(0); s < 64; s++ {
		if pc := p.board[s]; pc != NoPiece {
			h ^= zobristPiece[pc][s]
		}
	}
	h ^= zobristCastling[p.castling]
	if p.ep != NoSquare {
		h ^= zobristEP[p.ep.File()]
	}
	if p.side == Black {
		h ^= zobristSide
	}
	return h
}

// MoveList is a fixed-capacity list of moves (no legal position has more
// than 218), kept on the stack by move generation.
type MoveList struct {
	Moves [256]Move
	N     int
}

// Slice returns the moves as a slice of the list's array.
func (ml *MoveList) Slice() []Move { return ml.Moves[:ml.N] }

func (ml *MoveList) add(m Move) {
	ml.Moves[ml.N] = m
	ml.N++
}

// addAll adds a move from `from` to every square of targets.
func (ml *MoveList) addAll(from Square, targets Bitboard) {
	for targets != 0 {
		to := targets.popFirst()
		ml.Moves[ml.N] = Move(from) | Move(to)<<6
		ml.N++
	}
}

// addPawnMoves adds pawn moves to every square of targets from the square
// delta behind it, as four promotions when it reaches the last rank.
func (ml *MoveList) addPawnMoves(targets Bitboard, delta int) {
	for t := targets &^ (rank1 | rank8); t != 0; {
		to := t.popFirst()
		ml.Moves[ml.N] = Move(int(to)-delta) | Move(to)<<6
		ml.N++
	}
	for t := targets & (rank1 | rank8); t != 0; {
		to := t.popFirst()
		m := Move(int(to)-delta) | Move(to)<<6
		ml.Moves[ml.N] = m | Move(Queen)<<12
		ml.Moves[ml.N+1] = m | Move(Knight)<<12
		ml.Moves[ml.N+2] = m | Move(Rook)<<12
		ml.Moves[ml.N+3] = m | Move(Bishop)<<12
		ml.N += 4
	}
}

// LegalMoves fills ml with the legal moves of p (ml is reset first). It
// generates legal moves directly: checkers, pinned pieces and the squares
// the king may step to are computed once, so no move is made to test it.
func (p *Position) LegalMoves(ml *MoveList) {
	ml.N = 0
	us, them := p.side, p.side^1
	own, enemy := p.byColor[us], p.byColor[them]
	occ := own | enemy
	ksq := p.kingSquare(us)
	checkers := p.attackersTo(ksq, occ) & enemy

	// King steps: to squares not attacked once the king has left ksq.
	occNoKing := occ &^ bb(ksq)
	for t := kingAttacks[ksq] &^ own; t != 0; {
		to := t.popFirst()
		if p.attackersTo(to, occNoKing)&enemy == 0 {
			ml.Moves[ml.N] = Move(ksq) | Move(to)<<6
			ml.N++
		}
	}
	if checkers&(checkers-1) != 0 {
		return // double check: only the king moves
	}

	pinned, target := p.pinsAndTarget(ksq, own, enemy, checkers)

	// Knights (a pinned knight never moves).
	for b := p.pieces(us, Knight) &^ pinned; b != 0; {
		from := b.popFirst()
		ml.addAll(from, knightAttacks[from]&target)
	}
	// Sliders; pinned ones stay on the line through the king.
	diag := (p.byType[Bishop] | p.byType[Queen]) & own
	for b := diag; b != 0; {
		from := b.popFirst()
		t := bishopAttacks(from, occ) & target
		if pinned&bb(from) != 0 {
			t &= lineThrough[ksq][from]
		}
		ml.addAll(from, t)
	}
	orth := (p.byType[Rook] | p.byType[Queen]) & own
	for b := orth; b != 0; {
		from := b.popFirst()
		t := rookAttacks(from, occ) & target
		if pinned&bb(from) != 0 {
			t &= lineThrough[ksq][from]
		}
		ml.addAll(from, t)
	}

	// Pawns: unpinned ones set-wise, pinned ones one by one.
	pawns := p.pieces(us, Pawn)
	free := pawns &^ pinned
	empty := ^occ
	var push1, push2, capL, capR Bitboard
	var up, left, right int
	if us == White {
		up, left, right = 8, 7, 9
		push1 = free << 8 & empty
		push2 = (push1 & rank3) << 8 & empty
		capL = (free &^ fileA) << 7 & enemy
		capR = (free &^ fileH) << 9 & enemy
	} else {
		up, left, right = -8, -9, -7
		push1 = free >> 8 & empty
		push2 = (push1 & rank6) >> 8 & empty
		capL = (free &^ fileA) >> 9 & enemy
		capR = (free &^ fileH) >> 7 & enemy
	}
	ml.addPawnMoves(push1&target, up)
	ml.addPawnMoves(push2&target, 2*up)
	ml.addPawnMoves(capL&target, left)
	ml.addPawnMoves(capR&target, right)
	if checkers == 0 {
		for b := pawns & pinned; b != 0; {
			from := b.popFirst()
			line := lineThrough[ksq][from]
			one := Square(int(from) + up)
			if empty&bb(one)&line != 0 {
				p.addPawnFrom(ml, from, one)
				if (us == White && from.Rank() == 1 || us == Black && from.Rank() == 6) && empty&bb(Square(int(one)+up)) != 0 {
					ml.add(NewMove(from, Square(int(one)+up), 0))
				}
			}
			for t := pawnAttacks[us][from] & enemy & line; t != 0; {
				p.addPawnFrom(ml, from, t.popFirst())
			}
		}
	}
	// En passant: tested by removing both pawns from the board.
	if p.ep != NoSquare {
		captured := p.ep ^ 8
		for b := pawnAttacks[them][p.ep] & pawns; b != 0; {
			from := b.popFirst()
			o := occ&^bb(from)&^bb(captured) | bb(p.ep)
			if p.attackersTo(ksq, o)&enemy&^bb(captured) == 0 {
				ml.add(NewMove(from, p.ep, 0))
			}
		}
	}

	// Castling: not out of check, through empty squares the enemy does not
	// attack.
	if checkers == 0 && p.castling != 0 {
		var ks, qs uint8 = castleWK, castleWQ
		if us == Black {
			ks, qs = castleBK, castleBQ
		}
		if p.castling&ks != 0 && occ&(bb(ksq+1)|bb(ksq+2)) == 0 &&
			p.attackersTo(ksq+1, occ)&enemy == 0 && p.attackersTo(ksq+2, occ)&enemy == 0 {
			ml.add(NewMove(ksq, ksq+2, 0))
		}
		if p.castling&qs != 0 && occ&(bb(ksq-1)|bb(ksq-2)|bb(ksq-3)) == 0 &&
			p.attackersTo(ksq-1, occ)&enemy == 0 && p.attackersTo(ksq-2, occ)&enemy == 0 {
			ml.add(NewMove(ksq, ksq-2, 0))
		}
	}
}

// pinsAndTarget returns, for the side whose king is on ksq (its pieces own,
// the enemy's enemy, the king's checkers at most one), the pinned pieces
// (ours, alone between the king and an enemy slider) and the squares a
// non-king move must reach: anywhere but our own pieces or, in check, the
// checker or a square between it and the king.
func (p *Position) pinsAndTarget(ksq Square, own, enemy, checkers Bitboard) (pinned, target Bitboard) {
	occ := own | enemy
	snipers := (rookRays[ksq]&(p.byType[Rook]|p.byType[Queen]) |
		bishopRays[ksq]&(p.byType[Bishop]|p.byType[Queen])) & enemy
	for snipers != 0 {
		s := snipers.popFirst()
		b := between[ksq][s] & occ
		if b != 0 && b&(b-1) == 0 {
			pinned |= b & own
		}
	}
	target = ^own
	if checkers != 0 {
		c := checkers.first()
		target = between[ksq][c] | checkers
	}
	return pinned, target
}

// HasLegalMove reports whether the side to move has a legal move: the
// same answer as LegalMoves leaving a non-empty list, found without
// generating the list. It returns at the first knight, slider or unpinned
// pawn move found (by the same rules as LegalMoves), then tries the king's
// steps, and generates the whole list only in a position where none of
// those moves exists (pinned pawns and en passant are left to it).
func (p *Position) HasLegalMove() bool {
	us, them := p.side, p.side^1
	own, enemy := p.byColor[us], p.byColor[them]
	occ := own | enemy
	ksq := p.kingSquare(us)
	checkers := p.attackersTo(ksq, occ) & enemy
	if checkers&(checkers-1) == 0 {
		pinned, target := p.pinsAndTarget(ksq, own, enemy, checkers)
		for b := p.pieces(us, Knight) &^ pinned; b != 0; {
			if knightAttacks[b.popFirst()]&target != 0 {
				return true
			}
		}
		for b := (p.byType[Bishop] | p.byType[Queen]) & own; b != 0; {
			from := b.popFirst()
			t := bishopAttacks(from, occ) & target
			if pinned&bb(from) != 0 {
				t &= lineThrough[ksq][from]
			}
			if t != 0 {
				return true
			}
		}
		for b := (p.byType[Rook] | p.byType[Queen]) & own; b != 0; {
			from := b.popFirst()
			t := rookAttacks(from, occ) & target
			if pinned&bb(from) != 0 {
				t &= lineThrough[ksq][from]
			}
			if t != 0 {
				return true
			}
		}
		free := p.pieces(us, Pawn) &^ pinned
		empty := ^occ
		var push1, push2, capL, capR Bitboard
		if us == White {
			push1 = free << 8 & empty
			push2 = (push1 & rank3) << 8 & empty
			capL = (free &^ fileA) << 7 & enemy
			capR = (free &^ fileH) << 9 & enemy
		} else {
			push1 = free >> 8 & empty
			push2 = (push1 & rank6) >> 8 & empty
			capL = (free &^ fileA) >> 9 & enemy
			capR = (free &^ fileH) >> 7 & enemy
		}
		if (push1|push2|capL|capR)&target != 0 {
			return true
		}
	}
	occNoKing := occ &^ bb(ksq)
	for t := kingAttacks[ksq] &^ own; t != 0; {
		if p.attackersTo(t.popFirst(), occNoKing)&enemy == 0 {
			return true
		}
	}
	var ml MoveList
	p.LegalMoves(&ml)
	return ml.N > 0
}

// addPawnFrom adds a single pawn move, as four promotions on the last rank.
func (p *Position) addPawnFrom(ml *MoveList, from, to Square) {
	if bb(to)&(rank1|rank8) != 0 {
		for _, pt := range [4]PieceType{Queen, Knight, Rook, Bishop} {
			ml.add(NewMove(from, to, pt))
		}
		return
	}
	ml.add(NewMove(from, to, 0))
}

// Perft counts the leaf nodes of the legal move tree of depth plies from p.
// With bulk set, the last ply is counted from the generated list without
// playing its moves (as Stockfish's perft does); without it every leaf is
// made.
func Perft(p *Position, depth int, bulk bool) uint64 {
	if depth == 0 {
		return 1
	}
	var ml MoveList
	p.LegalMoves(&ml)
	if depth == 1 && bulk {
		return uint64(ml.N)
	}
	var n uint64
	var child Position // declared outside the loop so that it stays on the stack
	for _, m := range ml.Moves[:ml.N] {
		child = *p
		child.Make(m)
		n += Perft(&child, depth-1, bulk)
	}
	return n
}

// DivideEntry is one root move of Divide and its subtree's leaf count.
type DivideEntry struct {
	Move  Move
	Nodes uint64
}

// Divide returns perft of depth-1 below each legal root move, the tool for
// finding which move a wrong perft count hides under.
func Divide(p *Position, depth int) []DivideEntry {
	var ml MoveList
	p.LegalMoves(&ml)
	out := make([]DivideEntry, 0, ml.N)
	for _, m := range ml.Slice() {
		child := *p
		child.Make(m)
		out = append(out, DivideEntry{m, Perft(&child, depth-1, true)})
	}
	return out
}
