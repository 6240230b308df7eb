package chess

import "tabula/games"

// evalScale is the value of one centipawn in Evaluate's units: Evaluate
// returns centipawns times evalScale, kept strictly inside (-1, 1).
const evalScale = 1e-4

// maxEvalCP bounds Evaluate in centipawns, so that its value stays inside
// (-1, 1) as games.Heuristic requires.
const maxEvalCP = 9999

// Weights holds every number of the hand-written evaluation, in centipawns.
// Terms with two values are (middlegame, endgame) pairs, blended by the
// game phase. Piece-square tables are written as published, from White's
// side with a8 first and h1 last; a black piece reads the square mirrored
// top to bottom.
type Weights struct {
	// Material per piece type (the king's is unused).
	MGValue, EGValue [6]int
	// Piece-square tables per piece type.
	MGTable, EGTable [6][64]int
	// PhaseInc is each piece type's share of the game phase: the phase is
	// their sum over the board, capped at MaxPhase (the start position);
	// MaxPhase is the pure middlegame, 0 the pure endgame.
	PhaseInc [6]int
	MaxPhase int
	// Mobility, per knight, bishop, rook and queen: the bonus per square it
	// attacks that holds no piece of its own side and no enemy pawn's
	// attack, beyond MobilityBase squares (fewer is a penalty).
	MobilityMG, MobilityEG [4]int
	MobilityBase           [4]int
	// Pawn structure: penalties per extra pawn on a file (doubled) and per
	// pawn with no friendly pawn on the neighbouring files (isolated), and
	// the bonus for a passed pawn (no enemy pawn ahead on its file or the
	// neighbouring ones) by its rank counted from its own side (0..7).
	DoubledMG, DoubledEG   int
	IsolatedMG, IsolatedEG int
	PassedMG, PassedEG     [8]int
	// King safety, middlegame only: the bonus per own pawn in the three
	// files around a king on its first two ranks, one rank ahead of the
	// king (Shield1) and two ranks ahead (Shield2).
	Shield1, Shield2 int
	// BishopPair is the bonus for holding two bishops or more.
	BishopPairMG, BishopPairEG int
	// Tempo is the bonus of the side to move.
	Tempo int
	// Rooks on files: the bonus per rook on a file with no pawn (open)
	// and on a file with enemy pawns only (half-open).
	RookOpenMG, RookOpenEG         int
	RookHalfOpenMG, RookHalfOpenEG int
	// King attack, middlegame only: each enemy knight, bishop, rook and
	// queen adds KingAttackUnits[piece] per square of the king's zone (the
	// king's square and the squares next to it) that it attacks; with two
	// attackers or more, the king's side loses KingDanger(units)
	// centipawns (see kingDanger).
	KingAttackUnits [4]int
	// KingDangerMax caps the king-attack penalty.
	KingDangerMax int
}

// kingDanger is the king-attack penalty for u attack units: u^2/5 up to 30
// units, then 12 a unit, at most max. Its shape (quadratic, then linear) is
// that of the king-safety table on the Chess Programming Wiki's "King
// Safety" page; the numbers here are round ones, not tuned.
func kingDanger(u, max int) int {
	d := u * u / 5
	if u > 30 {
		d = 180 + 12*(u-30)
	}
	return min(d, max)
}

// kingAttack sums the attacks of one side's pieces on the enemy king's
// zone (the king's square and the squares next to it).
type kingAttack struct {
	zone             Bitboard
	units, attackers int
}

// newKingAttack starts the sum for attacks on c's king.
func (p *Position) newKingAttack(c Color) kingAttack {
	k := p.kingSquare(c)
	return kingAttack{zone: kingAttacks[k] | bb(k)}
}

// add counts a piece of kind i (knight, bishop, rook, queen) attacking att.
func (ka *kingAttack) add(w *Weights, att Bitboard, i int) {
	if z := att & ka.zone; z != 0 {
		ka.units += z.count() * w.KingAttackUnits[i]
		ka.attackers++
	}
}

// penalty is what the attacks cost the king's side in the middlegame.
func (ka *kingAttack) penalty(w *Weights) int {
	if ka.attackers < 2 {
		return 0
	}
	return kingDanger(ka.units, w.KingDangerMax)
}

// rookFile returns the bonus (middlegame, endgame) of a rook of the side
// owning own on square s: open file, half-open file, or none.
func (p *Position) rookFile(w *Weights, s Square, own Bitboard) (mg, eg int) {
	file := fileMask[s.File()] & p.byType[Pawn]
	switch {
	case file == 0:
		return w.RookOpenMG, w.RookOpenEG
	case file&own == 0:
		return w.RookHalfOpenMG, w.RookHalfOpenEG
	}
	return 0, 0
}

// DefaultWeights are the evaluation's weights. Material, the piece-square
// tables and the phase weights are the values of Ronald Friederich's PeSTO
// evaluation as published on the Chess Programming Wiki ("PeSTO's
// Evaluation Function", chessprogramming.org), which were tuned for a
// material-and-tables-only evaluation. The mobility, pawn-structure, king-
// shield, bishop-pair and tempo terms are hand-set round numbers, not
// tuned.
var DefaultWeights = Weights{
	MGValue:  [6]int{82, 337, 365, 477, 1025, 0},
	EGValue:  [6]int{94, 281, 297, 512, 936, 0},
	PhaseInc: [6]int{0, 1, 1, 2, 4, 0},
	MaxPhase: 24,
	MGTable: [6][64]int{
		{ // pawn
			0, 0, 0, 0, 0, 0, 0, 0,
			98, 134, 61, 95, 68, 126, 34, -11,
			-6, 7, 26, 31, 65, 56, 25, -20,
			-14, 13, 6, 21, 23, 12, 17, -23,
			-27, -2, -5, 12, 17, 6, 10, -25,
			-26, -4, -4, -10, 3, 3, 33, -12,
			-35, -1, -20, -23, -15, 24, 38, -22,
			0, 0, 0, 0, 0, 0, 0, 0,
		},
		{ // knight
			-167, -89, -34, -49, 61, -97, -15, -107,
			-73, -41, 72, 36, 23, 62, 7, -17,
			-47, 60, 37, 65, 84, 129, 73, 44,
			-9, 17, 19, 53, 37, 69, 18, 22,
			-13, 4, 16, 13, 28, 19, 21, -8,
			-23, -9, 12, 10, 19, 17, 25, -16,
			-29, -53, -12, -3, -1, 18, -14, -19,
			-105, -21, -58, -33, -17, -28, -19, -23,
		},
		{ // bishop
			-29, 4, -82, -37, -25, -42, 7, -8,
			-26, 16, -18, -13, 30, 59, 18, -47,
			-16, 37, 43, 40, 35, 50, 37, -2,
			-4, 5, 19, 50, 37, 37, 7, -2,
			-6, 13, 13, 26, 34, 12, 10, 4,
			0, 15, 15, 15, 14, 27, 18, 10,
			4, 15, 16, 0, 7, 21, 33, 1,
			-33, -3, -14, -21, -13, -12, -39, -21,
		},
		{ // rook
			32, 42, 32, 51, 63, 9, 31, 43,
			27, 32, 58, 62, 80, 67, 26, 44,
			-5, 19, 26, 36, 17, 45, 61, 16,
			-24, -11, 7, 26, 24, 35, -8, -20,
			-36, -26, -12, -1, 9, -7, 6, -23,
			-45, -25, -16, -17, 3, 0, -5, -33,
			-44, -16, -20, -9, -1, 11, -6, -71,
			-19, -13, 1, 17, 16, 7, -37, -26,
		},
		{ // queen
			-28, 0, 29, 12, 59, 44, 43, 45,
			-24, -39, -5, 1, -16, 57, 28, 54,
			-13, -17, 7, 8, 29, 56, 47, 57,
			-27, -27, -16, -16, -1, 17, -2, 1,
			-9, -26, -9, -10, -2, -4, 3, -3,
			-14, 2, -11, -2, -5, 2, 14, 5,
			-35, -8, 11, 2, 8, 15, -3, 1,
			-1, -18, -9, 10, -15, -25, -31, -50,
		},
		{ // king
			-65, 23, 16, -15, -56, -34, 2, 13,
			29, -1, -20, -7, -8, -4, -38, -29,
			-9, 24, 2, -16, -20, 6, 22, -22,
			-17, -20, -12, -27, -30, -25, -14, -36,
			-49, -1, -27, -39, -46, -44, -33, -51,
			-14, -14, -22, -46, -44, -30, -15, -27,
			1, 7, -8, -64, -43, -16, 9, 8,
			-15, 36, 12, -54, 8, -28, 24, 14,
		},
	},
	EGTable: [6][64]int{
		{ // pawn
			0, 0, 0, 0, 0, 0, 0, 0,
			178, 173, 158, 134, 147, 132, 165, 187,
			94, 100, 85, 67, 56, 53, 82, 84,
			32, 24, 13, 5, -2, 4, 17, 17,
			13, 9, -3, -7, -7, -8, 3, -1,
			4, 7, -6, 1, 0, -5, -1, -8,
			13, 8, 8, 10, 13, 0, 2, -7,
			0, 0, 0, 0, 0, 0, 0, 0,
		},
		{ // knight
			-58, -38, -13, -28, -31, -27, -63, -99,
			-25, -8, -25, -2, -9, -25, -24, -52,
			-24, -20, 10, 9, -1, -9, -19, -41,
			-17, 3, 22, 22, 22, 11, 8, -18,
			-18, -6, 16, 25, 16, 17, 4, -18,
			-23, -3, -1, 15, 10, -3, -20, -22,
			-42, -20, -10, -5, -2, -20, -23, -44,
			-29, -51, -23, -15, -22, -18, -50, -64,
		},
		{ // bishop
			-14, -21, -11, -8, -7, -9, -17, -24,
			-8, -4, 7, -12, -3, -13, -4, -14,
			2, -8, 0, -1, -2, 6, 0, 4,
			-3, 9, 12, 9, 14, 10, 3, 2,
			-6, 3, 13, 19, 7, 10, -3, -9,
			-12, -3, 8, 10, 13, 3, -7, -15,
			-14, -18, -7, -1, 4, -9, -15, -27,
			-23, -9, -23, -5, -9, -16, -5, -17,
		},
		{ // rook
			13, 10, 18, 15, 12, 12, 8, 5,
			11, 13, 13, 11, -3, 3, 8, 3,
			7, 7, 7, 5, 4, -3, -5, -3,
			4, 3, 13, 1, 2, 1, -1, 2,
			3, 5, 8, 4, -5, -6, -8, -11,
			-4, 0, -5, -1, -7, -12, -8, -16,
			-6, -6, 0, 2, -9, -9, -11, -3,
			-9, 2, 3, -1, -5, -13, 4, -20,
		},
		{ // queen
			-9, 22, 22, 27, 27, 19, 10, 20,
			-17, 20, 32, 41, 58, 25, 30, 0,
			-20, 6, 9, 49, 47, 35, 19, 9,
			3, 22, 24, 45, 57, 40, 57, 36,
			-18, 28, 19, 47, 31, 34, 39, 23,
			-16, -27, 15, 6, 9, 17, 10, 5,
			-22, -23, -30, -16, -16, -23, -36, -32,
			-33, -28, -22, -43, -5, -32, -20, -41,
		},
		{ // king
			-74, -35, -18, -18, -11, 15, 4, -17,
			-12, 17, 14, 17, 17, 38, 23, 11,
			10, 17, 23, 15, 20, 45, 44, 13,
			-8, 22, 24, 27, 26, 33, 26, 3,
			-18, -4, 21, 24, 27, 23, 9, -11,
			-19, -3, 11, 21, 23, 16, 7, -9,
			-27, -11, 4, 13, 14, 4, -5, -17,
			-53, -34, -21, -11, -28, -14, -24, -43,
		},
	},
	MobilityMG:   [4]int{4, 5, 2, 1},
	MobilityEG:   [4]int{4, 5, 4, 2},
	MobilityBase: [4]int{4, 6, 7, 13},
	DoubledMG:    10, DoubledEG: 20,
	IsolatedMG: 10, IsolatedEG: 15,
	PassedMG: [8]int{0, 2, 5, 10, 20, 35, 55, 0},
	PassedEG: [8]int{0, 5, 10, 20, 35, 55, 80, 0},
	Shield1:  12, Shield2: 6,
	BishopPairMG: 25, BishopPairEG: 40,
	Tempo:      10,
	RookOpenMG: 25, RookOpenEG: 10,
	RookHalfOpenMG: 12, RookHalfOpenEG: 6,
	KingAttackUnits: [4]int{2, 2, 3, 5},
	KingDangerMax:   500,
}

// BasicWeights are DefaultWeights without the rook-file and king-attack
// terms: the evaluation before those were added, kept for measuring what
// they add (alphabeta's eval=basic).
var BasicWeights = func() Weights {
	w := DefaultWeights
	w.RookOpenMG, w.RookOpenEG, w.RookHalfOpenMG, w.RookHalfOpenEG = 0, 0, 0, 0
	w.KingAttackUnits = [4]int{}
	return w
}()

// Pawn-structure masks, filled by initEvalMasks.
var (
	fileMask     [8]Bitboard
	adjacentMask [8]Bitboard     // the files beside file f
	passedMask   [2][64]Bitboard // squares ahead of a pawn of colour c on s, on its file and the neighbouring ones
)

func initEvalMasks() {
	for f := 0; f < 8; f++ {
		fileMask[f] = fileA << f
	}
	for f := 0; f < 8; f++ {
		if f > 0 {
			adjacentMask[f] |= fileMask[f-1]
		}
		if f < 7 {
			adjacentMask[f] |= fileMask[f+1]
		}
	}
	for s := Square(0); s < 64; s++ {
		span := fileMask[s.File()] | adjacentMask[s.File()]
		var ahead [2]Bitboard
		for r := 0; r < 8; r++ {
			row := rank1 << (8 * r)
			if r > s.Rank() {
				ahead[White] |= row
			}
			if r < s.Rank() {
				ahead[Black] |= row
			}
		}
		passedMask[White][s] = span & ahead[White]
		passedMask[Black][s] = span & ahead[Black]
	}
}

func init() { initEvalMasks() }

// pawnAttackSet returns every square the pawns of colour c attack.
func pawnAttackSet(pawns Bitboard, c Color) Bitboard {
	if c == White {
		return (pawns&^fileA)<<7 | (pawns&^fileH)<<9
	}
	return (pawns&^fileA)>>9 | (pawns&^fileH)>>7
}

// Evaluate returns the static evaluation of p with weights w, in
// centipawns, from the point of view of the side to move.
func (p *Position) Evaluate(w *Weights) int {
	var mg, eg [2]int
	phase := 0
	occ := p.occupied()
	for c := White; c <= Black; c++ {
		own := p.byColor[c]
		flip := Square(56)
		if c == Black {
			flip = 0
		}
		for pt := Pawn; pt <= King; pt++ {
			for b := own & p.byType[pt]; b != 0; {
				s := b.popFirst()
				i := s ^ flip
				mg[c] += w.MGValue[pt] + w.MGTable[pt][i]
				eg[c] += w.EGValue[pt] + w.EGTable[pt][i]
				phase += w.PhaseInc[pt]
			}
		}
		if (own & p.byType[Bishop]).count() >= 2 {
			mg[c] += w.BishopPairMG
			eg[c] += w.BishopPairEG
		}

		// Mobility, not counting squares enemy pawns guard, and the
		// attacks on the enemy king's zone.
		safe := ^own &^ pawnAttackSet(p.pieces(c^1, Pawn), c^1)
		ka := p.newKingAttack(c ^ 1)
		for b := own & p.byType[Knight]; b != 0; {
			att := knightAttacks[b.popFirst()]
			n := (att & safe).count() - w.MobilityBase[0]
			mg[c] += n * w.MobilityMG[0]
			eg[c] += n * w.MobilityEG[0]
			ka.add(w, att, 0)
		}
		for b := own & p.byType[Bishop]; b != 0; {
			att := bishopAttacks(b.popFirst(), occ)
			n := (att & safe).count() - w.MobilityBase[1]
			mg[c] += n * w.MobilityMG[1]
			eg[c] += n * w.MobilityEG[1]
			ka.add(w, att, 1)
		}
		for b := own & p.byType[Rook]; b != 0; {
			s := b.popFirst()
			att := rookAttacks(s, occ)
			n := (att & safe).count() - w.MobilityBase[2]
			rmg, reg := p.rookFile(w, s, own)
			mg[c] += n*w.MobilityMG[2] + rmg
			eg[c] += n*w.MobilityEG[2] + reg
			ka.add(w, att, 2)
		}
		for b := own & p.byType[Queen]; b != 0; {
			s := b.popFirst()
			att := rookAttacks(s, occ) | bishopAttacks(s, occ)
			n := (att & safe).count() - w.MobilityBase[3]
			mg[c] += n * w.MobilityMG[3]
			eg[c] += n * w.MobilityEG[3]
			ka.add(w, att, 3)
		}
		mg[c^1] -= ka.penalty(w)

		// Pawn structure.
		pawns := p.pieces(c, Pawn)
		enemyPawns := p.pieces(c^1, Pawn)
		for f := 0; f < 8; f++ {
			n := (pawns & fileMask[f]).count()
			if n == 0 {
				continue
			}
			if n > 1 {
				mg[c] -= (n - 1) * w.DoubledMG
				eg[c] -= (n - 1) * w.DoubledEG
			}
			if pawns&adjacentMask[f] == 0 {
				mg[c] -= n * w.IsolatedMG
				eg[c] -= n * w.IsolatedEG
			}
		}
		for b := pawns; b != 0; {
			s := b.popFirst()
			if passedMask[c][s]&enemyPawns == 0 {
				r := s.Rank()
				if c == Black {
					r = 7 - r
				}
				mg[c] += w.PassedMG[r]
				eg[c] += w.PassedEG[r]
			}
		}

		// Pawn shield in front of a king on its first two ranks.
		near, far := p.shieldPawns(c, pawns)
		mg[c] += w.Shield1*near + w.Shield2*far
	}
	us := p.side
	mg[us] += w.Tempo
	phase = min(phase, w.MaxPhase)
	mgScore := mg[us] - mg[us^1]
	egScore := eg[us] - eg[us^1]
	return (mgScore*phase + egScore*(w.MaxPhase-phase)) / w.MaxPhase
}

// Evaluate scores a chess state for the player to move with DefaultWeights
// (the games.Heuristic capability): centipawns times 1e-4, clamped inside
// (-1, 1).
func (Game) Evaluate(st games.State) float64 {
	s := st.(*State)
	cp := s.pos.Evaluate(&DefaultWeights)
	return float64(max(-maxEvalCP, min(maxEvalCP, cp))) * evalScale
}

// shieldPawns counts the pawns of pawns (c's) on the file of c's king and
// the files beside it, on the first and the second rank in front of it,
// when the king stands on its own first two ranks (0, 0 otherwise).
func (p *Position) shieldPawns(c Color, pawns Bitboard) (near, far int) {
	k := p.kingSquare(c)
	kr := k.Rank()
	if c == Black {
		kr = 7 - kr
	}
	if kr > 1 {
		return 0, 0
	}
	files := fileMask[k.File()] | adjacentMask[k.File()]
	var r1, r2 Bitboard
	if c == White {
		r1, r2 = rank1<<(8*(k.Rank()+1)), rank1<<(8*(k.Rank()+2))
	} else {
		r1, r2 = rank1<<(8*(k.Rank()-1)), rank1<<(8*(k.Rank()-2))
	}
	return (pawns & files & r1).count(), (pawns & files & r2).count()
}
