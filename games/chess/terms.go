package chess

import (
	"fmt"
	"strconv"

	"tabula/games"
)

// The evaluation is linear in its weights once the position is fixed: each
// weight multiplies a count (pieces, mobility squares, doubled pawns, ...)
// taken for the side to move minus the opponent, scaled by the game phase.
// Terms and Features expose that form for tuning: Terms lists the weights a
// tuner fits (material, mobility, pawn structure, king shield, bishop pair
// and tempo); the piece-square tables, phase weights, mobility bases, rook
// file bonuses and king attack stay fixed and make up a per-position offset.

// NumTerms is the number of tuned weights (Weights.Terms).
const NumTerms = 5 + 5 + 4 + 4 + 2 + 2 + 6 + 6 + 2 + 2 + 1

// term indices: where each group of weights starts in the Terms vector.
const (
	tMGValue    = 0  // pawn..queen
	tEGValue    = 5  // pawn..queen
	tMobilityMG = 10 // knight, bishop, rook, queen
	tMobilityEG = 14
	tDoubled    = 18 // mg, eg
	tIsolated   = 20 // mg, eg
	tPassedMG   = 22 // ranks 1..6 counted from the pawn's own side
	tPassedEG   = 28
	tShield     = 34 // Shield1, Shield2
	tBishopPair = 36 // mg, eg
	tTempo      = 38
)

var pieceNames = [5]string{"pawn", "knight", "bishop", "rook", "queen"}

// TermNames names the entries of Weights.Terms, in order.
func TermNames() []string {
	names := make([]string, 0, NumTerms)
	for _, ph := range []string{"mg", "eg"} {
		for _, p := range pieceNames {
			names = append(names, "value."+p+"."+ph)
		}
	}
	for _, ph := range []string{"mg", "eg"} {
		for _, p := range pieceNames[1:] {
			names = append(names, "mobility."+p+"."+ph)
		}
	}
	names = append(names, "doubled.mg", "doubled.eg", "isolated.mg", "isolated.eg")
	for _, ph := range []string{"mg", "eg"} {
		for r := 1; r <= 6; r++ {
			names = append(names, "passed.rank"+strconv.Itoa(r+1)+"."+ph)
		}
	}
	return append(names, "shield1", "shield2", "bishoppair.mg", "bishoppair.eg", "tempo")
}

// Terms returns the tuned weights of w as a vector (see TermNames).
// Doubled and isolated pawns are penalties, stored as positive numbers.
func (w *Weights) Terms() []float64 {
	t := make([]float64, NumTerms)
	for i := range 5 {
		t[tMGValue+i] = float64(w.MGValue[i])
		t[tEGValue+i] = float64(w.EGValue[i])
	}
	for i := range 4 {
		t[tMobilityMG+i] = float64(w.MobilityMG[i])
		t[tMobilityEG+i] = float64(w.MobilityEG[i])
	}
	t[tDoubled], t[tDoubled+1] = float64(w.DoubledMG), float64(w.DoubledEG)
	t[tIsolated], t[tIsolated+1] = float64(w.IsolatedMG), float64(w.IsolatedEG)
	for r := 1; r <= 6; r++ {
		t[tPassedMG+r-1] = float64(w.PassedMG[r])
		t[tPassedEG+r-1] = float64(w.PassedEG[r])
	}
	t[tShield], t[tShield+1] = float64(w.Shield1), float64(w.Shield2)
	t[tBishopPair], t[tBishopPair+1] = float64(w.BishopPairMG), float64(w.BishopPairEG)
	t[tTempo] = float64(w.Tempo)
	return t
}

// WithTerms returns a copy of w with its tuned weights replaced by t,
// rounded to whole centipawns.
func (w Weights) WithTerms(t []float64) (Weights, error) {
	if len(t) != NumTerms {
		return w, fmt.Errorf("chess: %d terms, want %d", len(t), NumTerms)
	}
	r := func(x float64) int {
		if x < 0 {
			return int(x - 0.5)
		}
		return int(x + 0.5)
	}
	for i := range 5 {
		w.MGValue[i], w.EGValue[i] = r(t[tMGValue+i]), r(t[tEGValue+i])
	}
	for i := range 4 {
		w.MobilityMG[i], w.MobilityEG[i] = r(t[tMobilityMG+i]), r(t[tMobilityEG+i])
	}
	w.DoubledMG, w.DoubledEG = r(t[tDoubled]), r(t[tDoubled+1])
	w.IsolatedMG, w.IsolatedEG = r(t[tIsolated]), r(t[tIsolated+1])
	for rk := 1; rk <= 6; rk++ {
		w.PassedMG[rk], w.PassedEG[rk] = r(t[tPassedMG+rk-1]), r(t[tPassedEG+rk-1])
	}
	w.Shield1, w.Shield2 = r(t[tShield]), r(t[tShield+1])
	w.BishopPairMG, w.BishopPairEG = r(t[tBishopPair]), r(t[tBishopPair+1])
	w.Tempo = r(t[tTempo])
	return w, nil
}

// Features writes the position's feature vector for the tuned weights into
// f (NumTerms long) and returns the fixed part of the evaluation (the
// piece-square tables under w), so that Evaluate(w) equals
// offset + sum of w.Terms()[i]*f[i] up to the rounding of Evaluate's integer
// arithmetic (less than one centipawn). Both are from the point of view of
// the side to move.
func (p *Position) Features(w *Weights, f []float64) (offset float64) {
	clear(f[:NumTerms])
	// Per colour: counts of the terms, and the table sums.
	var cnt [2][NumTerms]int
	var tabMG, tabEG [2]int
	phase := 0
	occ := p.occupied()
	for c := White; c <= Black; c++ {
		n := &cnt[c]
		own := p.byColor[c]
		flip := Square(56)
		if c == Black {
			flip = 0
		}
		for pt := Pawn; pt <= King; pt++ {
			for b := own & p.byType[pt]; b != 0; {
				s := b.popFirst()
				i := s ^ flip
				tabMG[c] += w.MGTable[pt][i]
				tabEG[c] += w.EGTable[pt][i]
				phase += w.PhaseInc[pt]
				if pt != King {
					n[tMGValue+int(pt)]++
				}
			}
		}
		if (own & p.byType[Bishop]).count() >= 2 {
			n[tBishopPair]++
		}
		safe := ^own &^ pawnAttackSet(p.pieces(c^1, Pawn), c^1)
		ka := p.newKingAttack(c ^ 1)
		for b := own & p.byType[Knight]; b != 0; {
			att := knightAttacks[b.popFirst()]
			n[tMobilityMG+0] += (att & safe).count() - w.MobilityBase[0]
			ka.add(w, att, 0)
		}
		for b := own & p.byType[Bishop]; b != 0; {
			att := bishopAttacks(b.popFirst(), occ)
			n[tMobilityMG+1] += (att & safe).count() - w.MobilityBase[1]
			ka.add(w, att, 1)
		}
		for b := own & p.byType[Rook]; b != 0; {
			s := b.popFirst()
			att := rookAttacks(s, occ)
			n[tMobilityMG+2] += (att & safe).count() - w.MobilityBase[2]
			ka.add(w, att, 2)
			rmg, reg := p.rookFile(w, s, own)
			tabMG[c] += rmg
			tabEG[c] += reg
		}
		for b := own & p.byType[Queen]; b != 0; {
			s := b.popFirst()
			att := rookAttacks(s, occ) | bishopAttacks(s, occ)
			n[tMobilityMG+3] += (att & safe).count() - w.MobilityBase[3]
			ka.add(w, att, 3)
		}
		tabMG[c^1] -= ka.penalty(w)
		pawns := p.pieces(c, Pawn)
		enemyPawns := p.pieces(c^1, Pawn)
		for fl := 0; fl < 8; fl++ {
			k := (pawns & fileMask[fl]).count()
			if k == 0 {
				continue
			}
			if k > 1 {
				n[tDoubled] -= k - 1
			}
			if pawns&adjacentMask[fl] == 0 {
				n[tIsolated] -= k
			}
		}
		for b := pawns; b != 0; {
			s := b.popFirst()
			if passedMask[c][s]&enemyPawns == 0 {
				r := s.Rank()
				if c == Black {
					r = 7 - r
				}
				if r >= 1 && r <= 6 {
					n[tPassedMG+r-1]++
				}
			}
		}
		near, far := p.shieldPawns(c, pawns)
		n[tShield] += near
		n[tShield+1] += far
	}
	us, them := p.side, p.side^1
	phase = min(phase, w.MaxPhase)
	mgShare := float64(phase) / float64(w.MaxPhase)
	egShare := 1 - mgShare
	diff := func(i int) float64 { return float64(cnt[us][i] - cnt[them][i]) }
	for i := range 5 {
		f[tMGValue+i] = diff(tMGValue+i) * mgShare
		f[tEGValue+i] = diff(tMGValue+i) * egShare
	}
	for i := range 4 {
		f[tMobilityMG+i] = diff(tMobilityMG+i) * mgShare
		f[tMobilityEG+i] = diff(tMobilityMG+i) * egShare
	}
	f[tDoubled], f[tDoubled+1] = diff(tDoubled)*mgShare, diff(tDoubled)*egShare
	f[tIsolated], f[tIsolated+1] = diff(tIsolated)*mgShare, diff(tIsolated)*egShare
	for i := range 6 {
		f[tPassedMG+i] = diff(tPassedMG+i) * mgShare
		f[tPassedEG+i] = diff(tPassedMG+i) * egShare
	}
	f[tShield], f[tShield+1] = diff(tShield)*mgShare, diff(tShield+1)*mgShare
	f[tBishopPair], f[tBishopPair+1] = diff(tBishopPair)*mgShare, diff(tBishopPair)*egShare
	f[tTempo] = mgShare
	return float64(tabMG[us]-tabMG[them])*mgShare + float64(tabEG[us]-tabEG[them])*egShare
}

// Features is Position.Features for a game state.
func (s *State) Features(w *Weights, f []float64) float64 { return s.pos.Features(w, f) }

// Evaluator is a games.Heuristic scoring chess states with its own
// weights (Game.Evaluate uses DefaultWeights).
type Evaluator struct{ W *Weights }

// Evaluate scores st for the player to move in Game.Evaluate's units.
func (e Evaluator) Evaluate(st games.State) float64 {
	cp := st.(*State).pos.Evaluate(e.W)
	return float64(max(-maxEvalCP, min(maxEvalCP, cp))) * evalScale
}
