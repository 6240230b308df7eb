package elo

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// playGame returns the score of a player elo points stronger than its
// opponent: a draw with probability drawRate (when the expectation allows),
// otherwise a win or a loss, so that the expected score is ExpectedScore(elo).
func playGame(rng *rand.Rand, elo, drawRate float64) float64 {
	e := ExpectedScore(elo)
	pd := math.Min(drawRate, 2*math.Min(e, 1-e))
	u := rng.Float64()
	switch {
	case u < pd:
		return 0.5
	case u < pd+(e-pd/2):
		return 1
	}
	return 0
}

func simulate(t *testing.T, rng *rand.Rand, truth []float64, perPair int, drawRate float64) *Table {
	t.Helper()
	tab, err := NewTable(len(truth))
	if err != nil {
		t.Fatal(err)
	}
	for i := range truth {
		for j := i + 1; j < len(truth); j++ {
			for g := 0; g < perPair; g++ {
				if err := tab.Add(i, j, playGame(rng, truth[i]-truth[j], drawRate)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return tab
}

func TestFitRecoversRatings(t *testing.T) {
	truth := []float64{0, 150, -200, 350, 60}
	tests := []struct {
		name     string
		perPair  int
		drawRate float64
		prior    float64
	}{
		{"no draws, no prior", 400, 0, 0},
		{"draws, no prior", 400, 0.3, 0},
		{"draws, weak prior", 400, 0.3, 1000},
	}
	for k, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(k)+1, 7))
			tab := simulate(t, rng, truth, tc.perPair, tc.drawRate)
			cfg := DefaultConfig()
			cfg.PriorSD = tc.prior
			r, err := Fit(tab, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.Elo[0] != 0 || r.SE[0] != 0 {
				t.Errorf("anchor rated %v +- %v, want exactly 0 +- 0", r.Elo[0], r.SE[0])
			}
			for i, want := range truth {
				if want < r.Low[i] || want > r.High[i] {
					t.Errorf("player %d: true %v outside [%.1f, %.1f] (fit %.1f)", i, want, r.Low[i], r.High[i], r.Elo[i])
				}
				if i > 0 && (r.SE[i] < 5 || r.SE[i] > 60) {
					t.Errorf("player %d: standard error %.1f implausible for %d games a pair", i, r.SE[i], tc.perPair)
				}
				if r.Extreme[i] {
					t.Errorf("player %d flagged extreme", i)
				}
			}
		})
	}
}

// TestFitTwoPlayersClosedForm checks the two-player case against its closed
// form: the rating is the Elo of the observed score, and the standard error
// is 1/sqrt(n p (1-p)) in natural units.
func TestFitTwoPlayersClosedForm(t *testing.T) {
	for _, c := range []struct{ games, points float64 }{{100, 60}, {40, 10}, {1000, 500.5}, {7, 3.5}} {
		tab, _ := NewTable(2)
		if err := tab.AddN(1, 0, c.games, c.points); err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.PriorSD = 0
		cfg.AnchorRating = 1500
		r, err := Fit(tab, cfg)
		if err != nil {
			t.Fatal(err)
		}
		p := c.points / c.games
		wantElo := 1500 + FromScore(p)
		wantSE := 1 / math.Sqrt(c.games*p*(1-p)) / scale
		if math.Abs(r.Elo[1]-wantElo) > 1e-6 || math.Abs(r.SE[1]-wantSE) > 1e-6 {
			t.Errorf("%v/%v: got %.6f +- %.6f, want %.6f +- %.6f", c.points, c.games, r.Elo[1], r.SE[1], wantElo, wantSE)
		}
		if math.Abs(r.High[1]-r.Low[1]-2*Z95*wantSE) > 1e-6 {
			t.Errorf("interval [%v, %v] is not +-1.96 SE", r.Low[1], r.High[1])
		}
	}
}

// TestIntervalCoverage checks that the 95% intervals contain the true rating
// about 95% of the time over many seeded simulations without draws. (With
// draws the half-a-win model overstates the variance of a game's score, so
// the intervals are conservative: checked only from below.)
func TestIntervalCoverage(t *testing.T) {
	for _, drawRate := range []float64{0, 0.3} {
		cov := coverage(t, drawRate)
		t.Logf("draw rate %.1f: coverage %.3f", drawRate, cov)
		if cov < 0.92 || (drawRate == 0 && cov > 0.98) {
			t.Errorf("draw rate %.1f: coverage %.3f of nominal 95%% intervals, want within [0.92, 0.98]", drawRate, cov)
		}
	}
}

func coverage(t *testing.T, drawRate float64) float64 {
	truth := []float64{0, 100, -100, 250}
	rng := rand.New(rand.NewPCG(3, 4))
	in, total := 0, 0
	for rep := 0; rep < 300; rep++ {
		tab := simulate(t, rng, truth, 60, drawRate)
		r, err := Fit(tab, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(truth); i++ {
			total++
			if truth[i] >= r.Low[i] && truth[i] <= r.High[i] {
				in++
			}
		}
	}
	return float64(in) / float64(total)
}

func TestIntervalShrinksWithGames(t *testing.T) {
	truth := []float64{0, 120, -80}
	var prev float64
	for k, n := range []int{25, 100, 400, 1600} {
		rng := rand.New(rand.NewPCG(11, uint64(k)))
		r, err := Fit(simulate(t, rng, truth, n, 0.1), DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		w := r.High[1] - r.Low[1]
		if k > 0 && !(w < 0.6*prev) {
			t.Errorf("%d games a pair: width %.1f, want < 0.6 x %.1f (4x the games)", n, w, prev)
		}
		prev = w
	}
}

func TestExtremePlayers(t *testing.T) {
	tab, _ := NewTable(4)
	// Player 1 beats everyone always; player 2 loses always; player 3 has no games.
	for g := 0; g < 20; g++ {
		_ = tab.Add(1, 0, 1)
		_ = tab.Add(1, 2, 1)
		_ = tab.Add(0, 2, 1)
	}
	if _, err := Fit(tab, Config{PriorSD: 0}); !errors.Is(err, ErrUnbounded) {
		t.Fatalf("without a prior: err = %v, want ErrUnbounded", err)
	}
	r, err := Fit(tab, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{false, true, true, true}
	for i, w := range want {
		if r.Extreme[i] != w {
			t.Errorf("player %d: extreme = %v, want %v", i, r.Extreme[i], w)
		}
		if math.IsNaN(r.Elo[i]) || math.IsInf(r.Elo[i], 0) || math.IsNaN(r.SE[i]) {
			t.Errorf("player %d: rating %v +- %v not finite", i, r.Elo[i], r.SE[i])
		}
	}
	if !(r.Elo[1] > 200 && r.Elo[2] < -200) {
		t.Errorf("all-wins %.0f / all-losses %.0f not clearly above/below the anchor", r.Elo[1], r.Elo[2])
	}
	if math.Abs(r.Elo[3]) > 1e-6 || math.Abs(r.SE[3]-1000) > 1e-6 {
		t.Errorf("player without games: %v +- %v, want the prior 0 +- 1000", r.Elo[3], r.SE[3])
	}
}

func TestDisconnectedWithoutPrior(t *testing.T) {
	tab, _ := NewTable(4)
	for g := 0; g < 10; g++ {
		_ = tab.Add(0, 1, float64(g%2))
		_ = tab.Add(2, 3, float64(g%2))
	}
	if _, err := Fit(tab, Config{}); !errors.Is(err, ErrUnbounded) {
		t.Errorf("two separate groups: err = %v, want ErrUnbounded", err)
	}
}

func TestBadInput(t *testing.T) {
	if _, err := NewTable(0); err == nil {
		t.Error("NewTable(0) gave no error")
	}
	tab, _ := NewTable(2)
	for _, c := range []struct {
		a, b  int
		g, pt float64
	}{{0, 0, 1, 1}, {0, 2, 1, 1}, {-1, 0, 1, 0}, {0, 1, 1, 1.5}, {0, 1, -1, 0}, {0, 1, math.NaN(), 0}, {0, 1, 1, math.NaN()}} {
		if err := tab.AddN(c.a, c.b, c.g, c.pt); err == nil {
			t.Errorf("AddN(%v) gave no error", c)
		}
	}
	for _, cfg := range []Config{{Anchor: 2}, {Anchor: -1}, {PriorSD: -1}, {PriorSD: math.NaN()}, {AnchorRating: math.Inf(1)}} {
		if _, err := Fit(tab, cfg); err == nil {
			t.Errorf("Fit with %+v gave no error", cfg)
		}
	}
}

func TestSPRTValidate(t *testing.T) {
	for _, s := range []SPRT{
		{Elo0: 10, Elo1: 0, Alpha: 0.05, Beta: 0.05},
		{Elo0: 0, Elo1: 10, Alpha: 0, Beta: 0.05},
		{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.6},
		{Elo0: math.NaN(), Elo1: 10, Alpha: 0.05, Beta: 0.05},
	} {
		if _, err := s.Test(1, 1, 1); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	if _, err := (SPRT{0, 10, 0.05, 0.05}).Test(-1, 0, 0); err == nil {
		t.Error("negative count: no error")
	}
}

// TestSPRTBinomialLLR checks the LLR without draws against the binomial
// likelihood ratio, which it must equal up to the pseudo-count.
func TestSPRTBinomialLLR(t *testing.T) {
	s := SPRT{Elo0: 0, Elo1: 30, Alpha: 0.05, Beta: 0.05}
	for _, c := range [][2]int{{60, 40}, {10, 0}, {0, 10}, {500, 480}} {
		d, err := s.Test(c[0], 0, c[1])
		if err != nil {
			t.Fatal(err)
		}
		p0, p1 := ExpectedScore(s.Elo0), ExpectedScore(s.Elo1)
		want := float64(c[0])*math.Log(p1/p0) + float64(c[1])*math.Log((1-p1)/(1-p0))
		if math.Abs(d.LLR-want) > 1e-3*math.Max(1, math.Abs(want)) {
			t.Errorf("%d-%d: LLR %.5f, want %.5f", c[0], c[1], d.LLR, want)
		}
	}
}

// TestSPRTErrorRates runs the test to a verdict many times at elo = Elo0 and
// at elo = Elo1 and checks the error rates are about alpha and beta.
func TestSPRTErrorRates(t *testing.T) {
	s := SPRT{Elo0: 0, Elo1: 40, Alpha: 0.05, Beta: 0.1}
	run := func(rng *rand.Rand, elo float64) Verdict {
		var w, d, l int
		for n := 0; n < 20000; n++ {
			switch playGame(rng, elo, 0.3) {
			case 1:
				w++
			case 0.5:
				d++
			default:
				l++
			}
			dec, err := s.Test(w, d, l)
			if err != nil {
				t.Fatal(err)
			}
			if dec.Verdict != Continue {
				return dec.Verdict
			}
		}
		return Continue
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const trials = 300
	var falseAccept, falseReject int
	for i := 0; i < trials; i++ {
		if run(rng, s.Elo0) == Accept {
			falseAccept++
		}
		if run(rng, s.Elo1) == Reject {
			falseReject++
		}
	}
	fa, fr := float64(falseAccept)/trials, float64(falseReject)/trials
	t.Logf("false accept %.3f (alpha %.2f), false reject %.3f (beta %.2f)", fa, s.Alpha, fr, s.Beta)
	if fa > 2*s.Alpha || fr > 2*s.Beta {
		t.Errorf("error rates %.3f / %.3f exceed twice alpha %.2f / beta %.2f", fa, fr, s.Alpha, s.Beta)
	}
	// Clearly strong and clearly weak players are decided correctly.
	for i := 0; i < 20; i++ {
		if v := run(rng, 200); v != Accept {
			t.Errorf("a +200 player: verdict %v, want accept", v)
		}
		if v := run(rng, -200); v != Reject {
			t.Errorf("a -200 player: verdict %v, want reject", v)
		}
	}
}

func TestWinRate(t *testing.T) {
	for _, c := range []struct {
		w, d, l int
		th      float64
		score   float64
		pass    bool
	}{
		{55, 0, 45, 0.55, 0.55, true},
		{50, 10, 40, 0.55, 0.55, true},
		{54, 1, 45, 0.55, 0.545, false},
		{0, 0, 0, 0.5, 0.5, false},
	} {
		s, p := WinRate(c.w, c.d, c.l, c.th)
		if math.Abs(s-c.score) > 1e-12 || p != c.pass {
			t.Errorf("WinRate(%d,%d,%d,%v) = %v,%v, want %v,%v", c.w, c.d, c.l, c.th, s, p, c.score, c.pass)
		}
	}
	if math.Abs(FromScore(ExpectedScore(123))-123) > 1e-9 {
		t.Error("FromScore does not invert ExpectedScore")
	}
}
