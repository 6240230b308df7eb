package connect4

import (
	"math"
	"math/bits"

	"tabula/games"
)

// lines holds the 69 sets of four cells in a row (24 horizontal, 21
// vertical, 24 diagonal) as bitboards.
var lines = func() []uint64 {
	var ls []uint64
	dirs := [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} // (dcol, drow)
	for _, d := range dirs {
		for c := 0; c < Width; c++ {
			for r := 0; r < Height; r++ {
				ec, er := c+3*d[0], r+3*d[1]
				if ec < 0 || ec >= Width || er < 0 || er >= Height {
					continue
				}
				var m uint64
				for i := 0; i < 4; i++ {
					m |= Bit(c+i*d[0], r+i*d[1])
				}
				ls = append(ls, m)
			}
		}
	}
	return ls
}()

// oddRows has the cells of rows 1, 3 and 5 counted from 1 at the bottom.
const oddRows = BottomMask * (1 | 1<<2 | 1<<4)

// Heuristic weights, see Evaluate.
const (
	immediateValue = 0.95 // a win (or an unstoppable loss) on the next move
	squashScale    = 20.0 // the raw sum that maps to half of squashMax
	squashMax      = 0.9  // the bound of the squashed sum
	threatWeight   = 6.0
	parityWeight   = 4.0
)

// lineWeight is the worth of an open line holding 0..4 stones of one player.
var lineWeight = [5]float64{0, 1, 3, 9, 0}

// Evaluate scores s from the point of view of the player to move, strictly
// inside (-1, 1):
//
//   - A finished game: -0.99 when the mover has lost, 0 for a full board.
//   - The mover can connect four at once: +0.95.
//   - The opponent has two playable winning cells, so blocking one leaves the
//     other: -0.95.
//   - Otherwise a sum x, positive for the mover: every line of four cells
//     that holds stones of one player only (still open for that player) is
//     worth 1, 3 or 9 for 1, 2 or 3 stones; every threat (an empty cell that
//     would complete a four for its owner, playable or not) adds 6, and 4
//     more when it lies on a row of the parity that favours its owner in the
//     endgame (odd rows, counted from 1 at the bottom, for the first player;
//     even rows for the second: the zugzwang rule from Allis' analysis). The
//     result is 0.9*x/(|x|+20).
//
// Evaluate returns 0 for a state of another game.
func (Game) Evaluate(gs games.State) float64 {
	s, ok := gs.(*State)
	if !ok {
		return 0
	}
	if s.won {
		return -0.99
	}
	if s.moves == Cells {
		return 0
	}
	me, opp := s.current, s.current^s.mask
	playable := (s.mask + BottomMask) & BoardMask
	myThreats, oppThreats := WinningCells(me, s.mask), WinningCells(opp, s.mask)
	if myThreats&playable != 0 {
		return immediateValue
	}
	if bits.OnesCount64(oppThreats&playable) >= 2 {
		return -immediateValue
	}
	var x float64
	for _, l := range lines {
		m, o := l&me, l&opp
		switch {
		case o == 0:
			x += lineWeight[bits.OnesCount64(m)]
		case m == 0:
			x -= lineWeight[bits.OnesCount64(o)]
		}
	}
	myParity, oppParity := uint64(oddRows), BoardMask&^oddRows
	if s.moves&1 == 1 { // the second player is to move
		myParity, oppParity = oppParity, myParity
	}
	x += threatWeight * float64(bits.OnesCount64(myThreats)-bits.OnesCount64(oppThreats))
	x += parityWeight * float64(bits.OnesCount64(myThreats&myParity)-bits.OnesCount64(oppThreats&oppParity))
	return squashMax * x / (math.Abs(x) + squashScale)
}
