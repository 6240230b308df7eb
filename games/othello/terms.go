package othello

import (
	"math"
	"math/bits"

	"tabula/games"
)

// NumFeatures is the length of the feature vector of Features: six terms,
// each split into an opening share (times 1-fill) and an ending share
// (times fill), where fill is the share of the board's squares occupied.
const NumFeatures = 12

// FeatureNames names the features of Features, in order.
var FeatureNames = [NumFeatures]string{
	"mobility.open", "corners.open", "stable.open", "xsquares.open", "discs.open", "parity.open",
	"mobility.end", "corners.end", "stable.end", "xsquares.end", "discs.end", "parity.end",
}

// HandWeights are Evaluate's weights of the features (the same in both
// shares): Evaluate is tanh of the weights times the features, clamped to
// [-4, 4].
var HandWeights = [NumFeatures]float64{1, 0.8, 0.6, 0.4, 1, 0.2, 1, 0.8, 0.6, 0.4, 1, 0.2}

// Features writes Evaluate's terms for the player to move of s into f, each
// normalised as Evaluate normalises it (mobility, corners, stable discs,
// X-squares, disc difference weighted by fill squared, parity times fill),
// split into opening and ending shares.
func (g *Game) Features(s *State, f *[NumFeatures]float64) {
	t := &g.eval
	p, o := s.mover, s.opp
	occ := p | o
	total := float64(bits.OnesCount64(g.mask))
	fill := float64(bits.OnesCount64(occ)) / total
	var b [6]float64
	mp := float64(bits.OnesCount64(Moves(p, o) & g.mask))
	mo := float64(bits.OnesCount64(Moves(o, p) & g.mask))
	b[0] = (mp - mo) / (mp + mo + 2)
	b[1] = float64(bits.OnesCount64(p&t.corners)-bits.OnesCount64(o&t.corners)) / 4
	sp := float64(bits.OnesCount64(g.stable(p, occ)))
	so := float64(bits.OnesCount64(g.stable(o, occ)))
	b[2] = (sp - so) / (sp + so + 4)
	var xs float64
	for i := range t.xsq {
		if occ&t.cornerOf[i] == 0 {
			if p&t.xsq[i] != 0 {
				xs--
			} else if o&t.xsq[i] != 0 {
				xs++
			}
		}
	}
	b[3] = xs / 4
	np, no := float64(bits.OnesCount64(p)), float64(bits.OnesCount64(o))
	b[4] = fill * fill * (np - no) / (np + no)
	b[5] = -fill
	if empties := int(total) - bits.OnesCount64(occ); empties%2 == 1 {
		b[5] = fill
	}
	for i, x := range b {
		f[i] = x * (1 - fill)
		f[6+i] = x * fill
	}
}

// Evaluator is a games.Heuristic with fitted weights: tanh of W times the
// features, clamped as Evaluate clamps, which is the expected score 2P-1 of
// a logistic model P = sigmoid(2 W·features).
type Evaluator struct {
	G *Game
	W *[NumFeatures]float64
}

// Evaluate scores gs for the player to move, strictly inside (-1, 1).
func (e Evaluator) Evaluate(gs games.State) float64 {
	s, ok := gs.(*State)
	if !ok {
		return 0
	}
	var f [NumFeatures]float64
	e.G.Features(s, &f)
	var x float64
	for i, w := range e.W {
		x += w * f[i]
	}
	return math.Tanh(math.Max(-4, math.Min(4, x)))
}
