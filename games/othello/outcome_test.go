package othello

import (
	"testing"

	"tabula/games"
)

func TestFinalOwnershipAndScore(t *testing.T) {
	g := mustGame(t, "othello:size=6")
	row := func(r int) uint64 { return uint64(0x3f) << (8 * r) }
	for _, tc := range []struct {
		name         string
		black, white uint64
		player       int
		want         string
		score        float64
		returns      [2]float64
	}{
		{"full board, black 24-12", row(0) | row(1) | row(2) | row(3), row(4) | row(5), White,
			"++++++\n++++++\n++++++\n++++++\n------\n------\n", 12, [2]float64{1, -1}},
		{"white wiped out black, with empties", 0, row(5) | 1<<(8*4+2), Black,
			"000000\n000000\n000000\n000000\n00-000\n------\n", -7, [2]float64{-1, 1}},
	} {
		s, err := g.NewState(tc.black, tc.white, tc.player, 40)
		if err != nil {
			t.Fatal(err)
		}
		if !s.IsTerminal() {
			t.Fatalf("%s: not terminal", tc.name)
		}
		var o games.Outcomer = s
		own := make([]float32, 36)
		o.FinalOwnership(own)
		var got []byte
		for a, v := range own {
			got = append(got, map[float32]byte{1: '+', -1: '-', 0: '0'}[v])
			if a%6 == 5 {
				got = append(got, '\n')
			}
		}
		if string(got) != tc.want {
			t.Errorf("%s: ownership\n%s want\n%s", tc.name, got, tc.want)
		}
		if sc := o.FinalScore(); sc != tc.score {
			t.Errorf("%s: FinalScore = %v, want %v", tc.name, sc, tc.score)
		}
		if r := s.Returns(); r != tc.returns {
			t.Errorf("%s: Returns = %v, want %v", tc.name, r, tc.returns)
		}
	}
}
