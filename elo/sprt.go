package elo

import (
	"fmt"
	"math"
)

// Verdict is the state of a sequential test.
type Verdict int

// The verdicts of SPRT.Test.
const (
	Continue Verdict = iota // not enough evidence yet: play more games
	Accept                  // H1 accepted: the candidate is at least Elo1 stronger
	Reject                  // H0 accepted: the candidate is at most Elo0 stronger
)

// String names the verdict.
func (v Verdict) String() string {
	switch v {
	case Continue:
		return "continue"
	case Accept:
		return "accept"
	case Reject:
		return "reject"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// SPRT is Wald's sequential probability ratio test of H0: elo <= Elo0 against
// H1: elo >= Elo1 for a candidate's Elo difference over its opponent, with
// false-acceptance rate Alpha (accepting H1 when elo = Elo0) and
// false-rejection rate Beta (accepting H0 when elo = Elo1).
//
// It is the generalised SPRT on the trinomial win/draw/loss distribution: the
// log-likelihood ratio compares the maximum likelihood distributions whose
// expected scores are those of Elo1 and Elo0, so draws need no model of their
// own. A small pseudo-count keeps a run of only wins or only losses finite.
type SPRT struct {
	Elo0, Elo1  float64
	Alpha, Beta float64
}

// Validate names the first bad field.
func (s SPRT) Validate() error {
	switch {
	case math.IsNaN(s.Elo0) || math.IsInf(s.Elo0, 0) || math.IsNaN(s.Elo1) || math.IsInf(s.Elo1, 0):
		return fmt.Errorf("sprt: elo0 = %v and elo1 = %v must be finite", s.Elo0, s.Elo1)
	case !(s.Elo1 > s.Elo0):
		return fmt.Errorf("sprt: elo1 = %v must exceed elo0 = %v", s.Elo1, s.Elo0)
	case !(s.Alpha > 0 && s.Alpha < 0.5):
		return fmt.Errorf("sprt: alpha = %v, want (0, 0.5)", s.Alpha)
	case !(s.Beta > 0 && s.Beta < 0.5):
		return fmt.Errorf("sprt: beta = %v, want (0, 0.5)", s.Beta)
	}
	return nil
}

// Bounds returns Wald's stopping bounds on the log-likelihood ratio.
func (s SPRT) Bounds() (lower, upper float64) {
	return math.Log(s.Beta / (1 - s.Alpha)), math.Log((1 - s.Beta) / s.Alpha)
}

// Decision is the outcome of SPRT.Test.
type Decision struct {
	Verdict      Verdict
	LLR          float64 // log-likelihood ratio of H1 over H0
	Lower, Upper float64 // the stopping bounds
}

// pseudo is the count added to each outcome so that empty categories keep the
// constrained maximum likelihood inside the simplex.
const pseudo = 1e-3

// Test returns the verdict after the candidate's wins, draws and losses.
func (s SPRT) Test(wins, draws, losses int) (Decision, error) {
	if err := s.Validate(); err != nil {
		return Decision{}, err
	}
	if wins < 0 || draws < 0 || losses < 0 {
		return Decision{}, fmt.Errorf("sprt: negative count in %d wins, %d draws, %d losses", wins, draws, losses)
	}
	lo, hi := s.Bounds()
	d := Decision{Lower: lo, Upper: hi}
	n := wins + draws + losses
	if n == 0 {
		return d, nil
	}
	counts := [3]float64{float64(losses) + pseudo, float64(draws) + pseudo, float64(wins) + pseudo}
	total := counts[0] + counts[1] + counts[2]
	var freq [3]float64
	for i := range counts {
		freq[i] = counts[i] / total
	}
	score := [3]float64{0, 0.5, 1}
	// LLR = N * sum_i f_i log(p1_i/p0_i), with p_mu the distribution closest
	// to f (in Kullback-Leibler) whose mean is mu: p_i = f_i/(1+theta(a_i-mu)).
	l0 := logConstrained(freq, score, ExpectedScore(s.Elo0))
	l1 := logConstrained(freq, score, ExpectedScore(s.Elo1))
	d.LLR = float64(n) * (l1 - l0)
	switch {
	case d.LLR >= hi:
		d.Verdict = Accept
	case d.LLR <= lo:
		d.Verdict = Reject
	}
	return d, nil
}

// logConstrained returns sum_i f_i log p_i for the maximum likelihood
// distribution p with mean mu over outcomes a.
func logConstrained(f, a [3]float64, mu float64) float64 {
	// theta solves g(theta) = sum f_i (a_i-mu)/(1+theta(a_i-mu)) = 0 on the
	// interval where every 1+theta(a_i-mu) > 0; g is decreasing there.
	lo, hi := -1/(1-mu), 1/mu
	for it := 0; it < 200; it++ {
		th := (lo + hi) / 2
		g := 0.0
		for i := range f {
			g += f[i] * (a[i] - mu) / (1 + th*(a[i]-mu))
		}
		if g > 0 {
			lo = th
		} else {
			hi = th
		}
	}
	th := (lo + hi) / 2
	s := 0.0
	for i := range f {
		s += f[i] * math.Log(f[i]/(1+th*(a[i]-mu)))
	}
	return s
}

// Score is the fraction of points scored: (wins + draws/2) / games, or 0.5
// with no games.
func Score(wins, draws, losses int) float64 {
	n := wins + draws + losses
	if n <= 0 {
		return 0.5
	}
	return (float64(wins) + float64(draws)/2) / float64(n)
}

// WinRate is the simple gating rule (AlphaGo Zero's 55%): it reports the
// candidate's score and whether it reaches threshold.
func WinRate(wins, draws, losses int, threshold float64) (score float64, pass bool) {
	score = Score(wins, draws, losses)
	return score, wins+draws+losses > 0 && score >= threshold
}
