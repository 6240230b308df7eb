package backgammon

import (
	"math"

	"tabula/games"
)

// Evaluate is the hand-written evaluation (games.Heuristic): a weighted sum
// of features for the player who moves next (at a chance node, the player
// about to roll), squashed into (-1, 1) by tanh. Features, each the
// player's minus the opponent's: the race (pip count difference, relative
// to the pips left), points made in the home board, the longest prime
// (consecutive points made), blots (weighted by how far into the player's
// half they stand, where hits cost most), checkers on the bar and checkers
// borne off. The weights were set by hand, not fitted; the textbook's
// caution applies: it orders positions sensibly but is not a calibrated
// win probability. With money scoring it is divided by 3, the value of a
// single game there, so that it stays on the scale of the Returns that end
// the game (it knows nothing of gammons; a search that reaches the end of
// the game sees them).
func (g *Game) Evaluate(st games.State) float64 {
	s := st.(*State)
	if s.IsTerminal() {
		r := s.Returns()[s.player]
		return math.Max(-0.999, math.Min(0.999, r))
	}
	return evaluate(&s.pos, int(s.player)) * g.SingleGame()
}

func evaluate(q *Position, me int) float64 {
	op := 1 - me
	myPips, opPips := q.Pips(me), q.Pips(op)
	x := 6 * float64(opPips-myPips) / float64(myPips+opPips+20)
	contact := !IsRace(q)
	if contact {
		f := func(c int) float64 {
			home, prime, run, blots := 0, 0, 0, 0.0
			for i := 0; i < Points; i++ {
				n := q.Board[c][i]
				if n >= 2 {
					run++
					prime = max(prime, run)
					if i < 6 {
						home++
					}
				} else {
					run = 0
				}
				if n == 1 {
					// A blot far from home (low index for the opponent)
					// is more exposed and costs more pips when hit.
					blots += 0.5 + float64(i)/24
				}
			}
			v := 0.12*float64(home) + 0.1*float64(max(prime-1, 0)) - 0.12*blots - 0.2*float64(q.Bar[c])
			return v
		}
		x += f(me) - f(op)
	}
	x += 0.02 * float64(q.Off[me]-q.Off[op])
	return 0.999 * math.Tanh(x)
}

// IsRace reports whether the players' checkers have passed each other: no
// hit is possible any more.
func IsRace(q *Position) bool {
	me := 0
	if q.Bar[0] > 0 || q.Bar[1] > 0 {
		return false
	}
	myBack := -1 // my rearmost checker, in my numbering
	for i := Points - 1; i >= 0; i-- {
		if q.Board[me][i] > 0 {
			myBack = i
			break
		}
	}
	opBack := -1 // the opponent's rearmost, in its numbering
	for i := Points - 1; i >= 0; i-- {
		if q.Board[1-me][i] > 0 {
			opBack = i
			break
		}
	}
	// The opponent's index j is my index 23-j: contact while my rearmost
	// checker stands at or beyond the opponent's rearmost one.
	return myBack < 23-opBack
}

// TurnEnd is one way to finish the turn from a decision: the first decision
// (action) to play now and the position at the end of the turn.
type TurnEnd struct {
	Action int
	Pos    Position
}

// TurnEnds lists the distinct positions the player to move can reach by the
// end of its turn (both halves of doubles played out), each with the first
// action that leads there, in increasing order of action. It returns buf[:0]
// at a chance node or a terminal state.
func (s *State) TurnEnds(buf []TurnEnd) []TurnEnd {
	buf = buf[:0]
	if s.chance || s.IsTerminal() {
		return buf
	}
	seen := map[Position]bool{}
	c := s.legal()
	for i, a := range c.actions {
		if !c.cont[i] {
			if !seen[c.after[i]] {
				seen[c.after[i]] = true
				buf = append(buf, TurnEnd{Action: int(a), Pos: c.after[i]})
			}
			continue
		}
		half := *s
		half.cache = nil
		half.ApplyAction(int(a))
		hc := half.legal()
		for _, q := range hc.after {
			if !seen[q] {
				seen[q] = true
				buf = append(buf, TurnEnd{Action: int(a), Pos: q})
			}
		}
	}
	return buf
}

// Pubeval weights: Gerald Tesauro's public-domain "pubeval", the linear
// move-selection evaluation he published for benchmark comparisons
// (rec.games.backgammon, 1993; archived at bkgm.com/rgb/rgb.cgi?view+610).
// The numbers are copied as published, from the public-domain pubeval.c
// distributed with OpenBSD's backgammon game ($OpenBSD: pubeval.c,v 1.3
// 2015/11/30$), which gnubg's pub_eval.c also carries: wc (contact) and wr
// (race). They are data; the input encoding below is written from the
// description in that file.
var pubevalContact = [122]float64{
	0.25696, -0.66937, -1.66135, -2.02487, -2.53398, -0.16092, -1.11725, -1.06654,
	-0.92830, -1.99558, -1.10388, -0.80802, 0.09856, -0.62086, -1.27999, -0.59220,
	-0.73667, 0.89032, -0.38933, -1.59847, -1.50197, -0.60966, 1.56166, -0.47389,
	-1.80390, -0.83425, -0.97741, -1.41371, 0.24500, 0.10970, -1.36476, -1.05572,
	1.15420, 0.11069, -0.38319, -0.74816, -0.59244, 0.81116, -0.39511, 0.11424,
	-0.73169, -0.56074, 1.09792, 0.15977, 0.13786, -1.18435, -0.43363, 1.06169,
	-0.21329, 0.04798, -0.94373, -0.22982, 1.22737, -0.13099, -0.06295, -0.75882,
	-0.13658, 1.78389, 0.30416, 0.36797, -0.69851, 0.13003, 1.23070, 0.40868,
	-0.21081, -0.64073, 0.31061, 1.59554, 0.65718, 0.25429, -0.80789, 0.08240,
	1.78964, 0.54304, 0.41174, -1.06161, 0.07851, 2.01451, 0.49786, 0.91936,
	-0.90750, 0.05941, 1.83120, 0.58722, 1.28777, -0.83711, -0.33248, 2.64983,
	0.52698, 0.82132, -0.58897, -1.18223, 3.35809, 0.62017, 0.57353, -0.07276,
	-0.36214, 4.37655, 0.45481, 0.21746, 0.10504, -0.61977, 3.54001, 0.04612,
	-0.18108, 0.63211, -0.87046, 2.47673, -0.48016, -1.27157, 0.86505, -1.11342,
	1.24612, -0.82385, -2.77082, 1.23606, -1.59529, 0.10438, -1.30206, -4.11520,
	5.62596, -2.75800,
}

var pubevalRace = [122]float64{
	0.00000, -0.17160, 0.27010, 0.29906, -0.08471, 0.00000, -1.40375, -1.05121,
	0.07217, -0.01351, 0.00000, -1.29506, -2.16183, 0.13246, -1.03508, 0.00000,
	-2.29847, -2.34631, 0.17253, 0.08302, 0.00000, -1.27266, -2.87401, -0.07456,
	-0.34240, 0.00000, -1.34640, -2.46556, -0.13022, -0.01591, 0.00000, 0.27448,
	0.60015, 0.48302, 0.25236, 0.00000, 0.39521, 0.68178, 0.05281, 0.09266,
	0.00000, 0.24855, -0.06844, -0.37646, 0.05685, 0.00000, 0.17405, 0.00430,
	0.74427, 0.00576, 0.00000, 0.12392, 0.31202, -0.91035, -0.16270, 0.00000,
	0.01418, -0.10839, -0.02781, -0.88035, 0.00000, 1.07274, 2.00366, 1.16242,
	0.22520, 0.00000, 0.85631, 1.06349, 1.49549, 0.18966, 0.00000, 0.37183,
	-0.50352, -0.14818, 0.12039, 0.00000, 0.13681, 0.13978, 1.11245, -0.12707,
	0.00000, -0.22082, 0.20178, -0.06285, -0.52728, 0.00000, -0.13597, -0.19412,
	-0.09308, -1.26062, 0.00000, 3.05454, 5.16874, 1.50680, 5.35000, 0.00000,
	2.19605, 3.85390, 0.88296, 2.30052, 0.00000, 0.92321, 1.08744, -0.11696,
	-0.78560, 0.00000, -0.09795, -0.83050, -1.09167, -4.94251, 0.00000, -1.00316,
	-3.66465, -2.56906, -9.67677, 0.00000, -2.77982, -7.26713, -3.40177, -12.32252,
	0.00000, 3.42040,
}

// Pubeval scores position q after a move of player me, with Tesauro's
// pubeval: a linear function of 122 inputs, five per point from me's
// 24-point down to its 1-point (an opponent blot; my blot; two or more of
// mine; exactly three of mine; (n-3)/2 for n beyond three), the opponent's
// checkers on the bar / 2 and mine borne off / 15, with the race weights
// when race is set (the position before the move was a race) and the
// contact weights otherwise. Higher is better for me; the scale is
// arbitrary (it ranks moves, it is not a probability). A position with all
// of me's checkers off scores +Inf.
func Pubeval(q *Position, me int, race bool) float64 {
	if q.Off[me] == Checkers {
		return math.Inf(1)
	}
	w := &pubevalContact
	if race {
		w = &pubevalRace
	}
	op := 1 - me
	score := 0.0
	for k := 0; k < Points; k++ {
		i := Points - 1 - k // my point 24-k
		n := int(q.Board[me][i])
		base := 5 * k
		if q.Board[op][23-i] == 1 {
			score += w[base]
		}
		if n == 1 {
			score += w[base+1]
		}
		if n >= 2 {
			score += w[base+2]
		}
		if n == 3 {
			score += w[base+3]
		}
		if n >= 4 {
			score += w[base+4] * float64(n-3) / 2
		}
	}
	score += w[120] * float64(q.Bar[op]) / 2
	score += w[121] * float64(q.Off[me]) / Checkers
	return score
}

// PubevalMove returns the action the pubeval player plays at decision s: the
// first action of the turn whose end position pubeval scores highest (ties:
// the smallest action). buf is scratch space; the updated buffer is
// returned.
func (s *State) PubevalMove(buf []TurnEnd) (int, []TurnEnd) {
	buf = s.TurnEnds(buf)
	race := IsRace(&s.pos)
	best, move := math.Inf(-1), -1
	for i := range buf {
		v := Pubeval(&buf[i].Pos, int(s.player), race)
		if v > best || move < 0 {
			best, move = v, buf[i].Action
		}
	}
	return move, buf
}
