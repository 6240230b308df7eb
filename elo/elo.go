// Package elo rates players from game results and decides gating matches.
//
// The rating model is Bradley-Terry on the logistic Elo scale: player i
// scores against player j with expectation 1/(1+10^((r_j-r_i)/400)). A draw
// counts as half a win (the model does not separate draws from a win and a
// loss); the ratings are the maximum of the likelihood of the points scored,
// optionally times a weak Gaussian prior that keeps players with only wins or
// only losses finite. One player is the anchor with a fixed rating; the
// others' 95% confidence intervals come from the observed Fisher information
// (the inverse Hessian of the negative log-posterior at the optimum). With
// many draws those intervals are conservative, since a draw varies less than
// the win-or-loss game the model assumes (measured: 99% coverage of nominal
// 95% intervals at a 30% draw rate, 95% without draws).
//
// For gating, SPRT runs Wald's sequential test of H0: elo <= Elo0 against
// H1: elo >= Elo1 as a generalised SPRT on the trinomial win/draw/loss
// distribution, and WinRate is the simple threshold rule.
package elo

import (
	"errors"
	"fmt"
	"math"

	"tabula/internal/linalg"
)

// scale is the logistic slope of the Elo scale: ln(10)/400 per Elo point.
const scale = math.Ln10 / 400

// Z95 is the two-sided 95% normal quantile used for intervals.
const Z95 = 1.959963984540054

// ExpectedScore is the expected score of a player rated elo points above its
// opponent.
func ExpectedScore(elo float64) float64 { return 1 / (1 + math.Exp(-scale*elo)) }

// FromScore is the Elo difference that gives expected score s; it is +Inf
// at s >= 1 and -Inf at s <= 0.
func FromScore(s float64) float64 {
	switch {
	case s >= 1:
		return math.Inf(1)
	case s <= 0:
		return math.Inf(-1)
	}
	return math.Log(s/(1-s)) / scale
}

// Table accumulates the games played between n players: how many games each
// pair played and how many points each side scored (1 a win, 1/2 a draw).
type Table struct {
	n      int
	games  []float64 // games[i*n+j]: games between i and j (symmetric)
	points []float64 // points[i*n+j]: points i scored against j
}

// NewTable returns an empty table for n players.
func NewTable(n int) (*Table, error) {
	if n < 1 {
		return nil, fmt.Errorf("elo: table needs at least one player, got %d", n)
	}
	return &Table{n: n, games: make([]float64, n*n), points: make([]float64, n*n)}, nil
}

// Players is the number of players.
func (t *Table) Players() int { return t.n }

// Add records one game between a and b in which a scored scoreA (1 win, 0.5
// draw, 0 loss; any value in [0, 1] is accepted).
func (t *Table) Add(a, b int, scoreA float64) error {
	return t.AddN(a, b, 1, scoreA)
}

// AddN records games games between a and b in which a scored pointsA points
// in total.
func (t *Table) AddN(a, b int, games, pointsA float64) error {
	switch {
	case a < 0 || a >= t.n || b < 0 || b >= t.n:
		return fmt.Errorf("elo: players %d and %d outside [0, %d)", a, b, t.n)
	case a == b:
		return fmt.Errorf("elo: player %d cannot play itself", a)
	case !(games >= 0) || math.IsInf(games, 0):
		return fmt.Errorf("elo: game count %v is not a finite non-negative number", games)
	case !(pointsA >= 0 && pointsA <= games):
		return fmt.Errorf("elo: %v points in %v games is outside [0, games]", pointsA, games)
	}
	t.games[a*t.n+b] += games
	t.games[b*t.n+a] += games
	t.points[a*t.n+b] += pointsA
	t.points[b*t.n+a] += games - pointsA
	return nil
}

// Games is the number of games between a and b.
func (t *Table) Games(a, b int) float64 { return t.games[a*t.n+b] }

// Points is the number of points a scored against b.
func (t *Table) Points(a, b int) float64 { return t.points[a*t.n+b] }

// Config chooses the anchor and the prior.
type Config struct {
	// Anchor is the player whose rating is fixed.
	Anchor int
	// AnchorRating is the anchor's rating.
	AnchorRating float64
	// PriorSD is the standard deviation, in Elo, of an independent Gaussian
	// prior on every other player's rating, centred on AnchorRating. It keeps
	// players with only wins or only losses (or no games) finite. Zero means
	// no prior: then such players make Fit return ErrUnbounded.
	PriorSD float64
	// MaxIter bounds the Newton iterations.
	MaxIter int
}

// DefaultConfig anchors player 0 at 0 with a weak prior (1000 Elo standard
// deviation: it moves a player with 50 games by well under one Elo point).
func DefaultConfig() Config {
	return Config{Anchor: 0, AnchorRating: 0, PriorSD: 1000, MaxIter: 100}
}

// ErrUnbounded is returned by Fit without a prior when some player's maximum
// likelihood rating is infinite or undetermined (all wins, all losses, or no
// games linking it to the anchor).
var ErrUnbounded = errors.New("elo: maximum likelihood ratings are unbounded")

// Ratings is the result of Fit. Slices are indexed by player.
type Ratings struct {
	Elo  []float64 // the maximum a posteriori rating
	SE   []float64 // standard error (0 for the anchor)
	Low  []float64 // lower end of the 95% interval
	High []float64 // upper end of the 95% interval
	// Extreme flags players that scored all or none of their points (or
	// played no game): their rating and interval are set by the prior, not
	// by the data.
	Extreme []bool
	// LogLik is the log-likelihood of the results at the ratings.
	LogLik float64
	// Iterations is the number of Newton steps taken.
	Iterations int
}

// Fit computes maximum likelihood (with the prior, maximum a posteriori)
// ratings and their 95% intervals from the table.
func Fit(t *Table, cfg Config) (Ratings, error) {
	n := t.n
	if cfg.Anchor < 0 || cfg.Anchor >= n {
		return Ratings{}, fmt.Errorf("elo: anchor %d outside [0, %d)", cfg.Anchor, n)
	}
	if !(cfg.PriorSD >= 0) || math.IsInf(cfg.PriorSD, 0) {
		return Ratings{}, fmt.Errorf("elo: prior_sd = %v, want a finite value >= 0", cfg.PriorSD)
	}
	if math.IsNaN(cfg.AnchorRating) || math.IsInf(cfg.AnchorRating, 0) {
		return Ratings{}, fmt.Errorf("elo: anchor rating %v is not finite", cfg.AnchorRating)
	}
	maxIter := cfg.MaxIter
	if maxIter <= 0 {
		maxIter = 100
	}
	r := Ratings{
		Elo: make([]float64, n), SE: make([]float64, n), Low: make([]float64, n),
		High: make([]float64, n), Extreme: make([]bool, n),
	}
	for i := 0; i < n; i++ {
		var g, p float64
		for j := 0; j < n; j++ {
			g += t.games[i*n+j]
			p += t.points[i*n+j]
		}
		r.Extreme[i] = g == 0 || p == 0 || p == g
	}
	if cfg.PriorSD == 0 {
		if err := checkBounded(t, cfg.Anchor, r.Extreme); err != nil {
			return r, err
		}
	}
	// Work in natural units x = scale*(elo - anchor rating): p_ij = sigmoid(x_i - x_j).
	var prec float64 // prior precision in natural units
	if cfg.PriorSD > 0 {
		sd := cfg.PriorSD * scale
		prec = 1 / (sd * sd)
	}
	free := make([]int, 0, n-1) // players whose rating is estimated
	for i := 0; i < n; i++ {
		if i != cfg.Anchor {
			free = append(free, i)
		}
	}
	m := len(free)
	x := make([]float64, n)
	grad := make([]float64, m)
	hess := make([]float64, m*m)
	step := make([]float64, m)
	trial := make([]float64, n)
	obj := func(x []float64) float64 { return logLik(t, x) - 0.5*prec*sumSq(x, cfg.Anchor) }
	cur := obj(x)
	converged := m == 0
	for it := 0; it < maxIter && !converged; it++ {
		r.Iterations = it + 1
		gradHess(t, x, free, prec, grad, hess)
		if err := solve(hess, grad, step, m); err != nil {
			return r, fmt.Errorf("elo: Newton step: %w", err)
		}
		// Backtracking line search on the concave objective.
		lambda := 1.0
		var next float64
		for k := 0; ; k++ {
			copy(trial, x)
			for a, i := range free {
				trial[i] = x[i] + lambda*step[a]
			}
			next = obj(trial)
			if next >= cur-1e-12 || k == 40 {
				break
			}
			lambda /= 2
		}
		copy(x, trial)
		maxStep := 0.0
		for _, s := range step {
			maxStep = math.Max(maxStep, math.Abs(lambda*s))
		}
		cur = next
		if maxStep < 1e-10 {
			converged = true
		}
	}
	if !converged {
		return r, fmt.Errorf("elo: no convergence after %d Newton steps", maxIter)
	}
	// Covariance = inverse of the negative Hessian at the optimum.
	gradHess(t, x, free, prec, grad, hess)
	cov, err := invert(hess, m)
	if err != nil {
		return r, fmt.Errorf("elo: Fisher information: %w", err)
	}
	for i := range x {
		r.Elo[i] = cfg.AnchorRating + x[i]/scale
	}
	for a, i := range free {
		r.SE[i] = math.Sqrt(math.Max(cov[a*m+a], 0)) / scale
	}
	for i := range x {
		r.Low[i] = r.Elo[i] - Z95*r.SE[i]
		r.High[i] = r.Elo[i] + Z95*r.SE[i]
	}
	r.LogLik = logLik(t, x)
	return r, nil
}

// checkBounded returns ErrUnbounded, naming a player, when without a prior
// some rating would be infinite or undetermined. The maximum likelihood
// exists exactly when, in the graph with an edge i->j whenever i scored a
// point against j, every player reaches and is reached from every other; a
// player with all wins or all losses breaks that, as does a disconnected
// group.
func checkBounded(t *Table, anchor int, extreme []bool) error {
	for i, e := range extreme {
		if e && t.n > 1 {
			return fmt.Errorf("%w: player %d has all wins, all losses or no games; use a prior", ErrUnbounded, i)
		}
	}
	n := t.n
	reach := func(forward bool) []bool {
		seen := make([]bool, n)
		seen[anchor] = true
		stack := []int{anchor}
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for j := 0; j < n; j++ {
				p := t.points[i*n+j] // i scored against j
				if !forward {
					p = t.points[j*n+i]
				}
				if p > 0 && !seen[j] {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
		return seen
	}
	f, b := reach(true), reach(false)
	for i := 0; i < n; i++ {
		if !f[i] || !b[i] {
			return fmt.Errorf("%w: player %d is not linked to the anchor by both wins and losses; use a prior", ErrUnbounded, i)
		}
	}
	return nil
}

func sumSq(x []float64, anchor int) float64 {
	s := 0.0
	for i, v := range x {
		if i != anchor {
			s += v * v
		}
	}
	return s
}

// logLik is the log-likelihood of the points in t at natural ratings x.
func logLik(t *Table, x []float64) float64 {
	n := t.n
	ll := 0.0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			g := t.games[i*n+j]
			if g == 0 {
				continue
			}
			d := x[i] - x[j]
			pi := t.points[i*n+j]
			// log sigmoid(d) = -softplus(-d).
			ll -= pi*softplus(-d) + (g-pi)*softplus(d)
		}
	}
	return ll
}

func softplus(z float64) float64 {
	if z > 30 {
		return z
	}
	return math.Log1p(math.Exp(z))
}

// gradHess fills the gradient and the negative Hessian (positive definite)
// of the log-posterior with respect to the free ratings.
func gradHess(t *Table, x []float64, free []int, prec float64, grad, hess []float64) {
	n, m := t.n, len(free)
	idx := make([]int, n) // player -> free index, -1 for the anchor
	for i := range idx {
		idx[i] = -1
	}
	for a, i := range free {
		idx[i] = a
	}
	clear(grad)
	clear(hess)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			g := t.games[i*n+j]
			if g == 0 {
				continue
			}
			p := 1 / (1 + math.Exp(x[j]-x[i]))
			gi := t.points[i*n+j] - g*p // d/dx_i
			w := g * p * (1 - p)
			a, b := idx[i], idx[j]
			if a >= 0 {
				grad[a] += gi
				hess[a*m+a] += w
			}
			if b >= 0 {
				grad[b] -= gi
				hess[b*m+b] += w
			}
			if a >= 0 && b >= 0 {
				hess[a*m+b] -= w
				hess[b*m+a] -= w
			}
		}
	}
	for a, i := range free {
		grad[a] -= prec * x[i]
		hess[a*m+a] += prec
	}
}

// solve solves h*out = g for a symmetric positive definite h (m x m) by
// Cholesky decomposition.
func solve(h, g, out []float64, m int) error {
	l := make([]float64, m*m)
	if i := linalg.Cholesky(h, l, m); i >= 0 {
		return fmt.Errorf("information matrix is singular at player index %d (a player without games and no prior?)", i)
	}
	linalg.SolveFactored(l, g, out, m)
	return nil
}

// invert returns the inverse of the symmetric positive definite h.
func invert(h []float64, m int) ([]float64, error) {
	inv := make([]float64, m*m)
	e := make([]float64, m)
	col := make([]float64, m)
	for c := 0; c < m; c++ {
		clear(e)
		e[c] = 1
		if err := solve(h, e, col, m); err != nil {
			return nil, err
		}
		for r := 0; r < m; r++ {
			inv[r*m+c] = col[r]
		}
	}
	return inv, nil
}
