package gamestest

import (
	"fmt"
	"sync"

	"tabula/games"
)

// DiceRace returns a small game of chance, registered as "dicerace", for
// tests of the checker and of algorithms that must refuse (or handle) chance:
// each turn a
// three-sided die is rolled (faces 1, 2, 3 with probabilities 1/2, 1/3,
// 1/6: outcomes 0, 1, 2), then the player to move adds the roll (action 0)
// or 1 (action 1) to their score; the first to reach 10 wins.
func DiceRace() games.Game {
	diceRaceOnce.Do(func() {
		games.Register(theDiceRace.Name(), "a tiny game of chance for tests (gamestest)", nil,
			func(games.Params) (games.Game, error) { return theDiceRace, nil })
	})
	return theDiceRace
}

var (
	diceRaceOnce sync.Once
	theDiceRace  = &diceRace{}
)

// diceRace is DiceRace's game; the broken field makes it violate one rule
// on purpose, for the checker's own tests.
type diceRace struct{ broken string }

func (g *diceRace) Name() string {
	if g.broken != "" {
		return "dicerace-" + g.broken
	}
	return "dicerace"
}
func (g *diceRace) NumActions() int                   { return 3 }
func (g *diceRace) MaxChanceOutcomes() int            { return 3 }
func (g *diceRace) ObservationShape() (int, int, int) { return 3, 1, 1 }
func (g *diceRace) MaxGameLength() int                { return 80 }
func (g *diceRace) NewInitialState() games.State      { return &raceState{g: g, chance: true} }

// glitch is outside state that the "nondeterministic" variant reads.
var glitch int

type raceState struct {
	g      *diceRace
	score  [2]int
	player int
	chance bool
	roll   int
	moves  int
}

func (s *raceState) Game() games.Game { return s.g }
func (s *raceState) CurrentPlayer() int {
	if s.chance {
		return games.ChancePlayer
	}
	return s.player
}
func (s *raceState) NextPlayer() int    { return s.player }
func (s *raceState) IsChanceNode() bool { return s.chance && !s.IsTerminal() }
func (s *raceState) IsTerminal() bool   { return s.score[0] >= 10 || s.score[1] >= 10 }
func (s *raceState) ChanceOutcomes(buf []games.ChanceOutcome) []games.ChanceOutcome {
	buf = buf[:0]
	if !s.IsChanceNode() {
		return buf
	}
	p := [3]float64{1.0 / 2, 1.0 / 3, 1.0 / 6}
	if s.g.broken == "probsum" {
		p[2] = 0.1
	}
	for i, q := range p {
		buf = append(buf, games.ChanceOutcome{Action: i, Prob: q})
	}
	return buf
}
func (s *raceState) LegalActions(buf []int) []int {
	buf = buf[:0]
	switch {
	case s.IsTerminal():
	case s.chance && s.g.broken == "outcomes":
		buf = append(buf, 0, 1)
	case s.chance:
		buf = append(buf, 0, 1, 2)
	default:
		buf = append(buf, 0, 1)
	}
	return buf
}
func (s *raceState) IsLegal(a int) bool {
	for _, b := range s.LegalActions(nil) {
		if a == b {
			return true
		}
	}
	return false
}
func (s *raceState) ApplyAction(a int) {
	s.moves++
	if s.chance {
		s.roll, s.chance = a+1, false
		if s.g.broken == "nondeterministic" {
			glitch++
			s.roll = 1 + glitch%3
		}
		return
	}
	if a == 0 {
		s.score[s.player] += s.roll
	} else {
		s.score[s.player]++
	}
	s.player, s.chance, s.roll = 1-s.player, true, 0
}
func (s *raceState) Returns() [2]float64 {
	switch {
	case s.score[0] >= 10:
		return [2]float64{1, -1}
	case s.score[1] >= 10:
		return [2]float64{-1, 1}
	}
	return [2]float64{}
}
func (s *raceState) Observation(dst []float32) {
	dst[0], dst[1], dst[2] = float32(s.score[s.player]), float32(s.score[1-s.player]), float32(s.roll)
}
func (s *raceState) Clone() games.State { c := *s; return &c }
func (s *raceState) Hash() uint64 {
	h := uint64(s.score[0])<<32 | uint64(s.score[1])<<16 | uint64(s.roll)<<4 | uint64(s.player)<<1
	if s.chance {
		h |= 1
	}
	return h
}
func (s *raceState) MoveNumber() int { return s.moves }
func (s *raceState) String() string {
	return fmt.Sprintf("%v p%d roll %d chance %v", s.score, s.player, s.roll, s.chance)
}
