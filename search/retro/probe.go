package retro

import (
	"tabula/games"
	"tabula/games/chess"
)

// Tables is a set of chess tables by material signature. Its Probe method
// makes it a search.Oracle.
type Tables struct {
	bySig map[string]*Table
}

// NewTables returns an empty set.
func NewTables() *Tables { return &Tables{bySig: map[string]*Table{}} }

// Add puts t in the set, replacing a table of the same material.
func (ts *Tables) Add(t *Table) { ts.bySig[t.Material] = t }

// Get returns the table of a material signature.
func (ts *Tables) Get(sig string) (*Table, bool) {
	t, ok := ts.bySig[sig]
	return t, ok
}

// Materials lists the signatures in the set.
func (ts *Tables) Materials() []string {
	var out []string
	for s := range ts.bySig {
		out = append(out, s)
	}
	return out
}

// ProbePosition returns the value of p for the side to move when a table of
// its material is in the set. A position with pawns or pieces on both sides,
// or with castling rights, is not covered.
func (ts *Tables) ProbePosition(p *chess.Position) (Value, bool) {
	var kings [2]chess.Square
	var owner chess.Color
	var pieces [maxPieces]chess.PieceType
	var squares [maxPieces]chess.Square
	n, owners := 0, 0
	for s := chess.Square(0); s < 64; s++ {
		pc := p.PieceAt(s)
		if pc == chess.NoPiece {
			continue
		}
		if pc.Type() == chess.King {
			kings[pc.Color()] = s
			continue
		}
		if n == maxPieces {
			return Illegal, false
		}
		if n == 0 {
			owner = pc.Color()
		}
		if pc.Color() != owner {
			return Illegal, false
		}
		pieces[n], squares[n] = pc.Type(), s
		n++
		owners = 1
	}
	if owners == 0 {
		return Draw, true
	}
	side := p.SideToMove()
	wk, bk := kings[chess.White], kings[chess.Black]
	if owner == chess.Black {
		// Swap colours: mirror the ranks.
		wk, bk = kings[chess.Black]^56, kings[chess.White]^56
		for j := range n {
			squares[j] ^= 56
		}
		side ^= 1
	}
	t, ok := ts.bySig[Signature(pieces[:n])]
	if !ok {
		return Illegal, false
	}
	var ordered [maxPieces]chess.Square
	var used [maxPieces]bool
	k := 0
	for _, pt := range t.ix.pieces {
		for j := range n {
			if pieces[j] == pt && !used[j] {
				ordered[k], used[j] = squares[j], true
				k++
				break
			}
		}
	}
	v := t.Lookup(side, wk, bk, ordered[:n])
	return v, v != Illegal
}

// Probe returns the exact result of a chess state for the player to move
// (outcome +1, 0 or -1, and the plies to mate), when a table covers it and
// its halfmove clock leaves room for the mate before the 50-move rule.
func (ts *Tables) Probe(st games.State) (outcome, plies int, ok bool) {
	cs, isChess := st.(*chess.State)
	if !isChess {
		return 0, 0, false
	}
	p := cs.Position()
	v, ok := ts.ProbePosition(&p)
	if !ok {
		return 0, 0, false
	}
	if v.Outcome() != 0 && p.HalfmoveClock()+v.Plies() > 100 {
		return 0, 0, false
	}
	return v.Outcome(), v.Plies(), true
}

// MaxMen is the most men (kings included) on the board of a position the
// set covers: 5 with KBNK, 0 for an empty set.
func (ts *Tables) MaxMen() int {
	most := 0
	for _, t := range ts.bySig {
		most = max(most, len(t.ix.pieces)+2)
	}
	return most
}
