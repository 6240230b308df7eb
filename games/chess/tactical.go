package chess

// seeValue is each piece type's worth in centipawns for static exchange
// evaluation and capture ordering (the king's is larger than any exchange).
var seeValue = [7]int{Pawn: 100, Knight: 320, Bishop: 330, Rook: 500, Queen: 900, King: 20000, NoPieceType: 0}

// IsCapture reports whether m, legal in p, captures (en passant included).
func (p *Position) IsCapture(m Move) bool {
	to := m.To()
	return p.board[to] != NoPiece || (to == p.ep && p.board[m.From()].Type() == Pawn)
}

// IsNoisy reports whether m, legal in p, captures or promotes: the moves
// quiescence search plays.
func (p *Position) IsNoisy(m Move) bool { return m.Promotion() != 0 || p.IsCapture(m) }

// capturedType returns the type of the piece m captures, Pawn for en
// passant, NoPieceType for a quiet move.
func (p *Position) capturedType(m Move) PieceType {
	to := m.To()
	if pc := p.board[to]; pc != NoPiece {
		return pc.Type()
	}
	if to == p.ep && p.board[m.From()].Type() == Pawn {
		return Pawn
	}
	return NoPieceType
}

// MVVLVA scores m for move ordering: most valuable victim first, then least
// valuable attacker; a promotion counts its new piece as a victim. Quiet
// moves score 0, every capture or promotion more.
func (p *Position) MVVLVA(m Move) int {
	victim := seeValue[p.capturedType(m)]
	if pr := m.Promotion(); pr != 0 {
		victim += seeValue[pr] - seeValue[Pawn]
	}
	if victim == 0 {
		return 0
	}
	return 64*victim - int(p.board[m.From()].Type()) + 8
}

// SEE returns the static exchange evaluation of m, legal in p, in
// centipawns: the material the side to move wins on m's destination when
// both sides keep recapturing there with their least valuable piece and
// may stop whenever continuing would lose. Pins are ignored; x-ray
// attackers behind a capturing slider or pawn join in.
func (p *Position) SEE(m Move) int {
	from, to := m.From(), m.To()
	var gain [32]int
	gain[0] = seeValue[p.capturedType(m)]
	attackerValue := seeValue[p.board[from].Type()]
	if pr := m.Promotion(); pr != 0 {
		gain[0] += seeValue[pr] - seeValue[Pawn]
		attackerValue = seeValue[pr]
	}
	occ := p.occupied() &^ bb(from)
	if p.board[to] == NoPiece && to == p.ep && p.board[from].Type() == Pawn {
		occ &^= bb(to ^ 8)
	}
	diag := p.byType[Bishop] | p.byType[Queen]
	orth := p.byType[Rook] | p.byType[Queen]
	attackers := p.attackersTo(to, occ) & occ
	side := p.side ^ 1
	d := 0
	for {
		d++
		gain[d] = attackerValue - gain[d-1]
		if max(-gain[d-1], gain[d]) < 0 || d == len(gain)-1 {
			break
		}
		mine := attackers & p.byColor[side]
		if mine == 0 {
			break
		}
		pt := Pawn
		var fromBB Bitboard
		for ; pt <= King; pt++ {
			if b := mine & p.byType[pt]; b != 0 {
				fromBB = b & -b
				break
			}
		}
		occ &^= fromBB
		if pt == Pawn || pt == Bishop || pt == Queen {
			attackers |= bishopAttacks(to, occ) & diag
		}
		if pt == Rook || pt == Queen {
			attackers |= rookAttacks(to, occ) & orth
		}
		attackers &= occ
		attackerValue = seeValue[pt]
		side ^= 1
	}
	for d--; d > 0; d-- {
		gain[d-1] = -max(-gain[d-1], gain[d])
	}
	return gain[0]
}

// GivesCheck reports whether m, legal in p, puts the opponent in check.
func (p *Position) GivesCheck(m Move) bool {
	c := *p
	c.Make(m)
	return c.InCheck()
}

// HasNonPawnMaterial reports whether the side to move has a knight, bishop,
// rook or queen.
func (p *Position) HasNonPawnMaterial() bool {
	return p.byColor[p.side]&(p.byType[Knight]|p.byType[Bishop]|p.byType[Rook]|p.byType[Queen]) != 0
}

// NoisyMoves fills ml with the legal captures and promotions of p.
func (p *Position) NoisyMoves(ml *MoveList) {
	p.LegalMoves(ml)
	n := 0
	for _, m := range ml.Moves[:ml.N] {
		if p.IsNoisy(m) {
			ml.Moves[n] = m
			n++
		}
	}
	ml.N = n
}

// makeNull passes the move to the other side (a null move, for search):
// the en passant target is cleared and the halfmove clock advances.
func (p *Position) makeNull() {
	if p.ep != NoSquare {
		p.hash ^= zobristEP[p.ep.File()]
		p.ep = NoSquare
	}
	p.halfmove++
	p.hash ^= zobristSide
	if p.side == Black {
		p.fullmove++
	}
	p.side ^= 1
}

// The methods below are the search.Tactical and search.NullMover
// capabilities of State: they speak in actions.

// InCheck reports whether the player to move is in check.
func (s *State) InCheck() bool { return s.pos.InCheck() }

// NoisyActions appends the legal captures and promotions to buf[:0]; none
// once the game is over.
func (s *State) NoisyActions(buf []int) []int {
	buf = buf[:0]
	if s.status != Ongoing {
		return buf
	}
	var ml MoveList
	s.pos.NoisyMoves(&ml)
	for _, m := range ml.Moves[:ml.N] {
		buf = append(buf, ActionOf(m))
	}
	return buf
}

// IsNoisy reports whether legal action a captures or promotes.
func (s *State) IsNoisy(a int) bool { return s.pos.IsNoisy(MoveOf(a)) }

// MVVLVA scores legal action a for move ordering (Position.MVVLVA).
func (s *State) MVVLVA(a int) int { return s.pos.MVVLVA(MoveOf(a)) }

// SEE returns the static exchange evaluation of legal action a in
// centipawns (Position.SEE).
func (s *State) SEE(a int) int { return s.pos.SEE(MoveOf(a)) }

// GivesCheck reports whether legal action a checks the opponent.
func (s *State) GivesCheck(a int) bool { return s.pos.GivesCheck(MoveOf(a)) }

// HasNonPawnMaterial reports whether the player to move has a piece other
// than king and pawns (null-move search is unsafe without one: zugzwang).
func (s *State) HasNonPawnMaterial() bool { return s.pos.HasNonPawnMaterial() }

// Centipawn returns the value of one centipawn in the units of the
// game's Evaluate.
func (s *State) Centipawn() float64 { return evalScale }

// ApplyNullMove passes the move to the opponent, for null-move search. The
// state must be ongoing and its player not in check. Repetitions count
// from the null move on.
func (s *State) ApplyNullMove() {
	s.pos.makeNull()
	s.hist[0] = s.pos.hash
	s.nhist = 1
	s.moves++
	s.update()
}
