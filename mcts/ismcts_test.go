package mcts

import (
	"context"
	"math/rand/v2"
	"testing"

	"tabula/games"
	"tabula/games/phantom"
	"tabula/games/tictactoe"
)

func TestISMCTSRefusesPerfectInformation(t *testing.T) {
	if _, err := NewISMCTS(tictactoe.Game{}, ISMCTSConfig{Iterations: 1, C: 0.7}, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Fatal("ismcts accepted tic-tac-toe")
	}
}

// X holds 1 and 2 and has found both of O's marks, so 3 wins at once.
func TestISMCTSTakesSureWin(t *testing.T) {
	s, err := games.Replay(phantom.Game{}, []int{0, 4, 4, 1, 6, 6})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewISMCTS(phantom.Game{}, ISMCTSConfig{Iterations: 500, C: 0.7}, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if a, err := m.ChooseAction(context.Background(), s); err != nil || a != 2 {
		t.Errorf("played %d (%v), want the winning cell 2", a, err)
	}
}
