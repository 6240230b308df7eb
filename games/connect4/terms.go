package connect4

import (
	"math"
	"math/bits"

	"tabula/games"
)

// NumFeatures is the length of the feature vector of Features.
const NumFeatures = 5

// FeatureNames names the features of Features, in order.
var FeatureNames = [NumFeatures]string{"lines1", "lines2", "lines3", "threats", "parity"}

// HandWeights are Evaluate's weights of the features: Evaluate scores an
// undecided position 0.9*x/(|x|+20) with x the weights times the features.
var HandWeights = [NumFeatures]float64{lineWeight[1], lineWeight[2], lineWeight[3], threatWeight, parityWeight}

// Features writes the features of Evaluate's sum for the player to move
// into f: the open lines holding 1, 2 and 3 stones, the threats, and the
// threats on rows of the owner's parity, each the mover's count minus the
// opponent's. When Evaluate decides the position without the sum (the game
// is over, the mover wins at once, or the opponent has two playable
// threats), Features returns that value and decided = true, and f is not
// written.
func (s *State) Features(f *[NumFeatures]float64) (value float64, decided bool) {
	if s.won {
		return -0.99, true
	}
	if s.moves == Cells {
		return 0, true
	}
	me, opp := s.current, s.current^s.mask
	playable := (s.mask + BottomMask) & BoardMask
	myThreats, oppThreats := WinningCells(me, s.mask), WinningCells(opp, s.mask)
	if myThreats&playable != 0 {
		return immediateValue, true
	}
	if bits.OnesCount64(oppThreats&playable) >= 2 {
		return -immediateValue, true
	}
	var n [5]int
	for _, l := range lines {
		m, o := l&me, l&opp
		switch {
		case o == 0:
			n[bits.OnesCount64(m)]++
		case m == 0:
			n[bits.OnesCount64(o)]--
		}
	}
	myParity, oppParity := uint64(oddRows), BoardMask&^oddRows
	if s.moves&1 == 1 {
		myParity, oppParity = oppParity, myParity
	}
	f[0], f[1], f[2] = float64(n[1]), float64(n[2]), float64(n[3])
	f[3] = float64(bits.OnesCount64(myThreats) - bits.OnesCount64(oppThreats))
	f[4] = float64(bits.OnesCount64(myThreats&myParity) - bits.OnesCount64(oppThreats&oppParity))
	return 0, false
}

// Evaluator is a games.Heuristic with fitted weights: it decides the
// positions Evaluate decides alike, and scores the others
// 0.9*tanh(W·features), which is 0.9 times the expected score 2P-1 of a
// logistic model P = sigmoid(2 W·features).
type Evaluator struct{ W *[NumFeatures]float64 }

// Evaluate scores gs for the player to move, strictly inside (-1, 1).
func (e Evaluator) Evaluate(gs games.State) float64 {
	s, ok := gs.(*State)
	if !ok {
		return 0
	}
	var f [NumFeatures]float64
	if v, decided := s.Features(&f); decided {
		return v
	}
	var x float64
	for i, w := range e.W {
		x += w * f[i]
	}
	return squashMax * math.Tanh(x)
}
