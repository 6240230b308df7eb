package cfr

import (
	"math"
	"testing"

	"tabula/games"
	"tabula/games/poker"
	"tabula/games/tictactoe"
)

// kuhnValue is the value of Kuhn poker for the first player, -1/18 chips
// per hand (Kuhn 1950; the figure OpenSpiel's cfr_test.cc checks CFR's
// average policy against, to 1e-3, after 300 iterations).
const kuhnValue = -1.0 / 18

func TestKuhn(t *testing.T) {
	g := poker.Kuhn()
	for _, plus := range []bool{false, true} {
		s, err := New(g, Config{Plus: plus})
		if err != nil {
			t.Fatal(err)
		}
		// 12 information sets, 6 per player (3 cards times 2 betting histories).
		if n := s.NumInfosets(); n != [2]int{6, 6} {
			t.Fatalf("information sets %v, want 6 and 6", n)
		}
		s.Run(300)
		v := s.Value() * g.MaxWin()
		if math.Abs(v-kuhnValue) > 1e-3 {
			t.Errorf("plus=%v: value after 300 iterations %.5f chips, want %.5f", plus, v, kuhnValue)
		}
		// OpenSpiel's test asks for exploitability <= 0.05 after 300.
		if e := s.Exploitability() * g.MaxWin(); e > 0.05 || e < 0 {
			t.Errorf("plus=%v: exploitability after 300 iterations %.5f chips", plus, e)
		}
		s.Run(2700)
		e := s.Exploitability() * g.MaxWin()
		t.Logf("plus=%v: value %.6f, exploitability after 3000 iterations %.2e chips", plus, s.Value()*g.MaxWin(), e)
		if e > 1e-3 {
			t.Errorf("plus=%v: exploitability after 3000 iterations %.2e chips, want < 1e-3", plus, e)
		}
	}
}

// TestBestResponseUniform checks the best response on strategies whose values
// can be worked out by hand: against a uniformly random opponent in Kuhn.
func TestBestResponseUniform(t *testing.T) {
	s, err := New(poker.Kuhn(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	// No iterations: the average strategy is uniform everywhere.
	br := s.BestResponse()
	if br[0]+br[1] <= 0 {
		t.Fatalf("best responses to uniform play %v do not gain", br)
	}
	// At an equilibrium neither player gains: both best-response values
	// equal the game value (seen from each side).
	s.Run(5000)
	br = s.BestResponse()
	v := s.Value()
	if math.Abs(br[0]-v) > 1e-3 || math.Abs(br[1]+v) > 1e-3 {
		t.Fatalf("near equilibrium best responses %v vs value %v", br, v)
	}
}

func TestLeduc(t *testing.T) {
	g := poker.Leduc()
	s, err := New(g, Config{Plus: true})
	if err != nil {
		t.Fatal(err)
	}
	// Per player 3 private ranks times 3 first-round histories, plus 3
	// private ranks times 3 public ranks times 5 ways the first round ends
	// times 3 second-round histories: 144. OpenSpiel's leduc_poker deals
	// the six cards with their suits, which gives 6*3 + 6*5*5*3 = 468 per
	// player, the 936 information sets quoted for Leduc; suits decide
	// nothing, so the two trees have the same equilibria and values.
	if n := s.NumInfosets(); n != [2]int{144, 144} {
		t.Fatalf("information sets %v, want 144 and 144", n)
	}
	s.Run(200)
	e := s.Exploitability() * g.MaxWin()
	t.Logf("CFR+ 200 iterations: exploitability %.2e chips, value %.5f chips", e, s.Value()*g.MaxWin())
	if e > 0.02 {
		t.Errorf("CFR+ exploitability after 200 iterations %.3g chips, want < 0.02", e)
	}
	s.Run(1800)
	e = s.Exploitability() * g.MaxWin()
	v := s.Value() * g.MaxWin()
	t.Logf("CFR+ 2000 iterations: exploitability %.2e chips, value %.5f chips", e, v)
	// The value of Leduc hold'em for the first player, by the sequence-form
	// LP (seqform_test.go).
	if e > 1e-4 || math.Abs(v-leducLPValue) > 1e-4 {
		t.Errorf("CFR+ after 2000 iterations: exploitability %.2e chips (want < 1e-4), value %.5f", e, v)
	}
}

func TestRefusesPerfectInformation(t *testing.T) {
	_, err := New(tictactoe.Game{}, Config{})
	if err == nil {
		t.Fatal("tic-tac-toe accepted")
	}
	t.Log(err)
	var _ games.Game = poker.Kuhn()
}
